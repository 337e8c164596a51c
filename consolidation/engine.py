"""The memory engine: remember (durable at once), consolidate when topics recur, recall, answer."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator
from datetime import datetime

from consolidation.answering import Answerer
from consolidation.consolidator import Consolidator
from consolidation.embedders import Embedder
from consolidation.events import EventHub
from consolidation.metrics import Metrics
from consolidation.pipeline import Stores, UnitPipeline
from consolidation.recall import Recaller
from consolidation.sentences import embed_turns
from consolidation.settings import EngineSettings
from consolidation.types import Answer, Budgets, ConsolidationOutcome, Recall, Remembered, Unit
from consolidation.write_groups import WriteGroups
from graph.consolidations import ConsolidationStore
from graph.database import Database
from graph.episodes import EpisodeStore
from graph.errors import InvalidInput
from graph.event_log import EventLog
from graph.facts import FactStore
from graph.interactions import InteractionStore
from graph.leases import Backlog, LeaseStore
from graph.models import Interaction, NewInteraction, Owner, StoredInteraction
from graph.recall import RecallSearch
from graph.validation import require_owner, require_text, require_token_budget
from graph.waiting import WaitingBacklog, WaitingStore

log = logging.getLogger(__name__)
PENDING_BATCH = 200


class MemoryEngine:
    """One per process. Consolidation for a user runs under a lease held in Neo4j, so any number of
    engines (threads, processes, hosts) can share one database without duplicate episodes."""

    def __init__(
        self, db: Database, embedder: Embedder, consolidator: Consolidator, settings: EngineSettings
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.consolidator = consolidator
        self.settings = settings
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.stores = Stores(
            InteractionStore(db, embedder.dimension, settings.max_text_bytes),
            EpisodeStore(db, embedder.dimension),
            FactStore(db, embedder.dimension),
            ConsolidationStore(db, embedder.dimension),
            WaitingStore(db),
        )
        self.writes = WriteGroups(self.stores.interactions, settings.group_commit_wait_ms / 1000)
        # Counters and backlog gauges of this engine, in its own registry (GET /metrics).
        self.metrics = Metrics()
        self.leases = LeaseStore(db, on_takeover=self.metrics.lease_taken_over)
        search = RecallSearch(db, embedder.dimension)
        self.pipeline = UnitPipeline(
            self.stores, search, embedder, consolidator, settings, metrics=self.metrics
        )
        self.recaller = Recaller(
            self.stores, search, embedder, focus=settings.context_focus, dates=settings.context_dates
        )
        self.answerer = Answerer(self.recaller, consolidator, self.stores.consolidations)
        # Subscribers hear this engine's outcomes at once, other processes' through the database.
        self.events = EventHub(EventLog(db), self.holder, settings.event_poll_s, self.metrics.registry)
        self._queue: asyncio.Queue[Owner] = asyncio.Queue()
        # Users in the queue: a user is queued once however many writes arrive before its pass.
        self._queued: set[Owner] = set()
        # Users a worker is on (never two workers on one user), and those queued again meanwhile:
        # the worker on them takes them again when it is done, so no other worker waits on them.
        self._active: set[Owner] = set()
        self._again: set[Owner] = set()
        # The database lease is re-entrant for its holder, so coroutines of this one engine
        # also queue on a local lock per user.
        self._locks: dict[Owner, asyncio.Lock] = {}
        # The background workers, at most `worker_concurrency` users in flight.
        self._workers: list[asyncio.Task[None]] = []
        # The sweeper, and the users waiting for a retry after a failed pass (with its count).
        self._sweeper: asyncio.Task[None] | None = None
        self._retries: dict[Owner, asyncio.TimerHandle] = {}
        # Users the sweeper found with waiting turns whose session ended (batched merges).
        self._due: set[Owner] = set()
        self._failures: dict[Owner, int] = {}

    # -- write path ----------------------------------------------------------------------------

    async def remember(self, owner: Owner, unit: Unit, *, consolidate: bool | None = None) -> Remembered:
        return (await self.remember_batch(owner, [unit], consolidate=consolidate))[0]

    async def remember_batch(
        self, owner: Owner, units: list[Unit], *, consolidate: bool | None = None
    ) -> list[Remembered]:
        """Validate, embed (one batched call), write durably: that is the acknowledgement. Then
        consolidate inline, or hand the user to the background worker."""
        self._validate(owner, units)
        # Embedded with speaker and time (consolidation/embedding_template.py), stored as sent.
        # Its sentences too, bare, for focusing a context on a query (consolidation/sentences.py).
        render = self.settings.template.render
        # Concurrent writes of this process share a transaction (consolidation/write_groups.py);
        # this one is checked in full before it joins, so its input cannot fail the others.
        with self.writes.arriving():
            vectors, sentence_vectors = await embed_turns(
                self.embedder,
                [render(u.text, u.speaker, u.occurred_at) for u in units],
                [u.text for u in units],
            )
            items = [
                NewInteraction(
                    speaker=u.speaker,
                    text=u.text,
                    occurred_at=u.occurred_at,
                    embedding=vector,
                    session_id=u.session_id,
                    source_ref=u.source_ref,
                    sentence_vectors=packed,
                )
                for u, vector, packed in zip(units, vectors, sentence_vectors, strict=True)
            ]
            prepared = self.stores.interactions.prepare(owner, items)
        stored = await self.writes.write(prepared)
        outcomes = await self._after_write(owner, consolidate, [s.id for s in stored])
        by_trigger = {o.trigger_id: o for o in outcomes}
        # An episode's consolidated ids include the trigger that created or merged it.
        changed = {i for o in outcomes for i in o.consolidated_ids}
        return [
            Remembered(
                s.id,
                s.seq,
                s.created,
                by_trigger.get(s.id),
                _as_stored(owner, item, s) if s.created and s.id not in changed else None,
            )
            for s, item in zip(stored, items, strict=True)
        ]

    async def _after_write(
        self, owner: Owner, consolidate: bool | None, written: list[str]
    ) -> list[ConsolidationOutcome]:
        if consolidate is False:
            return []
        if consolidate is None and self.settings.consolidation_mode == "background":
            self._enqueue(owner)
            return []
        budget = self.settings.inline_consolidation_budget_s
        outcomes: list[ConsolidationOutcome] = []
        try:
            # The write is durable already: a long pass (a backlog left by bulk loads, a slow
            # LLM) must not turn its acknowledgement into a timeout. Cancelling the pass is safe:
            # each consolidation commits in one transaction, and wait_for returns only once the
            # cancelled pass has given its lease back.
            await asyncio.wait_for(self._consolidate_into(owner, True, outcomes), budget)
        except TimeoutError:
            self.metrics.failed("timeout")
            log.warning("inline consolidation passed its %.0f s budget; the rest stays pending", budget)
            self._defer(owner, written, outcomes, f"inline consolidation passed its {budget:g} s budget")
        except Exception as error:
            # Neo4j gone mid-pass, an embedder down, a bug: the write is committed all the same,
            # and reporting it as failed would make the caller store it twice. The pass released
            # its lease; what it did not decide stays pending.
            self.metrics.failed(error)
            log.exception("inline consolidation failed after the write; the rest stays pending")
            self._defer(owner, written, outcomes, f"inline consolidation failed ({type(error).__name__})")
        return outcomes

    def _defer(
        self, owner: Owner, written: list[str], outcomes: list[ConsolidationOutcome], why: str
    ) -> None:
        """Report every written interaction the stopped pass did not decide on as deferred."""
        reason = f"{why}; it stays pending"
        decided = {o.trigger_id for o in outcomes} | {i for o in outcomes for i in o.consolidated_ids}
        outcomes += [
            ConsolidationOutcome(trigger_id=i, action="deferred", error=reason)
            for i in written
            if i not in decided
        ]
        self._retry_later(owner)  # the background worker, when it runs, finishes the rest

    def _validate(self, owner: Owner, units: list[Unit]) -> None:
        require_owner(owner.tenant, owner.user_id)
        if not units:
            raise InvalidInput("nothing to remember: the batch is empty")
        for index, unit in enumerate(units):
            require_text(f"interaction {index} text", unit.text, self.settings.max_text_bytes)

    # -- consolidation -------------------------------------------------------------------------

    async def consolidate(
        self, owner: Owner, *, wait: bool = False, wait_lease: bool | None = None, flush: bool = False
    ) -> list[ConsolidationOutcome]:
        """Run the gate for every interaction of this user that has not been through it yet.

        Only the lease holder works; others return at once (or, with `wait`, queue behind it;
        `wait_lease`, when given, decides apart whether to wait for another holder's lease).
        After releasing, the holder looks again, because a writer that found the lease taken
        relies on the holder to pick up its interaction.

        `flush` (an explicit consolidate): also merge every turn waiting for its episode's batch
        merge, not only the batches that are due.
        """
        outcomes: list[ConsolidationOutcome] = []
        try:
            await self._consolidate_into(owner, wait, outcomes, wait_lease, flush=flush)
        except Exception as error:
            self.metrics.failed(error)
            raise
        return outcomes

    async def _consolidate_into(
        self,
        owner: Owner,
        wait: bool,
        outcomes: list[ConsolidationOutcome],
        wait_lease: bool | None = None,
        *,
        flush: bool = False,
    ) -> None:
        """Appends each decision as it is made, so a caller that cancels still sees them.

        The lease is released exactly once per acquisition, before this returns or raises, on
        every path: done, failed, or cancelled at any await (a caller's budget, a shutdown).
        """
        lock = self._locks.setdefault(owner, asyncio.Lock())
        if lock.locked() and not wait:
            return
        lease_wait = wait if wait_lease is None else wait_lease
        async with lock:
            while await self._acquire(owner, lease_wait):
                start = len(outcomes)
                try:
                    async with self._renewing(owner):
                        await self._drain(owner, outcomes, flush)
                except BaseException:
                    # Released before the error or the cancellation propagates (the release runs
                    # to completion even if cancelled again); a failed release must not hide it.
                    with contextlib.suppress(Exception):
                        await self._release(owner, outcomes[start:])
                    raise
                drained = outcomes[start:]
                pending = await self._release(owner, drained)
                if any(o.action == "deferred" for o in drained) or not pending:
                    break
                lease_wait = False

    async def _acquire(self, owner: Owner, wait: bool) -> bool:
        # Cancellation-safe: cancelled while the lease is being taken, LeaseStore gives it back.
        wait_s = self.settings.lease_seconds if wait else 0.0
        return await self.leases.wait_acquire(owner, self.holder, self.settings.lease_seconds, wait_s)

    async def _release(self, owner: Owner, drained: list[ConsolidationOutcome]) -> bool:
        """Give the lease back, marking what the gate found no recurrence for; True when
        interactions are still pending."""
        checked = [o.trigger_id for o in drained if o.action == "none"]
        return await self.leases.release(owner, self.holder, checked)

    @contextlib.asynccontextmanager
    async def _renewing(self, owner: Owner) -> AsyncIterator[None]:
        """Renews the lease every third of its duration while the pass runs, so a pass longer than
        the lease keeps it; the heartbeat has stopped when this exits."""
        heartbeat = asyncio.create_task(self._heartbeat(owner), name="recmem-lease-heartbeat")
        try:
            yield
        finally:
            heartbeat.cancel()
            await asyncio.wait([heartbeat])

    async def _heartbeat(self, owner: Owner) -> None:
        seconds = self.settings.lease_seconds
        while True:
            await asyncio.sleep(seconds / 3)
            try:
                if not await self.leases.renew(owner, self.holder, seconds):
                    log.warning("lost the consolidation lease of %r; the pass's commits are refused", owner)
                    return
            except Exception:
                log.warning("could not renew the consolidation lease; trying again", exc_info=True)

    async def _drain(self, owner: Owner, outcomes: list[ConsolidationOutcome], flush: bool = False) -> None:
        """Gate every pending interaction, then merge the batches of waiting turns that are due
        (all of them with `flush`), appending to `outcomes` as it goes (so that what was decided
        before a failure still counts)."""
        done: set[str] = set()
        pending = await self.stores.interactions.pending(owner, PENDING_BATCH)
        # A full batch may hide more pending interactions behind it: count them as possible followers.
        hidden = PENDING_BATCH if len(pending) == PENDING_BATCH else 0
        for index, (unit, vector) in enumerate(pending):
            if unit.id in done:
                continue  # already absorbed as a neighbour earlier in this pass
            later = len(pending) - index - 1 + hidden
            outcome = await self.pipeline.run(owner, unit, vector, self.holder, later)
            if not self._took(owner, outcome, outcomes):
                return
            done.update(outcome.consolidated_ids)
        # With merge_batch 1 no turn waits (unless an earlier setting left some, which the sweeper
        # finds): the pass then spends no statement on batches.
        if flush or self.settings.merge_batch > 1 or owner in self._due:
            self._due.discard(owner)
            async for outcome in self.pipeline.flush(owner, self.holder, everything=flush):
                if not self._took(owner, outcome, outcomes):
                    return

    def _took(
        self, owner: Owner, outcome: ConsolidationOutcome, outcomes: list[ConsolidationOutcome]
    ) -> bool:
        """Publish and keep one outcome; False when it was deferred (the pass stops there)."""
        self.events.publish(owner, outcome)
        outcomes.append(outcome)
        if outcome.action == "deferred":
            log.warning("consolidation deferred for one interaction: %s", outcome.error)
            return False
        return True

    def subscribe(self, owner: Owner) -> AsyncIterator[ConsolidationOutcome]:
        return self.events.subscribe(owner)

    # -- background worker ---------------------------------------------------------------------

    def start(self) -> None:
        if self.settings.consolidation_mode == "background" and not self._workers:
            self._workers = [
                asyncio.create_task(self._work(), name=f"recmem-consolidation-{n}")
                for n in range(self.settings.worker_concurrency)
            ]
            if self.settings.sweep_interval_s > 0:
                self._sweeper = asyncio.create_task(self._sweep(), name="recmem-sweeper")

    async def stop(self) -> None:
        """Stop the workers, the sweeper and the event feeds; every pass that was running has
        released its lease."""
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
        await self.events.close()

    async def drain_queue(self) -> None:
        """Wait until the background worker has handled every queued user (tests, shutdown)."""
        await self._queue.join()

    def _enqueue(self, owner: Owner) -> None:
        if owner not in self._queued:
            self._queued.add(owner)
            self._queue.put_nowait(owner)

    def _retry_later(self, owner: Owner) -> None:
        """Queue the user again after a back-off that doubles with each failure in a row, so a
        failed pass (Neo4j or the LLM down) is retried without waiting for another write."""
        if not self._workers or owner in self._retries:
            return
        failures = self._failures.get(owner, 0) + 1
        self._failures[owner] = failures
        delay = min(
            self.settings.consolidation_retry_s * 2 ** min(failures - 1, 20),
            self.settings.consolidation_retry_max_s,
        )
        log.info("consolidation of %r is retried in %.1f s", owner, delay)
        self._retries[owner] = asyncio.get_running_loop().call_later(delay, self._retry_now, owner)

    def _retry_now(self, owner: Owner) -> None:
        self._retries.pop(owner, None)
        self._enqueue(owner)

    async def _work(self) -> None:
        """One of `worker_concurrency` workers: takes the next queued user no worker is on."""
        while True:
            owner = await self._queue.get()
            try:
                if owner in self._active:
                    # Another worker is on this user: it takes the user again when it is done.
                    self._queued.discard(owner)
                    self._again.add(owner)
                    continue
                self._active.add(owner)
                try:
                    await self._work_on(owner)
                finally:
                    self._active.discard(owner)
                    if owner in self._again:
                        self._again.discard(owner)
                        self._enqueue(owner)  # before task_done, so drain_queue waits for it
            finally:
                self._queue.task_done()

    async def _work_on(self, owner: Owner) -> None:
        try:
            await asyncio.sleep(self.settings.consolidation_delay_s)
            # Writes from here on queue the user again: this pass may not see them.
            self._queued.discard(owner)
            # A lease another process holds is not waited for: its holder looks for pending
            # interactions again when it releases, and the sweeper takes what a crashed holder
            # left once its lease has expired. So no worker idles behind another's lease.
            outcomes = await self.consolidate(owner, wait=True, wait_lease=False)
        except Exception:
            # The interactions stay pending; a retry after a back-off picks them up.
            log.exception("background consolidation failed")
            self._retry_later(owner)
        else:
            if any(o.action == "deferred" for o in outcomes):
                self._retry_later(owner)
            else:
                self._failures.pop(owner, None)

    async def _sweep(self) -> None:
        """Every sweep_interval_s, queue (at most sweep_batch) users whose pending interactions
        nobody works on: left by a restart of Neo4j or of a service, a crashed holder, a failed
        pass, or a bulk load of a user who never writes again."""
        while True:
            await asyncio.sleep(self.settings.sweep_interval_s)
            try:
                await self.sweep_once()
            except Exception:
                log.warning("the sweep for pending interactions failed; trying again", exc_info=True)

    async def sweep_once(self) -> list[Owner]:
        """One pass of the sweeper: queue the users found (counted in `metrics`) and return them."""
        skip = self._queued | self._active | self._retries.keys()
        found = await self.leases.unattended(self.settings.sweep_batch, skip)
        # Then users whose waiting turns' session has ended: their batch merges without a write.
        due = await self.stores.waiting.due_users(
            self.settings.sweep_batch - len(found), self.settings.merge_quiet_seconds, skip | set(found)
        )
        self._due.update(due)
        found += due
        for owner in found:
            self._enqueue(owner)
        self.metrics.swept(len(found))
        if found:
            log.info("the sweep queued %d users with pending interactions", len(found))
        return found

    async def backlog(self) -> Backlog:
        """The interactions still waiting for the gate over the whole database (counts and the
        oldest's age, no user named); also sets the backlog gauges of `metrics` (NaN on failure)."""
        try:
            backlog = await self.leases.backlog()
        except BaseException:
            self.metrics.observe_backlog(None)
            raise
        self.metrics.observe_backlog(backlog)
        # Turns waiting for a batch merge are through the gate, so not pending: counted apart.
        with contextlib.suppress(Exception):
            await self.waiting_backlog()
        return backlog

    async def waiting_backlog(self) -> WaitingBacklog:
        """Turns waiting for their episode's batch merge over the whole database (no user named);
        also sets the waiting gauges of `metrics` (NaN on failure)."""
        try:
            waiting = await self.stores.waiting.backlog()
        except BaseException:
            self.metrics.observe_waiting(None)
            raise
        self.metrics.observe_waiting(waiting)
        return waiting

    # -- read path -----------------------------------------------------------------------------

    async def recall(
        self,
        owner: Owner,
        query: str,
        *,
        budgets: Budgets | None = None,
        tokens: int | None = None,
        as_of: datetime | None = None,
        include_consolidated: bool | None = None,
        lexical: bool = True,
    ) -> Recall:
        """Per-layer hits under `budgets`; with `tokens`, also the assembled context of at most
        that many o200k tokens (consolidation/context.py)."""
        require_owner(owner.tenant, owner.user_id)
        require_text("query", query, self.settings.max_text_bytes)
        require_token_budget(tokens)
        include = self.settings.include_consolidated if include_consolidated is None else include_consolidated
        return await self.recaller.recall(
            owner,
            query,
            budgets or Budgets(),
            as_of=as_of,
            include_consolidated=include,
            lexical=lexical,
            tokens=tokens,
        )

    async def answer(
        self,
        owner: Owner,
        question: str,
        *,
        as_of: datetime | None = None,
        budgets: Budgets | None = None,
        tokens: int | None = None,
    ) -> Answer:
        recall = await self.recall(owner, question, budgets=budgets, tokens=tokens, as_of=as_of)
        return await self.answerer.answer(owner, question, recall)


def _as_stored(owner: Owner, item: NewInteraction, stored: StoredInteraction) -> Interaction:
    """The record a read of the interaction just written would return."""
    return Interaction(
        id=stored.id,
        tenant=owner.tenant,
        user_id=owner.user_id,
        session_id=item.session_id,
        speaker=item.speaker,
        text=item.text,
        occurred_at=item.occurred_at,
        seq=stored.seq,
        consolidated=False,
        source_ref=item.source_ref,
    )
