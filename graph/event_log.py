"""The per-user log of consolidation events, so that every service process can report every
consolidation of a user, whichever process ran it.

Each record is appended in the transaction that commits its consolidation (graph/consolidations.py),
with a sequence number per user that rises by one per event in commit order; a reader resumes
from the last sequence it saw. Forgetting erases the records with what they name (graph/forget.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.database import Database, run
from graph.models import ConsolidationWrite, Owner, new_id
from graph.vocabulary import EVENT_ID_PREFIX

# Records one poll reads at most; a reader that gets a full page reads again at once.
PAGE = 200


@dataclass(frozen=True)
class LoggedEvent:
    """One committed consolidation as the log holds it. `origin`: the lease holder that committed
    it (None when it was committed without a lease)."""

    seq: int
    origin: str | None
    trigger_id: str
    action: str  # "created" | "merged"
    episode_id: str | None
    previous_episode_id: str | None
    fact_ids: list[str]
    superseded_fact_ids: list[str]
    consolidated_ids: list[str]
    llm_calls: int


@dataclass(frozen=True)
class Position:
    """Where a reader of a user's log stands: after sequence `seq` of the user node created at
    `incarnation` (None: no such user yet). A user forgotten and written again is a new node, whose
    log starts over at 1."""

    seq: int
    incarnation: str | None


@dataclass(frozen=True)
class Page:
    """Events read from the log, and the incarnation of the user they were read for."""

    incarnation: str | None
    events: list[LoggedEvent]


@dataclass(frozen=True)
class Coverage:
    """Where one interaction stands in consolidation: `checked` by the recurrence gate yet,
    `consolidated` into an episode, the episode it `awaits` (a batch merge), and the logged `event`
    of the commit that absorbed it. `episode_id` / `previous_episode_id`: the episode version that
    absorbed it and the one that version replaced, also for a commit that logged no event."""

    interaction_id: str
    checked: bool
    consolidated: bool
    awaits: str | None
    event: LoggedEvent | None
    episode_id: str | None
    previous_episode_id: str | None


class EventLog:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def covering(self, owner: Owner, ids: list[str]) -> list[Coverage]:
        """What consolidation did so far with each of the user's interactions `ids` (those that
        exist), whichever process decided it."""
        rows = await self.db.read("queries/events/covering", **owner.params(), ids=ids)
        return [
            Coverage(
                interaction_id=row["id"],
                checked=bool(row["checked"]),
                consolidated=bool(row["consolidated"]),
                awaits=row["awaits"],
                event=_event(row["event"]) if row["event"] is not None else None,
                episode_id=row["episode_id"],
                previous_episode_id=row["previous_episode_id"],
            )
            for row in rows
        ]

    async def latest(self, owner: Owner) -> Position:
        """The position after the user's latest event (sequence 0 when there is none)."""
        row = (await self.db.read("queries/events/last_seq", **owner.params()))[0]
        return Position(int(row["seq"]), row["incarnation"])

    async def since(self, owner: Owner, after: int, limit: int = PAGE) -> Page:
        """The user's events with a sequence above `after`, oldest first, at most `limit`."""
        rows = await self.db.read("queries/events/since", **owner.params(), after=after, limit=limit)
        row = rows[0]
        return Page(row["incarnation"], [_event(e) for e in row["events"]])


async def append_event(
    tx: AsyncManagedTransaction, owner: Owner, write: ConsolidationWrite, superseded: list[str]
) -> None:
    """Inside the commit's transaction: the event of a consolidation that wrote an episode version;
    `superseded`: the facts its new facts replaced."""
    episode = write.episode
    if episode is None:
        return
    consolidated = write.consolidated_ids
    trigger = write.runs[0].trigger if write.runs else (consolidated[-1] if consolidated else episode.id)
    params: dict[str, Any] = {
        **owner.params(),
        "id": new_id(EVENT_ID_PREFIX),
        "origin": write.lease_holder,
        "trigger_id": trigger,
        "action": "merged" if episode.previous_id else "created",
        "episode_id": episode.id,
        "previous_episode_id": episode.previous_id,
        "fact_ids": [f.id for f in write.facts],
        "superseded_fact_ids": superseded,
        "consolidated_ids": consolidated,
        # The calls committed with it (episode and facts); a refused merge before them is
        # counted only in the outcome its own process reports.
        "llm_calls": len(write.runs),
    }
    await run(tx, "queries/events/append", params)


def _event(row: dict[str, Any]) -> LoggedEvent:
    return LoggedEvent(
        seq=int(row["seq"]),
        origin=row["origin"],
        trigger_id=row["trigger_id"],
        action=row["action"],
        episode_id=row["episode_id"],
        previous_episode_id=row["previous_episode_id"],
        fact_ids=list(row["fact_ids"] or []),
        superseded_fact_ids=list(row["superseded_fact_ids"] or []),
        consolidated_ids=list(row["consolidated_ids"] or []),
        llm_calls=int(row["llm_calls"] or 0),
    )
