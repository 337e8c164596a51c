"""The planner through GraphQL: a question asked with an offset reads its relative dates in the
asker's calendar, so the window holds the turns said that local day, on both sides of its
midnights, and not those of the UTC day; the context writes its days on that calendar too."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from tests.support.api import REMEMBER_BATCH, Caller, app_client, new_caller
from tests.support.engines import DIMENSION, engine_settings

RECALL = """
query($user: ID!, $q: String!, $askedAt: DateTime!) {
  recall(userId: $user, query: $q, askedAt: $askedAt, includeConsolidated: true,
         budget: { subconscious: 4, episodic: 0, semantic: 0 }) {
    subconscious { rankScore interaction { text } }
    plan { askedAt window { start end text } }
  }
}"""
QUESTION = "Who did I go climbing with yesterday?"
# Per offset: four turns around the local day before the question (the last hour of the day
# before it, its first hour, its last hour, the first hour after it), and the question.
CASES = {
    "+05:00": (
        ["2026-12-04T23:30:00+05:00", "2026-12-05T00:30:00+05:00", "2026-12-05T23:30:00+05:00", "2026-12-06T00:30:00+05:00"],
        "2026-12-06T01:30:00+05:00",
        ("2026-12-04T19:00:00Z", "2026-12-05T19:00:00Z"),
    ),
    "-08:00": (
        ["2026-12-03T23:30:00-08:00", "2026-12-04T00:30:00-08:00", "2026-12-04T23:30:00-08:00", "2026-12-05T00:30:00-08:00"],
        "2026-12-05T20:00:00-08:00",
        ("2026-12-04T08:00:00Z", "2026-12-05T08:00:00Z"),
    ),
}  # fmt: skip
FRIENDS = ["Ann", "Bob", "Cat", "Dan"]


async def _told(caller: Caller, user: str, times: list[str]) -> None:
    units: list[dict[str, Any]] = [
        {"text": f"I went climbing with {friend}.", "speaker": "alice", "occurredAt": at}
        for friend, at in zip(FRIENDS, times, strict=True)
    ]
    await caller.gql(REMEMBER_BATCH, {"user": user, "units": units})


@pytest.mark.parametrize("offset", sorted(CASES))
async def test_yesterday_is_the_asker_local_day(caller: Caller, offset: str) -> None:
    times, asked, (start, end) = CASES[offset]
    user = f"climber{offset[0]}"
    await _told(caller, user, times)
    recall = (await caller.gql(RECALL, {"user": user, "q": QUESTION, "askedAt": asked}))["recall"]
    plan = recall["plan"]
    assert plan["window"] == {"start": start, "end": end, "text": "yesterday"}
    # The question's time comes back as every DateTime does, in UTC.
    assert datetime.fromisoformat(plan["askedAt"]) == datetime.fromisoformat(asked)
    assert plan["askedAt"].endswith("Z")
    # The window lifts the two turns said that local day (Bob's just after its midnight, Cat's
    # just before the next) above those said an hour outside it.
    ranked = [hit["interaction"]["text"] for hit in recall["subconscious"]]
    assert sorted(ranked[:2]) == ["I went climbing with Bob.", "I went climbing with Cat."], ranked


CONTEXT = """query($user: ID!, $q: String!, $askedAt: DateTime!) {
  recall(userId: $user, query: $q, askedAt: $askedAt, budget: { tokens: 400 }) { context { text } } }"""
SAID = [
    "I went climbing with Ann.",
    "Yesterday I hurt my hand, so I went climbing with Bob.",
    "I went climbing with Cat.",
    "I went climbing with Dan.",
]
# Per offset: the asker's days of the four turns (the day before yesterday, yesterday, today),
# and the day before Bob's, which his "yesterday" names.
DAYS = {
    "+05:00": ("4 December 2026", "5 December 2026", "6 December 2026", "4 December 2026"),
    "-08:00": ("3 December 2026", "4 December 2026", "5 December 2026", "3 December 2026"),
}


@pytest.mark.parametrize("offset", sorted(CASES))
async def test_a_context_writes_its_days_on_the_askers_calendar(db: Database, offset: str) -> None:
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    times, asked, _ = CASES[offset]
    before, yesterday, today, bobs = DAYS[offset]
    async with app_client(db, engine) as http:
        caller = await new_caller(db, http)
        owner = Owner(caller.tenant, "alice")
        for text, at in zip(SAID, times, strict=True):
            unit = Unit(text=text, speaker="alice", occurred_at=datetime.fromisoformat(at))
            await engine.remember(owner, unit, consolidate=False)  # turns, with no fact to stand in

        async def context(question: str) -> list[str]:
            variables = {"user": "alice", "q": question, "askedAt": asked}
            return list((await caller.gql(CONTEXT, variables))["recall"]["context"]["text"].splitlines())

        turns = [
            "- alice: I went climbing with Ann.",
            f"- alice: Yesterday ({bobs}) I hurt my hand, so I went climbing with Bob.",
            "- alice: I went climbing with Cat.",
            "- alice: I went climbing with Dan.",
        ]
        # Each turn under its day in the asker's calendar, the distance counted in it too: Bob's
        # and Cat's are yesterday's, an hour after and before its midnights.
        assert await context(QUESTION) == [
            "Conversation:",
            f"{before} (2 days before):", turns[0],
            f"{yesterday} (1 day before):", turns[1], turns[2],
            f"{today} (the same day):", turns[3],
        ]  # fmt: skip
        # A question about no time has the same days, without the distances.
        assert await context("Who did I go climbing with?") == [
            "Conversation:", f"{before}:", turns[0], f"{yesterday}:", turns[1], turns[2], f"{today}:", turns[3]
        ]  # fmt: skip


async def test_a_turn_whose_day_in_the_askers_offset_is_off_the_calendar_keeps_its_utc_day(
    caller: Caller,
) -> None:
    # At +05:00 the last hour of 9999 is already the year 10000, and the first of year 1 at -08:00
    # still year 0: neither has a day there, so those turns keep their UTC day.
    edges = {
        "+05:00": ("9999-12-31T23:00:00Z", "31 December 9999"),
        "-08:00": ("0001-01-01T01:00:00Z", "1 January 1"),
    }
    for offset, (said, day) in edges.items():
        user = f"edge{offset[0]}"
        await caller.gql(
            REMEMBER_BATCH,
            {"user": user, "units": [{"text": "I went climbing.", "speaker": "alice", "occurredAt": said}]},
        )
        asked = ("9999-12-31T20:00:00" if offset[0] == "+" else "0001-01-01T00:00:00") + offset
        for question in ("What did I do yesterday?", "Where did I go climbing?"):
            variables = {"user": user, "q": question, "askedAt": asked}
            text = (await caller.gql(CONTEXT, variables))["recall"]["context"]["text"]
            assert any(line.startswith(day) for line in text.splitlines()), text
