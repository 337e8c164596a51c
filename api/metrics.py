"""`GET /metrics`: the engine's registry (consolidation/metrics.py) in the Prometheus text format.

No API key, like `/healthz`: the exposition holds counts, ages and process figures only, never a
tenant, a user id or any text. `RECMEM_API_METRICS=false` turns the route off (404).
The backlog gauges are read from Neo4j on each scrape (one bounded statement).
"""

from __future__ import annotations

import asyncio
import logging

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from api.context import services_of
from api.services import Services

log = logging.getLogger("api.metrics")
# A scrape, or a readiness probe, does not wait longer than this for the backlog read.
BACKLOG_TIMEOUT_S = 5.0


async def metrics(request: Request) -> Response:
    services = services_of(request.scope)
    if not services.settings.metrics:
        return PlainTextResponse("Not Found", status_code=404)
    await read_backlog(services)  # sets the backlog gauges (NaN when Neo4j does not answer)
    return Response(generate_latest(services.engine.metrics.registry), media_type=CONTENT_TYPE_LATEST)


async def read_backlog(services: Services) -> dict[str, float | int]:
    """The backlog for `/readyz`'s body: pending interactions and the oldest's age in seconds;
    empty when Neo4j did not answer in time (readiness says why)."""
    try:
        backlog = await asyncio.wait_for(services.engine.backlog(), BACKLOG_TIMEOUT_S)
    except Exception as error:
        log.debug("could not read the consolidation backlog: %s", error)
        return {}
    return {
        "pending_interactions": backlog.pending,
        "pending_oldest_age_seconds": round(backlog.oldest_age_s, 3),
    }
