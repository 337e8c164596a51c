"""The background consolidation of one engine: a queue of users, `worker_concurrency` workers
(never two on one user), retries with a back-off after a failed pass, and the sweeper that finds
the users nobody works on. A user queued by a write (or its retry) goes before those the sweeper
queued, so a backlog of swept users never delays a fresh write's consolidation."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable

from consolidation.metrics import Metrics
from consolidation.settings import EngineSettings
from consolidation.stores import Stores
from consolidation.types import ConsolidationOutcome
from graph.models import Owner

log = logging.getLogger("consolidation.engine")
# One pass over a user, as a worker runs it (MemoryEngine.consolidate, not waiting for a lease).
Pass = Callable[[Owner], Awaitable[list[ConsolidationOutcome]]]
# Queue ranks, first taken first: a user queued by a write, then one the sweeper found.
WRITTEN, SWEPT = 0, 1


class Background:
    def __init__(self, run_pass: Pass, stores: Stores, settings: EngineSettings, metrics: Metrics) -> None:
        self._pass = run_pass
        self._stores = stores
        self._settings = settings
        self._metrics = metrics
        # (rank, arrival, user): by rank, then in the order queued.
        self._queue: asyncio.PriorityQueue[tuple[int, int, Owner]] = asyncio.PriorityQueue()
        self._arrivals = itertools.count()
        # Users in the queue, with the rank of their live entry: a user is queued once however many
        # writes arrive before its pass (a swept user written meanwhile is queued again as written,
        # and its swept entry skipped).
        self._queued: dict[Owner, int] = {}
        # Users a worker is on (never two workers on one user), and those queued again meanwhile:
        # the worker on them takes them again when it is done, so no other worker waits on them.
        self._active: set[Owner] = set()
        self._again: set[Owner] = set()
        # The workers, at most `worker_concurrency` users in flight.
        self._workers: list[asyncio.Task[None]] = []
        # The sweeper, and the users waiting for a retry after a failed pass (with its count).
        self._sweeper: asyncio.Task[None] | None = None
        self._retries: dict[Owner, asyncio.TimerHandle] = {}
        self._failures: dict[Owner, int] = {}
        # Users the sweeper found with waiting turns whose session ended (batched merges).
        self._due: set[Owner] = set()

    def start(self) -> None:
        if self._workers:
            return
        settings = self._settings
        self._workers = [
            asyncio.create_task(self._work(), name=f"recmem-consolidation-{n}")
            for n in range(settings.worker_concurrency)
        ]
        if settings.sweep_interval_s > 0:
            self._sweeper = asyncio.create_task(self._sweep(), name="recmem-sweeper")

    async def stop(self) -> None:
        """Stop the workers and the sweeper; every pass that was running has released its lease."""
        for handle in self._retries.values():
            handle.cancel()
        self._retries.clear()
        tasks = [t for t in (self._sweeper, *self._workers) if t is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        self._workers = []
        self._sweeper = None
        self._queued.clear()
        self._active.clear()
        self._again.clear()
        self._failures.clear()

    async def drain(self) -> None:
        """Wait until the workers have handled every queued user."""
        await self._queue.join()

    def enqueue(self, owner: Owner, *, swept: bool = False) -> None:
        rank = SWEPT if swept else WRITTEN
        if self._queued.get(owner, SWEPT + 1) <= rank:
            return
        self._queued[owner] = rank
        self._queue.put_nowait((rank, next(self._arrivals), owner))

    def take_due(self, owner: Owner) -> bool:
        """Whether the sweeper found the user's batch of waiting turns due (asked once)."""
        due = owner in self._due
        self._due.discard(owner)
        return due

    def retry_later(self, owner: Owner) -> None:
        """Queue the user again after a back-off that doubles with each failure in a row, so a
        failed pass (Neo4j or the LLM down) is retried without waiting for another write."""
        if not self._workers or owner in self._retries:
            return
        failures = self._failures.get(owner, 0) + 1
        self._failures[owner] = failures
        delay = min(
            self._settings.consolidation_retry_s * 2 ** min(failures - 1, 20),
            self._settings.consolidation_retry_max_s,
        )
        log.info("consolidation of %r is retried in %.1f s", owner, delay)
        self._retries[owner] = asyncio.get_running_loop().call_later(delay, self._retry_now, owner)

    def _retry_now(self, owner: Owner) -> None:
        self._retries.pop(owner, None)
        self.enqueue(owner)

    async def _work(self) -> None:
        """One of `worker_concurrency` workers: takes the next queued user no worker is on."""
        while True:
            rank, _, owner = await self._queue.get()
            try:
                if self._queued.get(owner) != rank:
                    continue  # a swept entry whose user a write queued again, ahead of it
                if owner in self._active:
                    # Another worker is on this user: it takes the user again when it is done.
                    self._queued.pop(owner, None)
                    self._again.add(owner)
                    continue
                self._active.add(owner)
                try:
                    await self._work_on(owner)
                finally:
                    self._active.discard(owner)
                    if owner in self._again:
                        self._again.discard(owner)
                        self.enqueue(owner)  # before task_done, so drain waits for it
            finally:
                self._queue.task_done()

    async def _work_on(self, owner: Owner) -> None:
        try:
            await asyncio.sleep(self._settings.consolidation_delay_s)
            # Writes from here on queue the user again: this pass may not see them.
            self._queued.pop(owner, None)
            outcomes = await self._pass(owner)
        except Exception:
            # The interactions stay pending; a retry after a back-off picks them up.
            log.exception("background consolidation failed")
            self.retry_later(owner)
        else:
            if any(o.action == "deferred" for o in outcomes):
                self.retry_later(owner)
            else:
                self._failures.pop(owner, None)

    async def _sweep(self) -> None:
        """Every sweep_interval_s, queue (at most sweep_batch) users whose pending interactions
        nobody works on: left by a restart of Neo4j or of a service, a crashed holder, a failed
        pass, or a bulk load of a user who never writes again."""
        while True:
            await asyncio.sleep(self._settings.sweep_interval_s)
            try:
                await self.sweep_once()
            except Exception:
                log.warning("the sweep for pending interactions failed; trying again", exc_info=True)

    async def sweep_once(self) -> list[Owner]:
        """One pass of the sweeper: queue the users found (counted in `metrics`) and return them."""
        settings = self._settings
        skip = self._queued.keys() | self._active | self._retries.keys()
        found = await self._stores.leases.unattended(settings.sweep_batch, skip)
        # Then users whose waiting turns' session has ended: their batch merges without a write.
        due = await self._stores.waiting.due_users(
            settings.sweep_batch - len(found), settings.merge_quiet_seconds, skip | set(found)
        )
        self._due.update(due)
        found += due
        for owner in found:
            self.enqueue(owner, swept=True)
        self._metrics.swept(len(found))
        if found:
            log.info("the sweep queued %d users with pending interactions", len(found))
        return found
