"""Recall under a token budget, the embedding template, and exact per-user dense search."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.embedding_template import (
    DEFAULT_TEMPLATE,
    EmbeddingTemplate,
    TemplateError,
    day_text,
)
from consolidation.recall.context import Calendar, Ranked, assemble, day_header, rank, render
from consolidation.recall.tokens import count_tokens
from consolidation.types import RecallHit, Unit
from graph.database import Database
from graph.errors import InvalidInput
from graph.interactions import InteractionStore
from graph.models import Episode, Fact, Interaction, NewInteraction, Owner
from graph.recall import RecallSearch
from tests.support.engines import DIMENSION, engine_settings

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def turn(n: int, text: str, day: int = 0) -> RecallHit:
    item = Interaction(
        id=f"int_{n}",
        tenant="t",
        user_id="u",
        session_id=None,
        speaker="Caroline",
        text=text,
        occurred_at=T0 + timedelta(days=day),
        seq=n,
        consolidated=False,
        source_ref=None,
    )
    return RecallHit("subconscious", item.id, text, 0.5, item.occurred_at, [item.id], item)


def episode(n: int, summary: str, sources: list[str], day: int = 0) -> RecallHit:
    at = T0 + timedelta(days=day)
    item = Episode(
        id=f"epi_{n}",
        tenant="t",
        user_id="u",
        title="t",
        summary=summary,
        version=1,
        first_at=at,
        last_at=at,
        created_at=at,
        current=True,
        valid_from=at,
    )
    return RecallHit("episodic", item.id, summary, 0.5, at, sources, item)


def fact(n: int, text: str, sources: list[str], day: int = 0) -> RecallHit:
    at = T0 + timedelta(days=day)
    item = Fact(
        id=f"fct_{n}",
        tenant="t",
        user_id="u",
        text=text,
        kind="event",
        status="active",
        valid_from=at,
        valid_to=None,
        created_at=at,
    )
    return RecallHit("semantic", item.id, text, 0.5, at, sources, item)


def in_order(*hits: RecallHit) -> list[Ranked]:
    return [Ranked(h, 1.0 / (i + 1)) for i, h in enumerate(hits)]


# -- assembling a context (pure) -----------------------------------------------------------------


def test_context_fits_its_budget_and_skips_what_does_not_fit() -> None:
    long = turn(1, "word " * 300)
    short = [turn(n, f"short turn number {n}") for n in range(2, 6)]
    context = assemble(in_order(long, *short), 100, count_tokens)
    assert context.tokens <= 100 == context.budget
    assert context.tokens == count_tokens(context.text)
    # The long turn did not fit; the short ones ranked after it still came in.
    assert [i.hit.id for i in context.items] == [h.id for h in short]


def test_a_turn_inside_a_recalled_episode_is_not_repeated() -> None:
    first, second, other = turn(1, "I went to a support group"), turn(2, "It was great"), turn(3, "Pottery")
    holder = episode(1, "On 7 May 2023 Caroline went to a support group.", [first.id, second.id])
    context = assemble(in_order(first, holder, second, other), 1000, count_tokens)
    ids = [i.hit.id for i in context.items]
    # The episode entered after `first` and gave its tokens back; `second` is skipped.
    assert ids == [holder.id, other.id]
    assert context.interaction_ids == {first.id, second.id, other.id}
    assert "I went to a support group" not in context.text


def test_context_is_ordered_facts_episodes_turns_each_in_time_order() -> None:
    late, early = turn(1, "late turn", day=5), turn(2, "early turn", day=1)
    old_fact, new_fact = fact(1, "Caroline moved in 2019.", [], day=0), fact(2, "Caroline paints.", [], day=9)
    summary = episode(1, "Caroline talked about painting.", ["int_9"], day=3)
    context = assemble(in_order(late, new_fact, summary, early, old_fact), 1000, count_tokens)
    lines = context.text.splitlines()
    assert lines == [
        "Facts:",
        "- Caroline moved in 2019.",
        "- Caroline paints.",
        "Episodes:",
        f"- [{day_text(T0 + timedelta(days=3))}] Caroline talked about painting.",
        "Conversation:",
        f"{day_text(T0 + timedelta(days=1))}:",
        "- Caroline: early turn",
        f"{day_text(T0 + timedelta(days=5))}:",
        "- Caroline: late turn",
    ]
    assert [i.line for i in context.items] == [line for line in lines if line.startswith("- ")]


def test_turns_of_one_day_share_its_header_and_only_the_first_pays_for_it() -> None:
    morning, evening, next_day = (
        turn(1, "Morning run", day=2),
        turn(2, "Evening swim", day=2),
        turn(3, "Rest", day=3),
    )
    context = assemble(in_order(morning, evening, next_day), 1000, count_tokens)
    day, later = day_text(T0 + timedelta(days=2)), day_text(T0 + timedelta(days=3))
    assert context.text.splitlines() == [
        "Conversation:",
        f"{day}:",
        "- Caroline: Morning run",
        "- Caroline: Evening swim",
        f"{later}:",
        "- Caroline: Rest",
    ]
    # A budget that holds the two turns of one day but not a third turn with its own day header.
    two = sum(count_tokens(line) + 1 for line in context.text.splitlines()[:4])  # each with its newline
    tight = assemble(in_order(morning, next_day, evening), two, count_tokens)
    assert [i.hit.id for i in tight.items] == [morning.id, evening.id]
    assert tight.tokens <= two


def test_a_context_writes_its_days_on_the_calendar_of_the_question() -> None:
    # T0 is 13:56 UTC: at +12:00 the evening turn (day 2, 13:56 UTC) is already the next day
    # there, as is the episode; a fact's own words keep the day it was written with.
    evening, summary = turn(1, "Evening swim", day=2), episode(1, "Caroline swam.", ["int_9"], day=2)
    noted = fact(1, "Caroline swam on 10 May 2023.", [], day=2)
    far_east = timezone(timedelta(hours=12))
    asked = datetime(2023, 5, 12, 9, tzinfo=far_east)  # 11 May 21:00 UTC, 12 May there
    context = assemble(in_order(evening, summary, noted), 1000, count_tokens, Calendar(far_east, asked))
    assert context.text.splitlines() == [
        "Facts:",
        "- Caroline swam on 10 May 2023.",
        "Episodes:",
        "- [11 May 2023] Caroline swam.",
        "Conversation:",
        "11 May 2023 (1 day before):",
        "- Caroline: Evening swim",
    ]
    assert day_header(evening, Calendar(far_east)) == "11 May 2023:"
    assert day_header(evening) == "10 May 2023:"  # UTC by default


def test_an_empty_pool_gives_an_empty_context() -> None:
    context = assemble([], 100, count_tokens)
    assert (context.text, context.tokens, context.items) == ("", 0, [])


def _scored(hit: RecallHit, score: float) -> RecallHit:
    return RecallHit(hit.layer, hit.id, hit.text, score, hit.at, hit.interaction_ids, hit.item)


def test_turns_found_by_both_views_rank_first() -> None:
    a, b, c = _scored(turn(1, "a"), 0.9), _scored(turn(2, "b"), 0.8), _scored(turn(3, "c"), 0.7)
    ranked = rank([a, b, c], [_scored(b, 12.0), _scored(c, 3.0)], [], count_tokens)
    assert [r.hit.id for r in ranked] == [b.id, c.id, a.id]  # two views outrank one


def test_a_fused_hit_keeps_its_cosine_and_one_found_by_words_alone_scores_zero() -> None:
    a, b = _scored(turn(1, "a"), 0.9), _scored(turn(2, "b"), 0.8)
    ranked = rank([a], [_scored(a, 12.0), _scored(b, 3.0)], [], count_tokens)
    # The schema's ContextItem.score is a cosine: a BM25 score (3.0) does not compare with one.
    assert {r.hit.id: r.hit.score for r in ranked} == {a.id: 0.9, b.id: 0.0}


def test_memory_is_placed_where_its_evidence_ranks() -> None:
    turns = [_scored(turn(n, f"turn {n}"), 0.9 - n / 100) for n in range(1, 6)]
    on_third = _scored(fact(1, "A fact about turn 3.", [turns[2].id]), 0.99)
    elsewhere = _scored(fact(2, "A fact on no candidate turn.", ["int_99"]), 0.99)
    one_turn = _scored(episode(1, "Holds one candidate.", [turns[0].id, "int_98"]), 0.99)
    two_turns = _scored(episode(2, "Holds two candidates.", [turns[1].id, turns[3].id]), 0.99)
    ranked = [r.hit.id for r in rank(turns, [], [on_third, elsewhere, one_turn, two_turns], count_tokens)]
    # A fact sits just above its best turn, an episode just above its second best; an item none of
    # whose turns is a candidate, or an episode standing for one only, is left out.
    assert ranked == ["int_1", "int_2", "fct_1", "int_3", "epi_2", "int_4", "int_5"]


def test_a_fact_stands_in_for_the_turns_it_rests_on() -> None:
    said = turn(1, "I went to a LGBTQ support group yesterday and it was so powerful")
    restated = fact(1, "Caroline went to a LGBTQ support group on 7 May 2023.", [said.id])
    context = assemble(in_order(restated, said, turn(2, "Pottery")), 1000, count_tokens)
    assert [i.hit.id for i in context.items] == [restated.id, "int_2"]
    # And a fact whose every turn is in already adds nothing.
    again = assemble(in_order(said, restated), 1000, count_tokens)
    assert [i.hit.id for i in again.items] == [said.id]


def test_a_turns_facts_stand_in_for_it_only_together() -> None:
    said = turn(1, "The race was thought-provoking. I'm starting to realize that self-care is important.")
    first = fact(1, "Melanie said the race was thought-provoking.", [said.id])
    wordy = "Melanie is starting to realize, slowly and over many weeks, that self-care is important. "
    second = fact(2, wordy * 3, [said.id])
    # The turn's second fact does not fit: the turn stays, or the answer ("self-care") would be lost.
    shown = ["Facts:", f"- {first.text}", "Conversation:", str(day_header(said)), render(said)]
    room = sum(count_tokens(line) + 1 for line in shown)  # each line with its newline
    alone = assemble(in_order(first, said, second), room, count_tokens)
    assert [i.hit.id for i in alone.items] == [first.id, said.id]
    assert "self-care" in alone.text
    # Both fit: together they stand in for the turn, which is left out.
    both = assemble(in_order(first, second, said), 1000, count_tokens)
    assert [i.hit.id for i in both.items] == [first.id, second.id]
    # Once the turn is in, a fact of it adds nothing.
    late = assemble(in_order(first, said, second), 1000, count_tokens)
    assert [i.hit.id for i in late.items] == [first.id, said.id]


def test_a_fact_resting_on_two_turns_stands_in_for_the_one_it_completes() -> None:
    said, other = turn(1, "I ran a charity race. Self-care matters to me."), turn(2, "The race was fun")
    both_turns = fact(1, "Melanie ran a charity race and it was fun.", [said.id, other.id])
    only_said = fact(2, "Melanie finds self-care important.", [said.id])
    context = assemble(in_order(both_turns, said, other, only_said), 1000, count_tokens)
    # `other` has no fact but `both_turns`, so it is left out; `said` has another fact still to come,
    # so it comes in, and that fact, whose only turn is then in, adds nothing.
    assert [i.hit.id for i in context.items] == [both_turns.id, said.id]
    assert context.interaction_ids == {said.id, other.id}


def test_a_long_summary_needs_as_many_ranked_turns_as_it_costs() -> None:
    turns = [
        _scored(turn(n, f"turn number {n} about the weekend trip to the lake"), 0.9 - n / 100)
        for n in range(1, 7)
    ]
    short = _scored(episode(1, "Short.", [t.id for t in turns[:4]]), 0.99)
    long = _scored(episode(2, "A long summary " * 8, [t.id for t in turns[2:]]), 0.99)
    ranked = [r.hit.id for r in rank(turns, [], [short, long], count_tokens)]
    # `short` costs less than a turn: it sits at its second-best turn. `long` (33 tokens) costs
    # between two and three of its turns (14 each): it sits at its third best.
    assert (count_tokens(render(long)), count_tokens(render(turns[2]))) == (33, 14)
    assert ranked.index("epi_1") == ranked.index("int_2") - 1
    assert ranked.index("epi_2") == ranked.index("int_5") - 1


# -- the embedding template ------------------------------------------------------------------------


def test_template_renders_speaker_and_day() -> None:
    rendered = EmbeddingTemplate().render("I loved it!", "Caroline", T0)
    assert rendered == "On 8 May 2023, Caroline said: I loved it!"
    assert EmbeddingTemplate("{time} | {text}").render("x", "y", T0) == "8 May 2023, 13:56 UTC | x"


@pytest.mark.parametrize("pattern", ["{speaker}", "{text} {mood}", "{text", "{text.upper}"])
def test_bad_templates_are_refused(pattern: str) -> None:
    with pytest.raises(TemplateError):
        EmbeddingTemplate(pattern)


async def test_interactions_are_embedded_through_the_template(db: Database, owner: Owner) -> None:
    embedder = HashingEmbedder(DIMENSION)
    engine = MemoryEngine(
        db, embedder, OfflineConsolidator(), engine_settings(embedding_template=DEFAULT_TEMPLATE)
    )
    unit = Unit(text="I loved it!", speaker="Caroline", occurred_at=T0)
    stored = await engine.remember(owner, unit, consolidate=False)
    rows = await InteractionStore(db, DIMENSION).pending(owner, 10)
    assert [r[0].id for r in rows] == [stored.interaction_id]
    expected = embedder.embed_sync(["On 8 May 2023, Caroline said: I loved it!"])[0]
    assert np.allclose(rows[0][1], expected, atol=1e-6)
    assert rows[0][0].text == "I loved it!"  # stored as sent


# -- recall with a token budget, end to end --------------------------------------------------------


async def test_recall_with_tokens_assembles_a_context_within_budget(db: Database, owner: Owner) -> None:
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    texts = [f"We talked about the violin lesson number {n} on thursday" for n in range(8)]
    for n, text in enumerate(texts):
        await engine.remember(owner, Unit(text=text, speaker="Alice", occurred_at=T0 + timedelta(hours=n)))
    found = await engine.recall(owner, "violin lesson", tokens=80)
    assert found.context is not None
    assert 0 < found.context.tokens <= 80
    ids = [i.hit.id for i in found.context.items]
    assert len(ids) == len(set(ids))
    spent = [
        i
        for item in found.context.items
        for i in item.hit.interaction_ids
        if item.hit.layer == "subconscious"
    ]
    held = {
        i for item in found.context.items if item.hit.layer == "episodic" for i in item.hit.interaction_ids
    }
    assert not set(spent) & held  # no interaction twice
    # Without a token budget there is no context; the per-layer lists stay.
    plain = await engine.recall(owner, "violin lesson")
    assert plain.context is None


@pytest.mark.parametrize("tokens", [0, -5, 200_001])
async def test_a_bad_token_budget_is_refused(db: Database, owner: Owner, tokens: int) -> None:
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    with pytest.raises(InvalidInput):
        await engine.recall(owner, "anything", tokens=tokens)


# -- exact per-user dense search -------------------------------------------------------------------


def _vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    raw = rng.standard_normal((n, DIMENSION)).astype(np.float32)
    unit: np.ndarray = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    return unit


async def _load(db: Database, owner: Owner, vectors: np.ndarray) -> list[str]:
    items = [
        NewInteraction(speaker="u", text=f"t{i}", occurred_at=T0 + timedelta(minutes=i), embedding=v)
        for i, v in enumerate(vectors)
    ]
    return [s.id for s in await InteractionStore(db, DIMENSION).write_batch(owner, items)]


async def _dense_ids(db: Database, owner: Owner, query: np.ndarray, k: int) -> list[str]:
    found = await RecallSearch(db, DIMENSION).candidates(
        owner, query.tolist(), None, interactions=k, episodes=0, facts=0, include_consolidated=True
    )
    return [h.item.id for h in found.interactions.dense]


async def test_dense_hits_of_a_small_user_are_the_exact_top_k_and_ignore_other_tenants(
    db: Database, owner: Owner
) -> None:
    rng = np.random.default_rng(11)
    mine = _vectors(rng, 300)
    ids = await _load(db, owner, mine)
    queries = _vectors(rng, 5)
    before = [await _dense_ids(db, owner, q, 20) for q in queries]
    for q, got in zip(queries, before, strict=True):
        exact = [ids[i] for i in np.argsort(-(mine @ q))[:20]]
        assert got == exact
    # Five other tenants store near copies of the same user's data: nothing of ours may move.
    for _ in range(5):
        other = Owner(f"t-{uuid.uuid4().hex[:12]}", owner.user_id)
        await _load(db, other, mine + 0.01 * _vectors(rng, len(mine)))
    after = [await _dense_ids(db, owner, q, 20) for q in queries]
    assert after == before
