"""A context dates a turn's relative words on the calendar its speaker said them in
(docs/design/context-assembly.md): the turn's own offset, when it was sent with one other than
UTC's; a UTC turn (and every turn stored before offsets were kept) on the question's calendar, as
before. Day headers stay on the question's calendar. UTC turns render byte for byte as at c9a5bbb."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from consolidation.consolidating.offline.answers import without_withdrawn
from consolidation.consolidating.prompts import answer
from consolidation.consolidating.prompts.answer import AnswerInput, EvidenceItem, WithdrawnBelief
from consolidation.recall.answering import _evidence
from consolidation.types import RecallHit
from graph.models import Hit, Interaction, Owner
from tests.support.recall_search import CannedSearch, canned_recall

OWNER = Owner("t", "bob")
SAID = [
    (datetime(2026, 12, 4, 20, 30, tzinfo=UTC), "I went to the dentist yesterday."),
    (
        datetime(2026, 12, 4, 23, 59, 59, tzinfo=UTC),
        "Tomorrow I start a new job, last week I quit the old one.",
    ),
    (
        datetime(2026, 12, 5, 0, 0, tzinfo=UTC),
        "Three days ago I adopted a cat. Next Friday she sees the vet.",
    ),
    (datetime(2026, 11, 30, 9, 0, tzinfo=UTC), "This morning I ran 5 km, and this month I ran every day."),
]
PLUS_5 = timezone(timedelta(hours=5))
MINUS_8 = timezone(timedelta(hours=-8))
ASKED = {
    "none": None,
    "utc": datetime(2026, 12, 6, 9, tzinfo=UTC),
    "+05:00": datetime(2026, 12, 6, 1, 30, tzinfo=PLUS_5),
    "-08:00": datetime(2026, 12, 5, 10, tzinfo=MINUS_8),
}
RAN = "- bob: This morning (30 November 2026) I ran 5 km, and this month (November 2026) I ran every day."
# What c9a5bbb wrote for the UTC turns, asked with each offset.
UTC_CONTEXTS = {
    "none": (
        "Conversation:\n30 November 2026:\n" + RAN + "\n4 December 2026:\n"
        "- bob: I went to the dentist yesterday (3 December 2026).\n"
        "- bob: Tomorrow (5 December 2026) I start a new job, last week (the week of 23 November 2026) "
        "I quit the old one.\n5 December 2026:\n"
        "- bob: Three days ago (2 December 2026) I adopted a cat. Next Friday (11 December 2026) she sees the vet."
    ),
    "+05:00": (
        "Conversation:\n30 November 2026:\n" + RAN + "\n5 December 2026:\n"
        "- bob: I went to the dentist yesterday (4 December 2026).\n"
        "- bob: Tomorrow (6 December 2026) I start a new job, last week (the week of 23 November 2026) "
        "I quit the old one.\n"
        "- bob: Three days ago (2 December 2026) I adopted a cat. Next Friday (11 December 2026) she sees the vet."
    ),
    "-08:00": (
        "Conversation:\n30 November 2026:\n" + RAN + "\n4 December 2026:\n"
        "- bob: I went to the dentist yesterday (3 December 2026).\n"
        "- bob: Tomorrow (5 December 2026) I start a new job, last week (the week of 23 November 2026) "
        "I quit the old one.\n"
        "- bob: Three days ago (1 December 2026) I adopted a cat. Next Friday (11 December 2026) she sees the vet."
    ),
}
UTC_CONTEXTS["utc"] = UTC_CONTEXTS["none"]


def _turns(offsets: dict[int, int] | None = None) -> list[Interaction]:
    turns = [
        Interaction(f"int_{n}", "t", "bob", None, "bob", text, at, n, False, None)
        for n, (at, text) in enumerate(SAID, 1)
    ]
    return [replace(t, utc_offset_s=(offsets or {}).get(t.seq, 0)) for t in turns]


async def _context(turns: list[Interaction], asked_at: datetime | None) -> str:
    hits = [Hit(t, 0.9 - t.seq / 10) for t in turns]
    recall = await canned_recall(CannedSearch(turns=hits), OWNER, "What did Bob do?", asked_at=asked_at)
    assert recall.context is not None
    return recall.context.text


@pytest.mark.parametrize("asked", sorted(ASKED))
async def test_utc_turns_render_as_before(asked: str) -> None:
    assert await _context(_turns(), ASKED[asked]) == UTC_CONTEXTS[asked]


@pytest.mark.parametrize(
    ("asked", "header"),
    [("none", "4 December 2026"), ("+05:00", "5 December 2026"), ("-08:00", "4 December 2026")],
)
async def test_a_turns_yesterday_is_on_its_speakers_calendar(asked: str, header: str) -> None:
    # The dentist turn was said at 01:30 on 5 December in +05:00 (20:30 UTC on the 4th): its
    # "yesterday" is the 4th whoever asks; its header is the asker's day.
    context = await _context(_turns({1: 5 * 3600}), ASKED[asked])
    assert f"{header}:\n- bob: I went to the dentist yesterday (4 December 2026)." in context
    # The others, in UTC, read as they did.
    assert context.replace("yesterday (4 December 2026)", "yesterday (X)") == UTC_CONTEXTS[asked].replace(
        "yesterday (3 December 2026)", "yesterday (X)"
    ).replace("yesterday (4 December 2026)", "yesterday (X)")


async def test_a_turn_west_of_utc_reads_its_words_on_its_own_day() -> None:
    # 23:59:59 UTC on the 4th is 15:59:59 on the 4th at -08:00; 00:00 UTC on the 5th is 16:00 on
    # the 4th there, so "three days ago" is 1 December, "tomorrow" still the 5th.
    context = await _context(_turns({2: -8 * 3600, 3: -8 * 3600}), ASKED["+05:00"])
    assert "- bob: Tomorrow (5 December 2026) I start a new job" in context
    assert "- bob: Three days ago (1 December 2026) I adopted a cat." in context


def test_the_answer_prompt_shows_a_turn_in_the_offset_it_was_said_in() -> None:
    said = datetime(2026, 12, 5, 1, 30, tzinfo=PLUS_5)
    inp = AnswerInput(
        question="When did Bob see the dentist?",
        asked_at=ASKED["-08:00"],
        facts=[EvidenceItem(id="f1", text="Bob lives in Karachi.", at=datetime(2026, 12, 1, 9, tzinfo=UTC))],
        interactions=[
            EvidenceItem(id="i1", text="I went to the dentist yesterday.", at=said, speaker="bob"),
            EvidenceItem(
                id="i2", text="I adopted a cat.", at=datetime(2026, 12, 5, 0, tzinfo=UTC), speaker="bob"
            ),
        ],
    )
    user = answer.messages(inp)[1]["content"]
    data = json.loads(user.split("<memory_data>\n", 1)[1].split("\n</memory_data>", 1)[0])
    # The +05:00 turn as said; the UTC turn and the fact in the asker's offset, as before.
    assert [(i["id"], i["at"]) for i in [*data["facts"], *data["interactions"]]] == [
        ("f1", "2026-12-01T01:00:00-08:00"),
        ("i1", "2026-12-05T01:30:00+05:00"),
        ("i2", "2026-12-04T16:00:00-08:00"),
    ]


def test_a_withdrawn_belief_is_read_in_a_turn_on_its_speakers_calendar() -> None:
    # The offline answerer renders a turn's sentence as a fact would state it, dated on the
    # turn's own calendar, before it compares it with a withdrawn belief.
    belief = WithdrawnBelief(
        text="Bob had Bob's dentist appointment on 4 December 2026.", kind="event", change="retracted"
    )
    text = "I had my dentist appointment yesterday."
    said = EvidenceItem(id="i1", text=text, at=datetime(2026, 12, 5, 1, 30, tzinfo=PLUS_5), speaker="bob")
    assert without_withdrawn([said], [belief]) == []
    # The same instant said in UTC was the day before: another appointment.
    in_utc = said.model_copy(update={"at": datetime(2026, 12, 4, 20, 30, tzinfo=UTC)})
    assert without_withdrawn([in_utc], [belief]) == [in_utc]


async def test_the_answerer_gives_a_turn_at_its_time_as_said() -> None:
    turn = _turns({1: 5 * 3600})[0]
    hit = RecallHit("subconscious", turn.id, turn.text, 0.9, turn.occurred_at, [turn.id], turn)
    evidence = _evidence([hit])
    assert evidence[0].at is not None and evidence[0].at.isoformat() == "2026-12-05T01:30:00+05:00"
