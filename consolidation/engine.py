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
from consolidation.pipeline import Stores, UnitPipeline
from consolidation.recall import Recaller
from consolidation.settings import EngineSettings
from consolidation.types import Answer, Budgets, ConsolidationOutcome, Recall, Remembered, Unit
from graph.consolidations import ConsolidationStore
from graph.database import Database
from graph.episodes import EpisodeStore
from graph.errors import InvalidInput
from graph.facts import FactStore
from graph.interactions import InteractionStore
from graph.leases import LeaseStore
from graph.models import Interaction, NewInteraction, Owner, StoredInteraction
from graph.recall import RecallSearch
from graph.validation import require_owner, require_text

log = logging.getLogger(__name__)
PENDING_BATCH = 200
LEASE_POLL_S = 0.05


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
        )
        self.leases = LeaseStore(db)
        search = RecallSearch(db, embedder.dimension)
        self.pipeline = UnitPipeline(self.stores, search, embedder, consolidator, settings)
        self.recaller = Recaller(self.stores, search, embedder)
        self.answerer = Answerer(self.recaller, consolidator, self.stores.consolidations)
        self.events = EventHub()
        self._queue: asyncio.Queue[Owner] = asyncio.Queue()
        # Users in the queue: a user is queued once however many writes arrive before its pass.
        self._queued: set[Owner] = set()
        # The database lease is re-entrant for its holder, so coroutines of this one engine
        # also queue on a local lock per user.
        self._locks: dict[Owner, asyncio.Lock] = {}
        self._worker: asyncio.Task[None] | None = None

    # -- write path ----------------------------------------------------------------------------

    async def remember(self, owner: Owner, unit: Unit, *, consolidate: bool | None = None) -> Remembered:
        return (await self.remember_batch(owner, [unit], consolidate=consolidate))[0]

    async def remember_batch(
        self, owner: Owner, units: list[Unit], *, consolidate: bool | None = None
    ) -> list[Remembered]:
        """Validate, embed (one batched call), write durably: that is the acknowledgement. Then
        consolidate inline, or hand the user to the background worker."""
        self._validate(owner, units)
        vectors = await self.embedder.embed([u.text for u in units])
        items = [
            NewInteraction(
                speaker=u.speaker,
                text=u.text,
                occurred_at=u.occurred_at,
                embedding=vector,
                session_id=u.session_id,
                source_ref=u.source_ref,
            )
            for u, vector in zip(units, vectors, strict=True)
        ]
        stored = await self.stores.interactions.write_batch(owner, items)
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
            if owner not in self._queued:
                self._queued.add(owner)
                self._queue.put_nowait(owner)
            return []
        budget = self.settings.inline_consolidation_budget_s
        outcomes: list[ConsolidationOutcome] = []
        try:
            # The write is durable already: a long pass (a backlog left by bulk loads, a slow
            # LLM) must not turn its acknowledgement into a timeout. Cancelling the pass is safe:
            # each consolidation commits in one transaction and the lease is released.
            await asyncio.wait_for(self._consolidate_into(owner, True, outcomes), budget)
        except TimeoutError:
            log.warning("inline consolidation passed its %.0f s budget; the rest stays pending", budget)
            reason = f"inline consolidation passed its {budget:g} s budget; it stays pending"
            decided = {o.trigger_id for o in outcomes} | {i for o in outcomes for i in o.consolidated_ids}
            outcomes += [
                ConsolidationOutcome(trigger_id=i, action="deferred", error=reason)
                for i in written
                if i not in decided
            ]
        return outcomes

    def _validate(self, owner: Owner, units: list[Unit]) -> None:
        require_owner(owner.tenant, owner.user_id)
        if not units:
            raise InvalidInput("nothing to remember: the batch is empty")
        for index, unit in enumerate(units):
            require_text(f"interaction {index} text", unit.text, self.settings.max_text_bytes)

    # -- consolidation -------------------------------------------------------------------------

    async def consolidate(self, owner: Owner, *, wait: bool = False) -> list[ConsolidationOutcome]:
        """Run the gate for every interaction of this user that has not been through it yet.

        Only the lease holder works; others return at once (or, with `wait`, queue behind it).
        After releasing, the holder looks again, because a writer that found the lease taken
        relies on the holder to pick up its interaction.
        """
        outcomes: list[ConsolidationOutcome] = []
        await self._consolidate_into(owner, wait, outcomes)
        return outcomes

    async def _consolidate_into(self, owner: Owner, wait: bool, outcomes: list[ConsolidationOutcome]) -> None:
        """Appends each decision as it is made, so a caller that cancels still sees them."""
        lock = self._locks.setdefault(owner, asyncio.Lock())
        if lock.locked() and not wait:
            return
        async with lock:
            while await self._acquire(owner, wait):
                start = len(outcomes)
                try:
                    await self._drain(owner, outcomes)
                finally:
                    drained = outcomes[start:]
                    checked = [o.trigger_id for o in drained if o.action == "none"]
                    # Shielded: a caller's timeout must not leave the lease held until it expires.
                    pending = await asyncio.shield(self.leases.release(owner, self.holder, checked))
                if any(o.action == "deferred" for o in drained) or not pending:
                    break
                wait = False

    async def _acquire(self, owner: Owner, wait: bool) -> bool:
        deadline = asyncio.get_running_loop().time() + self.settings.lease_seconds
        delay = LEASE_POLL_S
        while not await self.leases.acquire(owner, self.holder, self.settings.lease_seconds):
            if not wait or asyncio.get_running_loop().time() > deadline:
                return False
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)
        return True

    async def _drain(self, owner: Owner, outcomes: list[ConsolidationOutcome]) -> None:
        """Gate every pending interaction, appending to `outcomes` as it goes (so that what was
        decided before a failure still counts)."""
        done: set[str] = set()
        pending = await self.stores.interactions.pending(owner, PENDING_BATCH)
        # A full batch may hide more pending interactions behind it: count them as possible followers.
        hidden = PENDING_BATCH if len(pending) == PENDING_BATCH else 0
        for index, (unit, vector) in enumerate(pending):
            if unit.id in done:
                continue  # already absorbed as a neighbour earlier in this pass
            later = len(pending) - index - 1 + hidden
            outcome = await self.pipeline.run(owner, unit, vector, self.holder, later)
            self.events.publish(owner, outcome)
            outcomes.append(outcome)
            done.update(outcome.consolidated_ids)
            if outcome.action == "deferred":
                log.warning("consolidation deferred for one interaction: %s", outcome.error)
                break

    def subscribe(self, owner: Owner) -> AsyncIterator[ConsolidationOutcome]:
        return self.events.subscribe(owner)

    # -- background worker ---------------------------------------------------------------------

    def start(self) -> None:
        if self.settings.consolidation_mode == "background" and self._worker is None:
            self._worker = asyncio.create_task(self._work(), name="recmem-consolidation")

    async def stop(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
            self._queued.clear()

    async def drain_queue(self) -> None:
        """Wait until the background worker has handled every queued user (tests, shutdown)."""
        await self._queue.join()

    async def _work(self) -> None:
        while True:
            owner = await self._queue.get()
            try:
                await asyncio.sleep(self.settings.consolidation_delay_s)
                # Writes from here on queue the user again: this pass may not see them.
                self._queued.discard(owner)
                await self.consolidate(owner, wait=True)
            except Exception:
                # The interactions stay pending; the next write or pass retries them.
                log.exception("background consolidation failed")
            finally:
                self._queue.task_done()

    # -- read path -----------------------------------------------------------------------------

    async def recall(
        self,
        owner: Owner,
        query: str,
        *,
        budgets: Budgets | None = None,
        as_of: datetime | None = None,
        include_consolidated: bool | None = None,
        lexical: bool = True,
    ) -> Recall:
        require_owner(owner.tenant, owner.user_id)
        require_text("query", query, self.settings.max_text_bytes)
        include = self.settings.include_consolidated if include_consolidated is None else include_consolidated
        return await self.recaller.recall(
            owner, query, budgets or Budgets(), as_of=as_of, include_consolidated=include, lexical=lexical
        )

    async def answer(
        self, owner: Owner, question: str, *, as_of: datetime | None = None, budgets: Budgets | None = None
    ) -> Answer:
        recall = await self.recall(owner, question, budgets=budgets, as_of=as_of)
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
