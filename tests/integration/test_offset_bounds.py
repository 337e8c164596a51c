"""A time bound given in another offset is the instant it names (graph/database.py sends every
time in UTC): Neo4j orders 09:00Z before 14:00+05:00, so a bound at the very instant of a turn
left it out when written at +05:00."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import RecallFilters, Unit
from graph.database import Database
from graph.models import Owner
from tests.support.engines import DIMENSION, engine_settings

SAID = datetime(2023, 6, 1, 9, tzinfo=UTC)


async def test_a_bound_at_a_turns_instant_in_another_offset_holds_it(db: Database, owner: Owner) -> None:
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    done = await engine.remember(
        owner, Unit(text="The kiln reached cone six.", speaker="fay", occurred_at=SAID)
    )
    for offset in (5, -8, 0):
        same = SAID.astimezone(timezone(timedelta(hours=offset)))
        inside = await engine.recall(owner, "kiln", filters=RecallFilters(occurred_after=same))
        assert [h.id for h in inside.subconscious] == [done.interaction_id], same
        outside = await engine.recall(owner, "kiln", filters=RecallFilters(occurred_before=same))
        assert outside.subconscious == [], same
        # Memory as it stood at that instant holds the turn said then.
        then = await engine.recall(owner, "kiln", as_of=same)
        assert [h.id for h in then.subconscious] == [done.interaction_id], same
