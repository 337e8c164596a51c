"""What earns a line, on a real Neo4j: a speaker's name in the question scopes the ranking to
that speaker's own turns instead of matching words, pleasantries match nothing, and an
aggregation question gathers turns across sessions (docs/design/context-assembly.md#names)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Recall, Unit
from graph.database import Database
from graph.models import Interaction, Owner
from graph.recall import LexicalQuery, RecallSearch
from tests.support.engines import DIMENSION, engine_settings

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


async def _engine(db: Database, owner: Owner, said: list[tuple[str, str, str | None]]) -> MemoryEngine:
    """An engine over `owner`'s turns (speaker, text, session), one minute apart."""
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    for n, (speaker, text, session) in enumerate(said):
        unit = Unit(text=text, speaker=speaker, occurred_at=T0 + timedelta(minutes=n), session_id=session)
        await engine.remember(owner, unit, consolidate=False)
    return engine


def _turns(found: Recall) -> list[str]:
    return [h.text for h in found.subconscious]


async def test_a_turn_matching_only_by_the_name_ranks_below_a_content_match(
    db: Database, owner: Owner
) -> None:
    engine = await _engine(
        db,
        owner,
        [
            ("Melanie", "Caroline! Thanks, Caroline, bye Caroline!", None),
            ("Caroline", "I paint sunsets by the lake.", None),
            ("Caroline", "My week was busy with work.", None),
            ("Melanie", "The kids went camping with us.", None),
        ],
    )
    found = await engine.recall(owner, "What does Caroline paint?")
    turns = _turns(found)
    assert turns.index("I paint sunsets by the lake.") < turns.index(
        "Caroline! Thanks, Caroline, bye Caroline!"
    )


async def test_a_pleasantry_in_the_question_matches_nothing(db: Database, owner: Owner) -> None:
    engine = await _engine(
        db,
        owner,
        [
            ("Sam", "Thanks thanks, hello!", None),
            ("Sam", "I cook pasta on Fridays.", None),
            ("Sam", "The weather was grey all week.", None),
        ],
    )
    found = await engine.recall(owner, "Thanks! Hello! What pasta?")
    turns = _turns(found)
    assert turns[0] == "I cook pasta on Fridays."
    # A turn the question matches only by its pleasantries is no lexical hit at all.
    pleasantry = next(h for h in found.subconscious if h.text == "Thanks thanks, hello!")
    assert pleasantry.rank_score < found.subconscious[0].rank_score


async def test_the_named_speakers_own_statements_come_first(db: Database, owner: Owner) -> None:
    said: list[tuple[str, str, str | None]] = [
        ("Melanie", "I like to paint, paint and paint lakes.", None),
        ("Caroline", "I like to paint sunsets.", None),
        ("Melanie", "Work is busy this month.", None),
    ]
    engine = await _engine(db, owner, said)
    found = await engine.recall(owner, "What does Caroline like to paint?", tokens=200)
    assert _turns(found)[0] == "I like to paint sunsets."
    assert found.context is not None
    items = sorted(found.context.items, key=lambda c: c.rank_score, reverse=True)
    assert items[0].hit.text == "I like to paint sunsets."
    # The other speaker, named instead, scopes the other way.
    other = await engine.recall(owner, "What does Melanie like to paint?")
    assert _turns(other)[0] == "I like to paint, paint and paint lakes."


async def test_speakers_are_the_users_own(db: Database, owner: Owner) -> None:
    elsewhere = Owner(owner.tenant + "-other", owner.user_id)
    await _engine(db, elsewhere, [("Caroline", "I paint sunsets.", None)])
    await _engine(db, owner, [("Sam", "Caroline paints portraits.", None), ("Alex", "I paint fences.", None)])
    search = RecallSearch(db, DIMENSION)
    asked = ["Caroline", "Sam", "Alex", "Nobody"]
    assert await search.speakers(owner, asked) == ["Alex", "Sam"]
    assert await search.speakers(elsewhere, asked) == ["Caroline"]
    assert await search.speakers(owner, []) == []
    # The lexical statement's own lookup (one round trip with the candidates) finds the same.
    for who, speakers in ((owner, ["Alex", "Sam"]), (elsewhere, ["Caroline"])):
        found = await search.candidates(
            who,
            [1.0] + [0.0] * (DIMENSION - 1),
            LexicalQuery(["paint"], asked),
            interactions=5,
            episodes=0,
            facts=0,
            include_consolidated=True,
        )
        assert found.speakers == speakers


async def test_an_aggregation_gathers_turns_across_sessions(db: Database, owner: Owner) -> None:
    # One session repeats one activity in many close wordings; four others name one each.
    said: list[tuple[str, str, str | None]] = [
        ("Sam", f"Activities I enjoy: hiking activities, weekend {n}.", "s1") for n in range(8)
    ]
    others = ["pottery", "swimming", "chess", "gardening"]
    said += [("Sam", f"One more thing I enjoy is {a}.", f"s{i + 2}") for i, a in enumerate(others)]
    engine = await _engine(db, owner, said)
    found = await engine.recall(owner, "What activities does Sam enjoy?", tokens=120)
    assert found.context is not None
    turns = [c.hit.item for c in found.context.items]
    sessions = {turn.session_id for turn in turns if isinstance(turn, Interaction)}
    assert len(sessions) >= 4, found.context.text


async def test_facts_about_the_named_speaker_come_first(db: Database, owner: Owner) -> None:
    # Every turn consolidated at once (the bench's eager mode): facts name whom they are about.
    engine = MemoryEngine(
        db,
        HashingEmbedder(DIMENSION),
        OfflineConsolidator(),
        # model_copy, as the bench's eager mode: the settings refuse theta_count 1 on purpose.
        engine_settings().model_copy(update={"theta_count": 1, "theta_sim": 1.0, "gate_top_k": 1}),
    )
    said = [
        ("Melanie", "I paint lakes, I paint rivers and I paint the paint shop's painted boats."),
        ("Caroline", "I paint sunsets on my balcony."),
        ("Melanie", "My kids started swimming lessons at the pool."),
    ]
    for n, (speaker, text) in enumerate(said):
        unit = Unit(text=text, speaker=speaker, occurred_at=T0 + timedelta(minutes=n))
        await engine.remember(owner, unit)
    found = await engine.recall(owner, "What does Caroline paint?")
    assert found.semantic and found.episodic, found
    assert "Caroline" in found.semantic[0].text, [h.text for h in found.semantic]
    melanie = await engine.recall(owner, "What does Melanie paint?")
    assert "Melanie" in melanie.semantic[0].text, [h.text for h in melanie.semantic]
