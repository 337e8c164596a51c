"""A fact that holds only from after the question's instant (a plan, a conversation dated ahead)
is marked in the context with the day it holds from; every other line renders as before
(docs/design/context-assembly.md#facts-not-yet-in-force)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from consolidation.recall.context import Calendar, render
from consolidation.types import RecallHit
from graph.models import Fact, Hit, Owner
from tests.support.recall_search import CannedSearch, canned_recall

OWNER = Owner("t", "alice")
ASKED = datetime(2026, 12, 7, 12, tzinfo=UTC)
PAST = Fact(
    "fact_past",
    "t",
    "alice",
    "Alice lives in Paris.",
    "attribute",
    "active",
    ASKED - timedelta(days=400),
    None,
    ASKED,
)
LATER = Fact(
    "fact_later",
    "t",
    "alice",
    "Alice will live in Lyon.",
    "plan",
    "active",
    datetime(2027, 6, 30, 9, tzinfo=UTC),
    None,
    ASKED,
)


def _hit(fact: Fact) -> RecallHit:
    return RecallHit("semantic", fact.id, fact.text, 0.9, fact.valid_from, [], fact)


def test_a_fact_from_after_the_question_says_from_when() -> None:
    assert render(_hit(LATER), Calendar(now=ASKED)) == "- (from 30 June 2027) Alice will live in Lyon."
    # On the question's calendar: 23:30 on the 29th in UTC is the 30th at +05:00.
    late = Fact(**{**LATER.__dict__, "valid_from": datetime(2027, 6, 29, 23, 30, tzinfo=UTC)})
    plus_5 = timezone(timedelta(hours=5))
    assert render(_hit(late), Calendar(plus_5, now=ASKED)).startswith("- (from 30 June 2027) ")


def test_the_day_is_the_questions() -> None:
    """Only a later day is marked, on the question's calendar: a fact from later the same day
    holds from the question's day already."""
    tonight = Fact(**{**LATER.__dict__, "valid_from": ASKED + timedelta(hours=11)})
    assert render(_hit(tonight), Calendar(now=ASKED)) == "- Alice will live in Lyon."
    # 01:00 UTC on the 8th is 17:00 on the 7th at -08:00: the question's day there.
    early = Fact(**{**LATER.__dict__, "valid_from": ASKED + timedelta(hours=13)})
    assert render(_hit(early), Calendar(now=ASKED)) == "- (from 8 December 2026) Alice will live in Lyon."
    minus_8 = timezone(timedelta(hours=-8))
    assert render(_hit(early), Calendar(minus_8, now=ASKED)) == "- Alice will live in Lyon."


@pytest.mark.parametrize("now", [None, ASKED, LATER.valid_from, LATER.valid_from + timedelta(days=1)])
def test_a_fact_in_force_at_the_question_renders_as_before(now: datetime | None) -> None:
    assert render(_hit(PAST), Calendar(now=now)) == "- Alice lives in Paris."
    if now is None or now >= LATER.valid_from:
        assert render(_hit(LATER), Calendar(now=now)) == "- Alice will live in Lyon."


async def _context(facts: list[Fact], asked_at: datetime | None) -> str:
    # A person's facts, on no turn.
    hits = [Hit(f, 0.9 - n / 10) for n, f in enumerate(facts)]
    recall = await canned_recall(CannedSearch(facts=hits), OWNER, "Where does Alice live?", asked_at=asked_at)
    assert recall.context is not None
    return recall.context.text


@pytest.mark.parametrize("asked_at", [ASKED, None])
async def test_the_context_marks_a_fact_not_yet_in_force_at_the_question(asked_at: datetime | None) -> None:
    # Asked on 7 December 2026, or now (without askedAt): the plan holds only from June 2027.
    context = await _context([PAST, LATER], asked_at)
    assert context == "Facts:\n- Alice lives in Paris.\n- (from 30 June 2027) Alice will live in Lyon."


async def test_a_context_of_facts_in_force_reads_as_before() -> None:
    # What c9a5bbb wrote: asked after the plan's day, nothing is marked.
    expected = "Facts:\n- Alice lives in Paris.\n- Alice will live in Lyon."
    assert await _context([PAST, LATER], LATER.valid_from) == expected
    assert await _context([PAST, LATER], datetime(2030, 1, 1, tzinfo=UTC)) == expected
