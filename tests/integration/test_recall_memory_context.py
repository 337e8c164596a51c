"""What a token-budgeted context takes from the memory layers: facts with their cosine as score,
and the facts a person stated (no turn under them) at their own rank among the facts."""

from __future__ import annotations

from datetime import UTC, datetime

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from tests.support.engines import DIMENSION, engine_settings

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def _engine(db: Database) -> MemoryEngine:
    return MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())


async def test_a_fact_in_the_context_is_scored_by_its_cosine(db: Database, owner: Owner) -> None:
    engine = _engine(db)
    # Salient: consolidated into a fact at once.
    await engine.remember(owner, Unit(text="I am allergic to penicillin.", speaker="Ann", occurred_at=T0))
    found = await engine.recall(owner, "Is Ann allergic to penicillin?", tokens=300)
    assert found.context is not None and found.semantic
    cosine = {h.id: h.score for h in found.semantic}
    facts = [i for i in found.context.items if i.hit.layer == "semantic"]
    assert facts, found.context.text
    # Found by both views: its cosine, not its BM25 score.
    assert all(0.0 < i.hit.score <= 1.0 and i.hit.score == cosine[i.hit.id] for i in facts)


async def test_the_facts_a_person_stated_reach_the_context(db: Database, owner: Owner) -> None:
    engine = _engine(db)
    said = await engine.remember(
        owner, Unit(text="I am allergic to shellfish.", speaker="Carol", occurred_at=T0)
    )
    await engine.remember(owner, Unit(text="We walked along the beach.", speaker="Carol", occurred_at=T0))
    # Salient: its fact forms at once.
    assert said.consolidation is not None
    derived = await engine.stores.browse.facts(owner.tenant, said.consolidation.fact_ids)
    derived_ids = [i for i, f in derived.items() if "shellfish" in f.text]
    assert len(derived_ids) == 1
    corrected = await engine.beliefs.correct(
        owner, derived_ids[0], "Carol is allergic to shrimp only, not all shellfish.", "precise", by="test"
    )
    added = await engine.beliefs.add(owner, "Carol is vegetarian.", "attribute", by="test")
    found = await engine.recall(owner, "What is Carol allergic to? Is she vegetarian?", tokens=1000)
    assert found.context is not None
    ids = {i.hit.id for i in found.context.items}
    # Neither rests on a turn: before, no anchor let them in, and the old belief's turn stood alone.
    assert corrected.fact is not None and corrected.fact.id in ids
    assert added.fact is not None and added.fact.id in ids
    assert "shrimp only" in found.context.text and "vegetarian" in found.context.text
