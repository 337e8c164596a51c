"""Group commit: concurrent writes of one process share one transaction when they arrive together.

A write that finds others on their way waits for them at most `wait_s`; writes that queue while
MAX_IN_FLIGHT groups commit go in the next one; a lone writer never waits. Each member is
acknowledged only after the commit that holds it, written by the same per-user statement, so seq
and NEXT stay exact. When the shared transaction fails, an unknown outcome or an unreachable Neo4j
is reported to every member; after any other failure each member is written again alone.
Why, and the failure cases: docs/design/group-commit.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any

from graph.errors import StoreUnavailable, WriteOutcomeUnknown
from graph.interactions import InteractionStore, PreparedWrite
from graph.models import StoredInteraction
from graph.timing import StatementClock, current_clock

# A group holds at most this many interactions (a batch write alone may be larger): one
# transaction's size stays that of an ordinary batch.
MAX_GROUP_ITEMS = 1000
# Groups committing at once. More than one, so that a group waiting for a user's lock (held by a
# consolidation's commit, say) does not hold up every write behind it; once this many are in
# flight, the writes that arrive queue, and go together in the next group.
MAX_IN_FLIGHT = 4
# Failures every member shares: writing each alone again would only fail again (or twice).
# (StoreUnavailable includes StoreBusy: a transient failure that outlasted the retries.)
SHARED_FAILURES = (WriteOutcomeUnknown, StoreUnavailable)


@dataclass
class _Member:
    write: PreparedWrite
    done: asyncio.Future[list[StoredInteraction]]
    # The caller's request clock (graph/timing.py): the commit that holds this write is its
    # Neo4j time, whichever request's write started the group's task.
    clock: StatementClock | None = None


@dataclass
class GroupStats:
    """What the groups did, for tests and the bench: transactions sent and writes they held."""

    transactions: int = 0
    members: int = 0
    largest: int = 0
    alone_after_failure: int = 0
    # Groups that waited for writes on their way (a lone writer's never do).
    waited: int = 0
    sizes: dict[int, int] = field(default_factory=dict)


class WriteGroups:
    """One per engine. `wait_s` 0: every write is its own transaction (grouping off)."""

    def __init__(self, store: InteractionStore, wait_s: float) -> None:
        self.store = store
        self.wait_s = wait_s
        self.stats = GroupStats()
        self._queue: list[_Member] = []
        self._arriving = 0
        self._flusher: asyncio.Task[None] | None = None
        self._in_flight: set[asyncio.Task[None]] = set()

    @contextlib.contextmanager
    def arriving(self) -> Iterator[None]:
        """Marks a write being prepared (embedded, checked): a group about to go waits for it."""
        self._arriving += 1
        try:
            yield
        finally:
            self._arriving -= 1

    async def write(self, prepared: PreparedWrite) -> list[StoredInteraction]:
        """The write's stored interactions, once the transaction holding it has committed."""
        if self.wait_s <= 0:
            self._count(1)
            return (await self.store.write_prepared([prepared]))[0]
        done: asyncio.Future[list[StoredInteraction]] = asyncio.get_running_loop().create_future()
        self._queue.append(_Member(prepared, done, current_clock()))
        if self._flusher is None or self._flusher.done():
            self._flusher = _detached(self._flush(), "recmem-group-commit")
        return await done

    async def _flush(self) -> None:
        """Start groups until none is queued, at most MAX_IN_FLIGHT committing at once: the
        writes that queue meanwhile form the next group."""
        while self._queue:
            if len(self._in_flight) >= MAX_IN_FLIGHT:
                await asyncio.wait(self._in_flight, return_when=asyncio.FIRST_COMPLETED)
                continue
            if self._arriving and _items(self._queue) < MAX_GROUP_ITEMS:
                await self._gather()
            group = self._take()
            if group:
                task = _detached(self._commit(group), "recmem-group-commit-tx")
                self._in_flight.add(task)
                task.add_done_callback(self._in_flight.discard)

    async def _gather(self) -> None:
        """Wait at most wait_s for the writes on their way (none is left waiting for long)."""
        self.stats.waited += 1
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait_s
        while self._arriving and _items(self._queue) < MAX_GROUP_ITEMS:
            left = deadline - loop.time()
            if left <= 0:
                return
            await asyncio.sleep(min(left, self.wait_s / 4))

    def _take(self) -> list[_Member]:
        """The next group in arrival order, up to MAX_GROUP_ITEMS (at least one member); members
        whose caller gave up before it went are dropped unwritten."""
        group: list[_Member] = []
        items = 0
        while self._queue and (not group or items + self._queue[0].write.size <= MAX_GROUP_ITEMS):
            member = self._queue.pop(0)
            if member.done.done():
                continue  # cancelled before it was sent: never written
            group.append(member)
            items += member.write.size
        return group

    async def _commit(self, group: list[_Member]) -> None:
        # One order of users for every transaction (stable: a user's members keep theirs), so
        # two groups in flight with the same users never lock them crosswise. Two groups in
        # flight with one user commit in the order Neo4j grants its lock: each caller's own
        # writes never race (it sends the next after the ack), and seq stays exact either way.
        ordered = sorted(group, key=lambda m: (m.write.owner.tenant, m.write.owner.user_id))
        self._count(len(ordered))
        try:
            with _timed_for(ordered):
                results = await self.store.write_prepared([m.write for m in ordered])
        except SHARED_FAILURES as error:
            for member in ordered:
                _fail(member, error)
        except Exception as error:
            if len(ordered) == 1:
                _fail(ordered[0], error)
            else:
                await self._alone(ordered)
        except BaseException as error:
            # This task cancelled (shutdown) during the commit: each member may be written.
            unknown = WriteOutcomeUnknown(f"the shared write was interrupted: {error!r}")
            for member in ordered:
                _fail(member, unknown)
            raise
        else:
            for member, stored in zip(ordered, results, strict=True):
                if not member.done.done():
                    member.done.set_result(stored)

    async def _alone(self, members: list[_Member]) -> None:
        """The shared statement was refused, so nothing of it was written: each member alone."""
        for member in members:
            self.stats.alone_after_failure += 1
            self._count(1)
            try:
                with _timed_for([member]):
                    stored = (await self.store.write_prepared([member.write]))[0]
            except Exception as error:
                _fail(member, error)
            else:
                if not member.done.done():
                    member.done.set_result(stored)

    def _count(self, members: int) -> None:
        stats = self.stats
        stats.transactions += 1
        stats.members += members
        stats.largest = max(stats.largest, members)
        stats.sizes[members] = stats.sizes.get(members, 0) + 1


def _detached(work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
    """A task that serves many requests: it runs outside the request that happened to start it,
    so that request's clock does not take the others' statements."""
    return asyncio.create_task(work, name=name, context=contextvars.Context())


@contextlib.contextmanager
def _timed_for(members: list[_Member]) -> Iterator[None]:
    """The block as Neo4j time of every member's request."""
    start = time.perf_counter()
    try:
        yield
    finally:
        end = time.perf_counter()
        for member in members:
            if member.clock is not None:
                member.clock.record(start, end)


def _items(queue: list[_Member]) -> int:
    return sum(m.write.size for m in queue)


def _fail(member: _Member, error: BaseException) -> None:
    if not member.done.done():
        member.done.set_exception(error)
