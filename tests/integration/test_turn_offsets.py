"""A turn keeps the UTC offset it was said in (docs/design/graph-model.md#interaction-times): stored
in UTC, as every time is, beside its offset in seconds, which GraphQL gives back in occurredAt and
export and import carry. Time order and time bounds stay on the instant; a turn stored without
the offset reads as UTC."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.applications import Starlette

from api.services import Services
from consolidation.portability import parse
from graph.database import Database
from graph.errors import InvalidInput
from graph.models import Owner
from tests.support.api import Caller

REMEMBER = """mutation($user: ID!, $units: [UnitInput!]!) {
  rememberBatch(userId: $user, units: $units, consolidate: false) { interaction { text occurredAt } }
}"""
LISTED = """query($user: ID!, $since: DateTime) {
  user(id: $user) { interactions(order: TIME, since: $since) { nodes { text occurredAt } } }
}"""
# Said in three offsets within 45 minutes of one another: 20:00, 20:30 and 20:45 UTC on 4 December.
SAID = [
    ("First, in UTC.", "2026-12-04T20:00:00Z"),
    ("Then at 01:30 the next day in Karachi.", "2026-12-05T01:30:00+05:00"),
    ("Last, at lunch in Seattle.", "2026-12-04T12:45:00-08:00"),
]


def services_of(app: Starlette) -> Services:
    services = app.state.services
    assert isinstance(services, Services)
    return services


async def _graph(db: Database, query: str, **params: Any) -> list[dict[str, Any]]:
    result = await db.driver.execute_query(query, params, database_=db.name)
    return [r.data() for r in result.records]


async def _tell(caller: Caller, user: str) -> list[dict[str, Any]]:
    units = [{"text": text, "speaker": "bob", "occurredAt": at} for text, at in SAID]
    data = await caller.gql(REMEMBER, {"user": user, "units": units})
    return [payload["interaction"] for payload in data["rememberBatch"]]


async def test_a_turn_keeps_its_offset_and_its_instant(db: Database, caller: Caller) -> None:
    written = await _tell(caller, "bob")
    # The write answers the turn as said, offset and all.
    assert [(i["text"], i["occurredAt"]) for i in written] == SAID
    listed = await caller.gql(LISTED, {"user": "bob"})
    assert [(i["text"], i["occurredAt"]) for i in listed["user"]["interactions"]["nodes"]] == SAID
    # Stored in UTC, as before (time order and bounds are on the instant), beside the offset.
    stored = await _graph(
        db,
        "MATCH (n:Interaction {tenant: $t, user_id: 'bob'}) "
        "RETURN toString(n.occurred_at) AS at, n.utc_offset_s AS offset ORDER BY n.seq",
        t=caller.tenant,
    )
    assert stored == [
        {"at": "2026-12-04T20:00:00Z", "offset": 0},
        {"at": "2026-12-04T20:30:00Z", "offset": 18000},
        {"at": "2026-12-04T20:45:00Z", "offset": -28800},
    ]
    # A bound in any offset is the instant it names.
    later = await caller.gql(LISTED, {"user": "bob", "since": "2026-12-04T21:30:00+01:00"})
    assert [i["text"] for i in later["user"]["interactions"]["nodes"]] == [SAID[1][0], SAID[2][0]]


async def test_a_turn_stored_without_an_offset_reads_as_utc(db: Database, caller: Caller) -> None:
    await _tell(caller, "old")
    await _graph(
        db, "MATCH (n:Interaction {tenant: $t, user_id: 'old'}) REMOVE n.utc_offset_s", t=caller.tenant
    )
    listed = await caller.gql(LISTED, {"user": "old"})
    assert [i["occurredAt"] for i in listed["user"]["interactions"]["nodes"]] == [
        "2026-12-04T20:00:00Z",
        "2026-12-04T20:30:00Z",
        "2026-12-04T20:45:00Z",
    ]


async def test_export_and_import_carry_the_offset(db: Database, api_app: Starlette, caller: Caller) -> None:
    portability = services_of(api_app).portability
    await _tell(caller, "bob")
    owner = Owner(caller.tenant, "bob")
    lines = [line async for line in portability.export(owner)]
    turns = [line["properties"] for line in lines if line.get("labels") == ["Interaction"]]
    assert [t["utc_offset_s"] for t in sorted(turns, key=lambda t: t["seq"])] == [0, 18000, -28800]

    await portability.import_user(
        parse([json.dumps(line) + "\n" for line in lines]), Owner(caller.tenant, "copy")
    )
    copied = await caller.gql(LISTED, {"user": "copy"})
    assert [(i["text"], i["occurredAt"]) for i in copied["user"]["interactions"]["nodes"]] == SAID


@pytest.mark.parametrize("offset", [86400, -86400, 1.5, "+05:00", True])
async def test_an_import_refuses_an_offset_no_calendar_has(
    api_app: Starlette, caller: Caller, offset: object
) -> None:
    portability = services_of(api_app).portability
    await _tell(caller, "bob")
    lines = [line async for line in portability.export(Owner(caller.tenant, "bob"))]
    bad = [
        {**line, "properties": {**line["properties"], "utc_offset_s": offset}}
        if line.get("labels") == ["Interaction"]
        else line
        for line in lines
    ]
    with pytest.raises(InvalidInput, match="utc_offset_s"):
        parse([json.dumps(line) + "\n" for line in bad])


async def test_an_import_stores_a_turn_given_in_its_offset_as_a_write_would(
    db: Database, api_app: Starlette, caller: Caller
) -> None:
    """A file written elsewhere may give a turn's time in the offset it was said in, with no
    utc_offset_s: it is stored in UTC beside that offset, as the same turn written would be."""
    portability = services_of(api_app).portability
    await _tell(caller, "bob")
    lines = [line async for line in portability.export(Owner(caller.tenant, "bob"))]
    said = dict(SAID)
    for line in lines:
        if line.get("labels") == ["Interaction"]:
            properties = line["properties"]
            del properties["utc_offset_s"]
            properties["occurred_at"] = {"$datetime": said[properties["text"]]}
            properties["created_at"] = {"$datetime": "2026-12-06T10:00:00+05:00"}
    await portability.import_user(
        parse([json.dumps(line) + "\n" for line in lines]), Owner(caller.tenant, "hand")
    )

    copied = await caller.gql(LISTED, {"user": "hand"})
    assert [(i["text"], i["occurredAt"]) for i in copied["user"]["interactions"]["nodes"]] == SAID
    stored = await _graph(
        db,
        "MATCH (n:Interaction {tenant: $t, user_id: 'hand'}) RETURN toString(n.occurred_at) AS at, "
        "n.utc_offset_s AS offset, toString(n.created_at) AS created ORDER BY n.seq",
        t=caller.tenant,
    )
    assert stored == [
        {"at": "2026-12-04T20:00:00Z", "offset": None, "created": "2026-12-06T05:00:00Z"},
        {"at": "2026-12-04T20:30:00Z", "offset": 18000, "created": "2026-12-06T05:00:00Z"},
        {"at": "2026-12-04T20:45:00Z", "offset": -28800, "created": "2026-12-06T05:00:00Z"},
    ]
