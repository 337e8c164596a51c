"""`remember(consolidate: true)` on a real `recmem serve` while another process (this test's own
engine, on the same database) holds the user's consolidation lease: the service runs no pass of
its own and answers what the other process's pass did with the write."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from graph.database import Database
from graph.models import Owner
from graph.settings import Neo4jSettings
from harness.serve_process import free_port
from tests.support.concurrent_writer import sushi_unit
from tests.support.engines import lease_of
from tests.support.leases import WAIT_S, Stalled, derived_episodes, engine
from tests.support.serve import keyed_service, serve_env

REMEMBER = """mutation ($input: RememberInput!) {
  remember(input: $input, consolidate: true) {
    interactionId
    consolidation { action episodeId consolidatedIds error }
  }
}"""


async def test_a_write_while_another_process_holds_the_lease(
    db: Database, neo4j_settings: Neo4jSettings, tmp_path: Path
) -> None:
    env = serve_env(neo4j_settings, free_port(), RECMEM_CONSOLIDATION_MODE="background")
    with keyed_service(env, tmp_path) as service:
        owner = Owner(service.tenant, "alice")
        other = engine(db)
        stalled = Stalled(other)
        for i in range(2):
            await other.remember(owner, sushi_unit(i, "", f"p{i}"), consolidate=False)
        elsewhere = asyncio.create_task(other.consolidate(owner, wait=True))
        try:
            await asyncio.wait_for(stalled.started.wait(), WAIT_S)
            assert await lease_of(db, owner) == other.holder
            unit = sushi_unit(2, "", "p2")
            variables = {
                "input": {
                    "userId": owner.user_id,
                    "text": unit.text,
                    "speaker": unit.speaker,
                    "occurredAt": unit.occurred_at.isoformat(),
                    "sourceRef": unit.source_ref,
                }
            }
            headers = {"authorization": f"Bearer {service.key}"}
            async with httpx.AsyncClient(base_url=service.base, headers=headers, timeout=WAIT_S) as http:
                sent = asyncio.create_task(
                    http.post("/graphql", json={"query": REMEMBER, "variables": variables})
                )
                await asyncio.sleep(1.0)
                assert not sent.done(), "the write answered before the pass that covers it"
                stalled.go.set()
                response = await asyncio.wait_for(sent, WAIT_S)
        finally:
            stalled.go.set()
            await asyncio.wait_for(elsewhere, WAIT_S)
    body = response.json()
    assert response.status_code == 200 and "errors" not in body, body
    remembered = body["data"]["remember"]
    outcome = remembered["consolidation"]
    assert outcome is not None, "the write's outcome was not reported"
    assert outcome["action"] == "CREATED", outcome
    assert remembered["interactionId"] in outcome["consolidatedIds"]
    assert outcome["episodeId"] in await derived_episodes(db, remembered["interactionId"])
    # The other process's pass was the only one that read the pending turns.
    assert len(stalled.tasks) == 1
    assert await lease_of(db, owner) is None
