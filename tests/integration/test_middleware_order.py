"""The order of /graphql's middleware stack (api/app.py) as a client sees it: each refusal comes
from the check that should answer first, so a swap of two middlewares fails here."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.types import Message

from api.app import create_app
from api.settings import body_room_for
from consolidation.wiring import AppSettings
from graph.database import Database
from tests.support.api import make_api_settings, make_engine, new_caller

# A small body cap, with room for the texts the engine takes (api/settings.py's require_body_room).
TEXT = 1024
CAP = body_room_for(TEXT)
OVERSIZE = json.dumps({"query": "{ __typename }", "variables": {"pad": "x" * (4 * CAP)}})


@dataclass(frozen=True)
class Served:
    app: Starlette
    http: httpx.AsyncClient


@pytest.fixture
async def served(db: Database) -> AsyncIterator[Served]:
    """An app with a small body cap and a rate limit of one request per key (no refill in a
    test), and a client of it."""
    settings = make_api_settings(max_body_bytes=CAP, rate_limit_per_s=0.001, rate_limit_burst=1)
    app = create_app(AppSettings(), settings, engine=make_engine(db, max_text_bytes=TEXT))
    transport = httpx.ASGITransport(app=app)
    client = httpx.AsyncClient(transport=transport, base_url="http://api.test")
    async with app.router.lifespan_context(app), client:
        yield Served(app, client)


def _code(response: httpx.Response) -> str:
    return str(response.json()["errors"][0]["extensions"]["code"])


async def test_an_oversized_body_without_a_key_is_401(served: Served) -> None:
    """Authentication runs before the body cap: no caller without a key learns the cap."""
    response = await served.http.post(
        "/graphql", content=OVERSIZE, headers={"content-type": "application/json"}
    )
    assert response.status_code == 401, response.text
    assert _code(response) == "UNAUTHENTICATED"


async def test_no_key_and_an_unacceptable_accept_is_406(served: Served) -> None:
    """Negotiation runs before authentication: even the refusal is in a type the client reads."""
    response = await served.http.post(
        "/graphql", json={"query": "{ __typename }"}, headers={"accept": "text/plain"}
    )
    assert response.status_code == 406, response.text


async def test_over_the_rate_limit_is_429_before_the_body_is_read(db: Database, served: Served) -> None:
    caller = await new_caller(db, served.http)
    assert (await caller.post("{ __typename }")).status_code == 200  # the one token of the burst
    limited = await served.http.post(
        "/graphql",
        content=OVERSIZE,
        headers={"authorization": f"Bearer {caller.key}", "content-type": "application/json"},
    )
    assert limited.status_code == 429, limited.text  # not 413: the body cap never looked
    assert _code(limited) == "RATE_LIMITED"
    # At the ASGI level: the refusal is sent without a single receive() of the body.
    status, received = await _asgi_post(served.app, caller.key, OVERSIZE.encode())
    assert (status, received) == (429, 0)


async def _asgi_post(app: Starlette, key: str, body: bytes) -> tuple[int, int]:
    """POST /graphql straight to the ASGI app: the response status and how often the app asked
    for the body."""
    received = 0
    statuses: list[int] = []

    async def receive() -> Message:
        nonlocal received
        received += 1
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.append(int(message["status"]))

    headers = [
        (b"host", b"api.test"),
        (b"authorization", f"Bearer {key}".encode()),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/graphql",
        "raw_path": b"/graphql",
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 1234),
        "server": ("api.test", 80),
    }
    await app(scope, receive, send)
    return statuses[0], received
