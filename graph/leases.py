"""Per-user consolidation leases held in the database, so every process serializes on them.

Taking and giving back a lease are cancellation-safe. A cancellation that lands while a take is
in flight cannot tell whether the statement committed, so the lease is given back before the
cancellation propagates; `release` always runs to completion, and the caller waits for it even
when cancelled (the cancellation is re-raised once the lease is free). So a timeout or a shutdown
never leaves a lease held by nobody until it expires.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Collection, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from graph.database import Database
from graph.errors import StoreBusy, StoreUnavailable
from graph.models import Owner

T = TypeVar("T")
POLL_S = 0.05
POLL_MAX_S = 1.0
# Users the backlog read (`LeaseStore.backlog`) looks at, at most.
BACKLOG_MAX_USERS = 100_000


@dataclass(frozen=True)
class Backlog:
    """Interactions still waiting for the recurrence gate, over the whole database: how many, for
    how many users, and the age of the oldest (seconds since it was written; 0 when none).
    `partial`: more users than were looked at exist, so the counts are lower bounds."""

    pending: int
    users: int
    oldest_age_s: float
    partial: bool


class LeaseStore:
    """A lease expires on its own, so a crashed holder blocks a user for at most its duration.

    A holder must not call `wait_acquire` for a lease it already holds elsewhere: a cancelled
    `wait_acquire` gives the lease back.

    `on_takeover` is called each time a lease is taken that another holder had let expire."""

    def __init__(self, db: Database, on_takeover: Callable[[], None] | None = None) -> None:
        self.db = db
        self.on_takeover = on_takeover

    async def wait_acquire(self, owner: Owner, holder: str, seconds: float, wait_s: float) -> bool:
        """Take the lease, polling with a growing delay for at most `wait_s` while another holds
        it. False at once when the user does not exist (erased meanwhile: nothing to do)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        delay = POLL_S
        while not (taken := await self._take(owner, holder, seconds)):
            remaining = deadline - loop.time()
            if taken is None or remaining <= 0:
                return False
            await asyncio.sleep(min(delay, remaining))
            delay = min(delay * 2, POLL_MAX_S)
        return True

    async def _take(self, owner: Owner, holder: str, seconds: float) -> bool | None:
        """True when taken, False when another holder has it, None when there is no such user."""
        try:
            rows = await self.db.write(
                "queries/leases/acquire", **owner.params(), holder=holder, lease_ms=_ms(seconds)
            )
        except StoreUnavailable as error:
            # Neo4j unreachable: a release would fail too, after the driver's retries. A lease
            # taken nonetheless expires; this holder (re-entrant) takes it back on its retry.
            # A busy store (StoreBusy) answers, though: give the lease back as for any failure.
            if isinstance(error, StoreBusy):
                with contextlib.suppress(Exception):
                    await self.release(owner, holder)
            raise
        except (asyncio.CancelledError, Exception):
            # In doubt: the statement may have committed before the cancellation or the failure
            # reached us. Give the lease back (a no-op if it was not taken) before propagating.
            with contextlib.suppress(Exception):
                await self.release(owner, holder)
            raise
        if rows and rows[0]["acquired"] and rows[0].get("took_over") and self.on_takeover is not None:
            self.on_takeover()
        return bool(rows[0]["acquired"]) if rows else None

    async def renew(self, owner: Owner, holder: str, seconds: float) -> bool:
        """Extend the lease by `seconds` from now if `holder` still holds it; False when it is lost
        (taken over after expiry, or released). Never takes a lease that is not ours."""
        rows = await self.db.write(
            "queries/leases/renew", **owner.params(), holder=holder, lease_ms=_ms(seconds)
        )
        return bool(rows and rows[0]["renewed"])

    async def release(self, owner: Owner, holder: str, checked: Sequence[str] = ()) -> bool:
        """Mark `checked` as gated without recurrence and release the lease if held; True when
        interactions are still waiting for the gate. Runs to completion even if the caller is
        cancelled; the caller waits for it, then the cancellation propagates."""
        return await run_to_completion(self._release(owner, holder, list(checked)))

    async def _release(self, owner: Owner, holder: str, checked: list[str]) -> bool:
        rows = await self.db.write("queries/leases/release", **owner.params(), holder=holder, checked=checked)
        return bool(rows and rows[0]["pending"])

    async def unattended(self, limit: int, skip: Collection[Owner] = ()) -> list[Owner]:
        """Users with interactions still waiting for the gate and no live lease (never taken,
        released, or left to expire by a crashed holder), at most `limit`, none of `skip`."""
        rows = await self.db.read(
            "queries/consolidation/pending_users",
            limit=limit,
            skip=[[o.tenant, o.user_id] for o in skip],
        )
        return [Owner(row["tenant"], row["user_id"]) for row in rows]

    async def backlog(self, max_users: int = BACKLOG_MAX_USERS) -> Backlog:
        """The pending interactions over the whole database (no tenant or user named)."""
        rows = await self.db.read("queries/consolidation/pending_backlog", max_users=max_users)
        row = rows[0]
        return Backlog(
            pending=int(row["pending"]),
            users=int(row["users"]),
            oldest_age_s=max(0.0, float(row["oldest_age_s"])),
            partial=bool(row["partial"]),
        )


async def run_to_completion(work: Coroutine[Any, Any, T]) -> T:
    """Await `work` in its own task until it is done, even if the caller is cancelled meanwhile
    (unlike `asyncio.shield`, which returns at once and leaves the work running unobserved).
    A cancellation that arrived is re-raised afterwards; it takes precedence over the result."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.wait([task])
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        if not task.cancelled():
            task.exception()  # retrieved, so an error here is not reported as never retrieved
        raise asyncio.CancelledError
    return task.result()


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))
