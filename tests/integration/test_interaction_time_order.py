"""`User.interactions(order: TIME)`: by when things were said (occurredAt, then seq), paged both
ways without loss or repeat; the default stays the stream order (seq)."""

from __future__ import annotations

from typing import Any

from tests.support.api import Caller

# Written in this order: a later session first, one far in the future, then an early one, and two
# turns said at the same instant (their seq decides).
WRITTEN = [
    ("2024-05-07T10:00:00Z", "s2", "may, first"),
    ("2026-12-03T08:00:00Z", "s3", "december 2026"),
    ("2024-03-01T09:00:00Z", "s1", "march"),
    ("2024-05-07T10:00:00Z", "s2", "may, same instant"),
    ("2024-05-07T09:59:59.5Z", "s2", "may, half a second before"),
]
EXPECTED = ["march", "may, half a second before", "may, first", "may, same instant", "december 2026"]

REMEMBER = """
mutation($user: ID!, $units: [UnitInput!]!) { rememberBatch(userId: $user, units: $units, consolidate: false) { seq } }"""
PAGE = """
query($user: ID!, $order: InteractionOrder!, $first: Int, $after: String, $last: Int, $before: String) {
  user(id: $user) {
    interactions(order: $order, first: $first, after: $after, last: $last, before: $before) {
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      nodes { text seq occurredAt }
    }
  }
}"""


async def write(caller: Caller) -> None:
    for at, session, text in WRITTEN:  # one request each: seq follows this order
        units = [{"text": text, "speaker": "alice", "occurredAt": at, "sessionId": session}]
        await caller.gql(REMEMBER, {"user": "alice", "units": units})


async def page(caller: Caller, **variables: Any) -> dict[str, Any]:
    data = await caller.gql(PAGE, {"user": "alice", **variables})
    connection: dict[str, Any] = data["user"]["interactions"]
    return connection


async def test_time_order_pages_forward_and_backward(caller: Caller) -> None:
    await write(caller)
    seen: list[str] = []
    after = None
    while True:
        got = await page(caller, order="TIME", first=2, after=after)
        seen += [n["text"] for n in got["nodes"]]
        if not got["pageInfo"]["hasNextPage"]:
            break
        after = got["pageInfo"]["endCursor"]
    assert seen == EXPECTED
    back: list[str] = []
    before = None
    while True:
        got = await page(caller, order="TIME", last=2, before=before)
        back = [n["text"] for n in got["nodes"]] + back
        if not got["pageInfo"]["hasPreviousPage"]:
            break
        before = got["pageInfo"]["startCursor"]
    assert back == EXPECTED


async def test_the_default_is_still_the_stream_order(caller: Caller) -> None:
    await write(caller)
    got = await page(caller, order="STREAM", first=10)
    assert [n["text"] for n in got["nodes"]] == [text for _, _, text in WRITTEN]
    assert [n["seq"] for n in got["nodes"]] == sorted(n["seq"] for n in got["nodes"])


async def test_turns_said_before_1677_or_after_2262_page_by_time(caller: Caller) -> None:
    """Epoch nanoseconds overflow a 64-bit integer outside 1677..2262; the order must not use them."""
    written = [
        ("1650-06-01T00:00:00Z", "old"),
        ("9999-12-31T23:59:59.999999Z", "last"),
        ("0001-01-01T00:00:00Z", "first"),
    ]
    for at, text in written:
        units = [{"text": text, "speaker": "alice", "occurredAt": at}]
        await caller.gql(REMEMBER, {"user": "alice", "units": units})
    seen: list[str] = []
    after = None
    for _ in range(len(written)):  # bounded: a cursor that does not advance fails, not hangs
        got = await page(caller, order="TIME", first=1, after=after)
        seen += [n["text"] for n in got["nodes"]]
        if not got["pageInfo"]["hasNextPage"]:
            break
        after = got["pageInfo"]["endCursor"]
    assert seen == ["first", "old", "last"]
    got = await page(caller, order="TIME", last=2, before=got["pageInfo"]["endCursor"])
    assert [n["text"] for n in got["nodes"]] == ["first", "old"]
