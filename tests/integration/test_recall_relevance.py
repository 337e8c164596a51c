"""A minimum rank score cuts every layer and the context; a context with no relevant candidate
says so, and with the relevance rule on it is empty (consolidation/recall/relevance.py)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.database import Database
from graph.errors import InvalidInput
from graph.models import Owner
from tests.support.api import Caller, tell_story
from tests.support.engines import DIMENSION, engine_settings

T0 = datetime(2023, 5, 8, 9, 0, tzinfo=UTC)
TURNS = [
    "I practised the violin for two hours before the concert.",
    "The orchestra rehearsal ran late again tonight.",
    "My piano teacher liked the new melody I wrote.",
    "We planted tomato seeds in the garden this morning.",
    "The compost heap is finally ready for the soil.",
    "Harvest season means the garden needs watering daily.",
]
UNRELATED = "quantum xylophone zeppelin"


async def _engine(db: Database, owner: Owner, *, relevance: bool) -> MemoryEngine:
    # A dense floor no hashing cosine of unrelated words reaches: the lexical view decides.
    settings = engine_settings(theta_sim=0.95, context_relevance=relevance)
    return MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), settings)


async def _remember(engine: MemoryEngine, owner: Owner) -> None:
    units = [Unit(text=t, speaker="Alice", occurred_at=T0 + timedelta(hours=i)) for i, t in enumerate(TURNS)]
    await engine.remember_batch(owner, units, consolidate=False)


async def test_a_minimum_score_cuts_each_layer_and_the_context_at_the_same_score(
    db: Database, owner: Owner
) -> None:
    engine = await _engine(db, owner, relevance=False)
    await _remember(engine, owner)
    full = await engine.recall(owner, "violin concert in the garden", tokens=400)
    ranks = [h.rank_score for h in full.subconscious]
    assert ranks == sorted(ranks, reverse=True) and len(set(ranks)) > 2
    floor = ranks[len(ranks) // 2]
    cut = await engine.recall(owner, "violin concert in the garden", tokens=400, min_score=floor)
    assert [h.id for h in cut.subconscious] == [h.id for h in full.subconscious if h.rank_score >= floor]
    assert len(cut.subconscious) < len(full.subconscious)
    assert full.context is not None and cut.context is not None
    assert all(item.rank_score >= floor - 1e-6 for item in cut.context.items)
    assert len(cut.context.items) < len(full.context.items)
    for bad in (-0.1, math.nan, math.inf):
        with pytest.raises(InvalidInput):
            await engine.recall(owner, "violin", min_score=bad)


async def test_a_context_with_nothing_relevant_says_so_and_is_empty_with_the_rule_on(
    db: Database, owner: Owner
) -> None:
    off = await _engine(db, owner, relevance=False)
    on = await _engine(db, owner, relevance=True)
    await _remember(off, owner)

    filled = (await off.recall(owner, UNRELATED, tokens=400)).context
    assert filled is not None and filled.nothing_relevant and filled.items  # flagged, filled anyway
    empty = (await on.recall(owner, UNRELATED, tokens=400)).context
    assert empty is not None and empty.nothing_relevant
    assert (empty.text, empty.tokens, empty.items) == ("", 0, [])

    # A query that shares the user's rarer words is relevant: the same context either way.
    related = [(await e.recall(owner, "violin concert", tokens=400)).context for e in (off, on)]
    assert related[0] is not None and related[1] is not None
    assert not related[0].nothing_relevant and not related[1].nothing_relevant
    assert related[0].text == related[1].text and related[0].items


RECALL = """query($q: String!, $min: Float) {
  recall(userId: "alice", query: $q, budget: {tokens: 300}, minScore: $min) {
    subconscious { rankScore } context { nothingRelevant items { rankScore } } } }"""


async def test_graphql_takes_min_score_and_reports_nothing_relevant(caller: Caller) -> None:
    await tell_story(caller)
    recall = (await caller.gql(RECALL, {"q": "sushi salmon", "min": 0.016}))["recall"]
    assert recall["subconscious"] and all(h["rankScore"] >= 0.016 for h in recall["subconscious"])
    assert recall["context"]["nothingRelevant"] is False
    assert all(i["rankScore"] >= 0.016 for i in recall["context"]["items"])
    errors = await caller.errors(RECALL, {"q": "sushi", "min": -1.0})
    assert errors[0]["extensions"]["code"] == "BAD_USER_INPUT"
