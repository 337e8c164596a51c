"""A separate process that remembers units for one user; used by the multi-process test (which
writes the same kind of units in process)."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime, timedelta

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.settings import EngineSettings
from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from graph.settings import Neo4jSettings

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def sushi_unit(i: int, suffix: str, source_ref: str) -> Unit:
    """The i-th of near-identical turns a minute apart (enough of them open one episode)."""
    return Unit(
        text=f"sushi dinner with salmon rolls number {i}{suffix}",
        speaker="Alice",
        occurred_at=T0 + timedelta(minutes=i),
        source_ref=source_ref,
    )


async def main(tenant: str, user: str, prefix: str, count: int) -> None:
    db = Database.connect(Neo4jSettings())
    engine = MemoryEngine(
        db,
        HashingEmbedder(384),
        OfflineConsolidator(),
        EngineSettings(
            theta_sim=0.3,
            theta_count=3,
            merge_threshold=0.6,
            merge_batch=1,
            consolidation_mode="inline",
            embedding_template="{text}",
        ),
    )
    owner = Owner(tenant, user)
    units = [sushi_unit(i, f" from {prefix}", f"{prefix}-{i}") for i in range(count)]
    results = await asyncio.gather(*(engine.remember(owner, u) for u in units))
    print(json.dumps([r.interaction_id for r in results]))
    await db.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
