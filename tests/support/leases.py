"""Holding a user's consolidation lease in a test: an engine whose passes stall once they hold
it, so that a write can be sent while another holder is mid-pass."""

from __future__ import annotations

import asyncio
from typing import Any

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.database import Database
from graph.models import Owner
from tests.support.engines import DIMENSION, engine_settings

WAIT_S = 60.0


class Stalled:
    """Holds an engine's passes at their read of the pending interactions (the lease taken) until
    `go`, noting the asyncio task of each read (a background worker's: recmem-consolidation-N)."""

    def __init__(self, engine: MemoryEngine) -> None:
        self.started = asyncio.Event()
        self.go = asyncio.Event()
        self.tasks: list[str] = []
        self._pending = engine.stores.interactions.pending
        # method-assign: replaced on this engine alone; its store stalls until released.
        engine.stores.interactions.pending = self._stalled  # type: ignore[method-assign]

    async def _stalled(self, owner: Owner, *args: Any, **kwargs: Any) -> Any:
        task = asyncio.current_task()
        self.tasks.append(task.get_name() if task else "")
        self.started.set()
        await self.go.wait()
        return await self._pending(owner, *args, **kwargs)


def engine(db: Database, **overrides: object) -> MemoryEngine:
    return MemoryEngine(
        db,
        HashingEmbedder(DIMENSION),
        OfflineConsolidator(),
        engine_settings(merge_threshold=0.6, **overrides),
    )


async def derived_episodes(db: Database, interaction_id: str) -> set[str]:
    rows = await db.driver.execute_query(
        "MATCH (e:Episode)-[:DERIVED_FROM]->(:Interaction {id: $id}) RETURN e.id AS id",
        id=interaction_id,
        database_=db.name,
    )
    return {r["id"] for r in rows.records}
