"""`Server-Timing` (W3C): how long the service took over a request, and how much of that it spent
waiting for Neo4j, so a client can tell the database, the service and the network apart:

    Server-Timing: neo4j;dur=7.71;desc="2 statements", app;dur=1.02, total;dur=8.73

`total` runs from when the request reaches this middleware to when its response starts, `neo4j`
is the time at least one statement was out (graph/timing.py), `app` the rest: middleware,
GraphQL, the engine's own work. Durations only, in milliseconds; nothing of the request's data."""

from __future__ import annotations

import time

from starlette.datastructures import MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from api.middleware.base import HttpMiddleware
from graph.timing import StatementClock, statement_clock

HEADER = "server-timing"


class ServerTimingMiddleware(HttpMiddleware):
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = time.perf_counter()
        with statement_clock() as clock:

            async def send_with_timing(message: Message) -> None:
                if message["type"] == "http.response.start":
                    MutableHeaders(scope=message).append(HEADER, server_timing(clock, start))
                    clock.stop()  # the request has answered: nothing after this is its time
                await send(message)

            await self.app(scope, receive, send_with_timing)


def server_timing(clock: StatementClock, start: float) -> str:
    total_ms = (time.perf_counter() - start) * 1000
    neo4j_ms = clock.busy_s() * 1000
    count = clock.statements
    noun = "statement" if count == 1 else "statements"
    return (
        f'neo4j;dur={neo4j_ms:.2f};desc="{count} {noun}", '
        f"app;dur={max(total_ms - neo4j_ms, 0.0):.2f}, total;dur={total_ms:.2f}"
    )
