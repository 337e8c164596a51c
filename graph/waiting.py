"""Turns waiting for their episode's batch merge (recurrence-gated merging).

A turn that would merge into a current episode is marked as waiting for it instead: through the
gate, still unconsolidated (recallable as a raw turn), with the episode's id on it. The waiting
turns of an episode are merged into it together, in one consolidation commit, when enough have
gathered or their session has ended (consolidation/consolidating/pipeline.py decides; this stores and reads).
Every write checks the caller's consolidation lease in its own transaction, as commits do.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from neo4j import AsyncManagedTransaction

from graph.commit_steps import require_lease
from graph.database import Database, run
from graph.models import Episode, Interaction, Owner
from graph.records import episode_from, interaction_from

# Users the waiting backlog read looks at, at most (as the pending backlog does).
BACKLOG_MAX_USERS = 100_000


@dataclass(frozen=True)
class Waiting:
    """One turn waiting for an episode, with its similarity to it when it was marked."""

    turn: Interaction
    similarity: float


@dataclass(frozen=True)
class WaitingGroup:
    """The turns waiting for one episode, in stream order. `episode` is None when the episode is no
    longer current (forgotten, or superseded by a path that did not take them along)."""

    episode_id: str
    episode: Episode | None
    due: bool
    turns: list[Waiting]


@dataclass(frozen=True)
class WaitingGroups:
    """A user's waiting groups; `flagged`: the user carries the waiting hint the sweeper reads."""

    flagged: bool
    groups: list[WaitingGroup]


@dataclass(frozen=True)
class WaitingBacklog:
    """Turns waiting for a batch merge over the whole database, and their users (no names)."""

    waiting: int
    users: int
    partial: bool


class WaitingStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def mark(
        self, owner: Owner, interaction_id: str, episode_id: str, similarity: float, holder: str
    ) -> int:
        """Mark the turn as waiting for the episode; the number of its turns now waiting."""

        async def work(tx: AsyncManagedTransaction) -> int:
            await require_lease(tx, owner, holder)
            rows = await run(
                tx,
                "queries/waiting/mark",
                {
                    **owner.params(),
                    "id": interaction_id,
                    "episode_id": episode_id,
                    "similarity": similarity,
                },
            )
            return int(rows[0]["waiting"]) if rows else 0

        return await self.db.write_transaction(work)

    async def for_episode(self, owner: Owner, episode_id: str) -> list[Waiting]:
        rows = await self.db.read("queries/waiting/for_episode", **owner.params(), episode_id=episode_id)
        return [Waiting(interaction_from(r["interaction"]), float(r["similarity"] or 0.0)) for r in rows]

    async def groups(self, owner: Owner, *, batch: int, quiet_s: float, everything: bool) -> WaitingGroups:
        """Every group of the user's waiting turns, each saying whether it is due for its merge."""
        rows = await self.db.read(
            "queries/waiting/groups",
            **owner.params(),
            batch=batch,
            quiet_ms=_ms(quiet_s),
            everything=everything,
        )
        if not rows:
            return WaitingGroups(flagged=False, groups=[])
        return WaitingGroups(
            flagged=bool(rows[0]["flagged"]),
            groups=[
                WaitingGroup(
                    episode_id=g["episode_id"],
                    episode=episode_from(g["episode"]) if g["episode"] else None,
                    due=bool(g["due"]),
                    turns=[
                        Waiting(interaction_from(t), float(s or 0.0))
                        for t, s in zip(g["turns"], g["similarities"], strict=True)
                    ],
                )
                for g in rows[0]["groups"]
            ],
        )

    async def among(self, owner: Owner, ids: list[str]) -> set[str]:
        """Which of these turns are waiting for an episode."""
        if not ids:
            return set()
        rows = await self.db.read("queries/waiting/among", **owner.params(), ids=ids)
        return set(rows[0]["ids"]) if rows else set()

    async def release(self, owner: Owner, ids: list[str], holder: str, *, regate: bool) -> None:
        """The turns stop waiting; with `regate` they also go through the gate again."""

        async def work(tx: AsyncManagedTransaction) -> None:
            await require_lease(tx, owner, holder)
            await run(tx, "queries/waiting/release", {**owner.params(), "ids": ids, "regate": regate})

        await self.db.write_transaction(work)

    async def settle(self, owner: Owner) -> None:
        """Drop the user's waiting hint when no turn of it waits any more."""
        await self.db.write("queries/waiting/settle", **owner.params())

    async def due_users(self, limit: int, quiet_s: float, skip: Collection[Owner] = ()) -> list[Owner]:
        """Users whose waiting turns' session has ended and whom no live lease covers."""
        if limit <= 0:
            return []
        rows = await self.db.read(
            "queries/waiting/due_users",
            limit=limit,
            quiet_ms=_ms(quiet_s),
            skip=[[o.tenant, o.user_id] for o in skip],
        )
        return [Owner(row["tenant"], row["user_id"]) for row in rows]

    async def backlog(self, max_users: int = BACKLOG_MAX_USERS) -> WaitingBacklog:
        row = (await self.db.read("queries/waiting/backlog", max_users=max_users))[0]
        return WaitingBacklog(int(row["waiting"] or 0), int(row["users"] or 0), bool(row["partial"]))


def _ms(seconds: float) -> int:
    return max(0, int(seconds * 1000))
