"""A context focuses its lower-ranked turns on the query, by sentence vectors stored at write time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from consolidation.consolidating.offline import OfflineConsolidator, annotate_relative_dates
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.embedding_template import EmbeddingTemplate
from consolidation.providers.reembedding import Reembedder
from consolidation.recall.sentences import (
    ELLIPSIS,
    MARGIN_TURNS,
    MAX_SENTENCES,
    WHOLE_TURNS,
    embed_turns,
    focus,
    focusable,
    pack,
    sentences,
)
from consolidation.types import Unit
from graph.database import Database
from graph.errors import InvalidInput
from graph.interactions import InteractionStore
from graph.models import NewInteraction, Owner
from tests.integration.test_reembed import FailingEmbedder
from tests.support.engines import DIMENSION, TEST_TEMPLATE, engine_settings
from tests.support.vectors import unit

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def test_sentences_split_at_ends_and_keep_every_word() -> None:
    text = "Wow, thanks!  I went to the support group yesterday. Was it good? It was… powerful"
    assert sentences(text) == [
        "Wow, thanks!",
        "I went to the support group yesterday.",
        "Was it good?",
        "It was…",
        "powerful",
    ]
    assert focusable("Just one sentence here.") == []
    assert focusable(" ".join(["Yes."] * (MAX_SENTENCES + 1))) == []
    assert len(focusable(" ".join(["Yes."] * MAX_SENTENCES))) == MAX_SENTENCES


def test_focus_keeps_the_sentences_near_the_best_one() -> None:
    text = "Hey Mel! I adopted a dog named Max. He is a beagle. How are you?"
    query = unit(1.0)
    rows = np.stack([unit(0.1, 1.0), unit(1.0, 0.2), unit(1.0, 0.4), unit(0.0, 0.0, 1.0)])
    shown = focus(text, pack(rows), query)
    assert shown == "I adopted a dog named Max. He is a beagle." + ELLIPSIS
    # Every sentence close to the best: only the reaction goes ("Mel" is no speaker's name here).
    assert focus(text, pack(np.stack([query] * 4)), query) == (
        "Hey Mel! I adopted a dog named Max. He is a beagle." + ELLIPSIS
    )
    assert focus("I adopted Max. He is a beagle.", pack(np.stack([query] * 2)), query) is None
    # Vectors that do not match the text (another split, another dimension): shown whole.
    assert focus(text, pack(rows[:3]), query) is None
    assert focus(text, pack(rows), unit(1.0)[:3]) is None


def test_narrow_focus_keeps_the_best_sentence_and_the_next() -> None:
    text = "Hey Mel! I adopted a dog named Max. It rained. He is a beagle."
    query = unit(1.0)
    rows = np.stack([unit(0.1, 1.0), unit(1.0, 0.2), unit(0.0, 0.0, 1.0), unit(1.0, 0.4)])
    assert focus(text, pack(rows), query) == "I adopted a dog named Max. He is a beagle." + ELLIPSIS
    assert focus(text, pack(rows), query, narrow=True) == "I adopted a dog named Max. It rained." + ELLIPSIS
    # The best sentence last: it alone.
    assert focus(text, pack(rows[[2, 0, 2, 1]]), query, narrow=True) == "He is a beagle." + ELLIPSIS
    # Two sentences, the first the best: nothing to cut.
    assert focus("I adopted Max. It rained.", pack(rows[1:3]), query, narrow=True) is None


async def test_a_batch_embeds_its_turns_and_their_sentences_in_one_call() -> None:
    embedder = FailingEmbedder(HashingEmbedder(DIMENSION), calls=1)  # a second call would fail
    texts = ["One sentence only", "First part here. Second part there!"]
    turns, packed = await embed_turns(embedder, [f"Ann: {t}" for t in texts], texts)
    assert embedder.texts == 4 and len(turns) == 2
    assert packed[0] is None and packed[1] is not None
    expected = HashingEmbedder(DIMENSION).embed_sync(["First part here.", "Second part there!"])
    assert np.allclose(np.frombuffer(packed[1], dtype=np.float16).reshape(2, DIMENSION), expected, atol=2e-3)
    assert np.allclose(turns[0], HashingEmbedder(DIMENSION).embed_sync(["Ann: One sentence only"])[0])


async def test_the_store_refuses_sentence_vectors_of_the_wrong_size(db: Database, owner: Owner) -> None:
    vector = HashingEmbedder(DIMENSION).embed_sync(["x"])[0]
    bad = NewInteraction(
        speaker="Ann", text="A. B.", occurred_at=T0, embedding=vector, sentence_vectors=b"\x00" * 10
    )
    with pytest.raises(InvalidInput, match="float16 rows"):
        await InteractionStore(db, DIMENSION).write_batch(owner, [bad])
    assert await InteractionStore(db, DIMENSION).pending(owner, 10) == []


TOPICAL = [
    "violin lesson violin lesson",
    "the violin lesson was long",
    "a violin lesson on thursday",
    "my violin lesson teacher",
]
# Ranks below the topical turns: only one of its sentences is about the query.
MIXED = "The weather was grey and cold all week long. My violin lesson moved to Friday."


async def _context_lines(db: Database, owner: Owner, extra: str | None = None, **settings: Any) -> list[str]:
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**settings))
    for n, text in enumerate([*TOPICAL, MIXED, *([extra] if extra else [])]):
        unit = Unit(text=text, speaker="Alice", occurred_at=T0 + timedelta(hours=n))
        await engine.remember(owner, unit, consolidate=False)
    found = await engine.recall(owner, "violin lesson", tokens=500)
    assert found.context is not None
    subconscious = [i for i in found.context.items if i.hit.layer == "subconscious"]
    assert len(subconscious) == len(TOPICAL) + 1 + (extra is not None) > WHOLE_TURNS
    return [i.line for i in subconscious]


async def test_a_lower_ranked_turn_shows_only_its_sentences_about_the_query(
    db: Database, owner: Owner
) -> None:
    lines = await _context_lines(db, owner)
    assert "- Alice: My violin lesson moved to Friday." + ELLIPSIS in lines
    assert not any("weather" in line for line in lines)
    assert {f"- Alice: {text}" for text in TOPICAL} <= set(lines)  # one-sentence turns stay whole


async def test_a_turn_ranked_below_the_margin_turns_shows_its_best_sentence_and_the_next(
    db: Database, owner: Owner
) -> None:
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    topical = [f"violin lesson number {n}" for n in range(MARGIN_TURNS)]
    long = "My violin lesson moved to Friday. The weather was grey. I baked bread all week."
    for n, text in enumerate([*topical, long]):
        unit = Unit(text=text, speaker="Alice", occurred_at=T0 + timedelta(hours=n))
        await engine.remember(owner, unit, consolidate=False)
    found = await engine.recall(owner, "violin lesson", tokens=500)
    assert found.context is not None
    turns = [i for i in found.context.items if i.hit.layer == "subconscious"]
    assert len(turns) == MARGIN_TURNS + 1
    ranked = sorted(turns, key=lambda i: i.rank_score, reverse=True)
    assert ranked[-1].line == "- Alice: My violin lesson moved to Friday. The weather was grey." + ELLIPSIS


@pytest.mark.parametrize("focused", [True, False])
async def test_a_best_ranked_turn_shows_no_reactions(db: Database, owner: Owner, focused: bool) -> None:
    engine = MemoryEngine(
        db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(context_focus=focused)
    )
    said = "Thanks, Alice! My violin lesson moved to Friday. How are you?"
    for n, (speaker, text) in enumerate([("Alice", "violin lesson on Friday"), ("Bob", said)]):
        unit = Unit(text=text, speaker=speaker, occurred_at=T0 + timedelta(hours=n))
        await engine.remember(owner, unit, consolidate=False)
    found = await engine.recall(owner, "violin lesson", tokens=500)
    assert found.context is not None
    lines = {i.line for i in found.context.items if i.hit.layer == "subconscious"}
    shown = "My violin lesson moved to Friday." + ELLIPSIS if focused else said
    assert lines == {"- Alice: violin lesson on Friday", f"- Bob: {shown}"}


async def test_without_focus_every_turn_is_whole(db: Database, owner: Owner) -> None:
    lines = await _context_lines(db, owner, context_focus=False)
    assert f"- Alice: {MIXED}" in lines


async def test_reembedding_rebuilds_the_sentence_vectors(db: Database, owner: Owner) -> None:
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    await engine.remember(owner, Unit(text=MIXED, speaker="Alice", occurred_at=T0), consolidate=False)
    await db.driver.execute_query(
        "MATCH (n:Interaction {tenant: $t}) REMOVE n.sentence_vectors, n.embedding_key", t=owner.tenant
    )
    await Reembedder(
        db, HashingEmbedder(DIMENSION), EmbeddingTemplate(TEST_TEMPLATE), tenant=owner.tenant
    ).run()
    records, _, _ = await db.driver.execute_query(
        "MATCH (n:Interaction {tenant: $t}) RETURN n.sentence_vectors AS v", t=owner.tenant
    )
    assert [len(r["v"]) for r in records] == [2 * 2 * DIMENSION]


def test_relative_dates_get_their_absolute_date_beside_them() -> None:
    said_on = T0.date()  # Monday 8 May 2023
    text = "I went yesterday and I'll go again next Friday, like last week."
    assert annotate_relative_dates(text, said_on) == (
        "I went yesterday (7 May 2023) and I'll go again next Friday (12 May 2023), "
        "like last week (the week of 1 May 2023)."
    )
    assert annotate_relative_dates("Nothing relative here.", said_on) == "Nothing relative here."


async def test_a_context_dates_relative_days_unless_told_not_to(db: Database, owner: Owner) -> None:
    dated = await _context_lines(db, owner, extra="I had a violin lesson yesterday.")
    assert "- Alice: I had a violin lesson yesterday (7 May 2023)." in dated
    other = Owner(owner.tenant, owner.user_id + "-plain")
    plain = await _context_lines(db, other, extra="I had a violin lesson yesterday.", context_dates=False)
    assert "- Alice: I had a violin lesson yesterday." in plain
