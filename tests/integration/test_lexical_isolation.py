"""A user's recall does not move when another tenant writes text that shares the user's words."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Recall, Unit
from graph.database import Database
from graph.models import Owner
from tests.support.engines import DIMENSION, engine_settings

T0 = datetime(2023, 5, 8, 9, 0, tzinfo=UTC)
MUSIC = ["violin", "piano", "concert", "rehearsal", "orchestra", "melody"]
GARDEN = ["garden", "tomato", "soil", "seeds", "compost", "harvest"]
FILLER = ["today", "really", "again", "with", "my", "friend", "we", "talked", "about", "the", "new"]
QUERIES = [
    "violin concert in the garden",
    "tomato seeds and piano rehearsal",
    "orchestra melody harvest compost",
    "what did we say about the soil and the violin",
]


def _turns(rng: random.Random, n: int, words: list[str]) -> list[str]:
    """Sentences that mix `words` with filler in varying amounts, so that term counts and
    lengths (BM25's inputs) differ from turn to turn."""
    turns = []
    for _ in range(n):
        picked = rng.choices(words, k=rng.randint(1, 4)) + rng.choices(FILLER, k=rng.randint(2, 9))
        rng.shuffle(picked)
        turns.append(" ".join(picked).capitalize() + ".")
    return turns


# A recall as shown: each layer's (id, text) in order, then the context's text.
Shown = list[list[tuple[str, str]]]


def _units(texts: list[str]) -> list[Unit]:
    return [
        Unit(text=t, speaker="Alice", occurred_at=T0 + timedelta(minutes=7 * i)) for i, t in enumerate(texts)
    ]


def _shown(recall: Recall) -> Shown:
    """Every per-layer list (id and text, in order) and the context's text."""
    lists = [
        [(h.id, h.text) for h in hits] for hits in (recall.subconscious, recall.episodic, recall.semantic)
    ]
    context = [("context", recall.context.text)] if recall.context is not None else []
    return [*lists, context]


async def _recalls(engine: MemoryEngine, owner: Owner) -> dict[tuple[str, str], Shown]:
    """Each query's recall: plain, with consolidated turns, and under two token budgets."""
    found = {}
    for query in QUERIES:
        found[query, "plain"] = _shown(await engine.recall(owner, query))
        found[query, "consolidated"] = _shown(await engine.recall(owner, query, include_consolidated=True))
        for tokens in (150, 400):
            found[query, f"tokens {tokens}"] = _shown(await engine.recall(owner, query, tokens=tokens))
    return found


async def test_recall_ignores_another_tenants_text_that_shares_the_users_words(
    db: Database, owner: Owner
) -> None:
    rng = random.Random(30)
    # Inline consolidation with a low gate: the user has turns, episodes and facts to find.
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    for unit in _units(_turns(rng, 60, MUSIC + GARDEN)):
        await engine.remember(owner, unit)
    before = await _recalls(engine, owner)
    assert all(shown[0] for shown in before.values())  # every recall found turns
    assert any(shown[1] for shown in before.values()) and any(shown[2] for shown in before.values())

    # Another tenant writes many turns of half the user's words (and the same user id): under
    # index-wide statistics these words get rarer elsewhere than the user's other half.
    other = Owner(f"t-{uuid.uuid4().hex[:12]}", owner.user_id)
    await engine.remember_batch(other, _units(_turns(rng, 400, MUSIC[:3] + GARDEN[3:])), consolidate=False)

    after = await _recalls(engine, owner)
    assert [key for key in before if after[key] != before[key]] == []
