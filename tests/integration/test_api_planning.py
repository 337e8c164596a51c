"""The planner through GraphQL: a question asked with an offset reads its relative dates in the
asker's calendar, so the window holds the turns said that local day, on both sides of its
midnights, and not those of the UTC day."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from tests.support.api import REMEMBER_BATCH, Caller

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
