"""The memory engine: remember (durable at once), consolidate when topics recur, recall, answer."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import TypeVar

from consolidation.beliefs import Beliefs
from consolidation.consolidating.background import Background
from consolidation.consolidating.consolidator import Consolidator
from consolidation.consolidating.events import EventHub, covered_outcome
from consolidation.consolidating.leasing import holder_id, renewing, take_lease
from consolidation.consolidating.pipeline import UnitPipeline
from consolidation.metrics import Metrics
from consolidation.providers.embedders import Embedder
from consolidation.providers.llm.base import LanguageModel
from consolidation.recall.answering import Answerer
from consolidation.recall.filters import scope_filter
from consolidation.recall.planning import Plan, plan_question
from consolidation.recall.planning.llm import LLMPlanner
from consolidation.recall.recaller import Recaller
from consolidation.recall.sentences import embed_writes
from consolidation.settings import EngineSettings
from consolidation.stores import Stores
from consolidation.times import aware
from consolidation.types import Answer, Budgets, ConsolidationOutcome, Recall, RecallFilters, Remembered, Unit
from consolidation.writing.checks import CheckedBatch, check_batch
from consolidation.writing.parts import new_parts, part_spans, part_texts
from consolidation.writing.user_locks import UserLocks
from consolidation.writing.write_groups import WriteGroups
from graph.database import Database
from graph.leases import Backlog
from graph.models import Interaction, NewInteraction, Owner, StoredInteraction, utc_offset_s
from graph.validation import require_min_score, require_owner, require_text, require_token_budget
from graph.waiting import WaitingBacklog

log = logging.getLogger(__name__)
PENDING_BATCH = 200
# How often a write that waits for another pass to cover it reads back what that pass did.
COVER_POLL_S = 0.05
COVER_POLL_MAX_S = 1.0
# Whom such a write waited for, as its DEFERRED outcome says when the budget ran out.
WAITED_LOCAL = "the pass of this engine already running for this user"
WAITED_LEASE = "the pass of another holder of this user's consolidation lease (another process or engine)"
R = TypeVar("R")


class MemoryEngine:
    """One per process. Consolidation for a user runs under a lease held in Neo4j, so any number of
    engines (threads, processes, hosts) can share one database without duplicate episodes."""

    def __init__(
        self,
        stores: Stores | Database,
        embedder: Embedder,
        consolidator: Consolidator,
        settings: EngineSettings,
        *,
        metrics: Metrics | None = None,
        planner_model: LanguageModel | None = None,
    ) -> None:
        """Over `stores` shared with the service's other parts (consolidation/assembly.py), or,
        given a bare database, over stores of its own. `planner_model`: the endpoint the LLM
        planner calls (RECMEM_PLANNER=llm refuses to start without one: PlannerConfigError)."""
        self.llm_planner = _llm_planner(settings, planner_model)
        # Counters and backlog gauges of this engine, in its own registry (GET /metrics).
        self.metrics = metrics or Metrics()
        if isinstance(stores, Database):
            stores = Stores.open(
                stores,
                embedder.dimension,
                on_takeover=self.metrics.lease_taken_over,
                vector_cache_bytes=settings.vector_cache_mb * 2**20,
            )
        self.stores = stores
        self.db = stores.db
        self.embedder = embedder
        self.consolidator = consolidator
        self.settings = settings
        self.holder = holder_id()
        self.writes = WriteGroups(stores.interactions, settings.group_commit_wait_ms / 1000)
        self.leases = stores.leases
        self.pipeline = UnitPipeline(stores, embedder, consolidator, settings, metrics=self.metrics)
        self.recaller = Recaller(
            stores,
            embedder,
            focus=settings.context_focus,
            dates=settings.context_dates,
            relevance=settings.context_relevance,
            dense_floor=settings.resolved_theta_sim,
        )
        self.answerer = Answerer(consolidator, self.stores.consolidations)
        # Subscribers hear this engine's outcomes at once, other processes' through the database.
        self.events = EventHub(stores.events, self.holder, settings.event_poll_s, self.metrics.registry)
        # The database lease is re-entrant for its holder, so coroutines of this one engine
        # also queue on a local lock per user (kept while someone holds or waits for it).
        self._locks = UserLocks()
        self.background = Background(self._background_pass, stores, settings, self.metrics)
        # Corrections, retractions and facts added by hand, under the same user lease.
        self.beliefs = Beliefs(stores, embedder, settings)

    # -- write path ----------------------------------------------------------------------------

    async def remember(self, owner: Owner, unit: Unit, *, consolidate: bool | None = None) -> Remembered:
        return (await self.remember_batch(owner, [unit], consolidate=consolidate))[0]

    async def remember_batch(
        self, owner: Owner, batch: Sequence[Unit] | CheckedBatch, *, consolidate: bool | None = None
    ) -> list[Remembered]:
        """Check (unless `batch` was checked already), embed (one batched call), write durably:
        that is the acknowledgement. Then consolidate inline, or hand the user to the background
        worker."""
        units = self._checked(owner, batch).units
        # Embedded with speaker and time (consolidation/providers/embedding_template.py), stored as sent.
        # Its sentences too, bare, for focusing a context on a query (consolidation/recall/sentences.py).
        render = self.settings.template.render
        # Concurrent writes of this process share a transaction (consolidation/writing/write_groups.py);
        # this one is checked in full before it joins, so its input cannot fail the others.
        with self.writes.arriving():
            spans = [part_spans(u.text) for u in units]
            vectors, sentence_vectors, part_vectors = await embed_writes(
                self.embedder,
                [render(u.text, u.speaker, u.occurred_at) for u in units],
                [u.text for u in units],
                [
                    [render(t, u.speaker, u.occurred_at) for t in part_texts(u.text, s)]
                    for u, s in zip(units, spans, strict=True)
                ],
            )
            items = [
                NewInteraction(
                    speaker=u.speaker,
                    text=u.text,
                    occurred_at=u.occurred_at,
                    embedding=vector,
                    session_id=u.session_id,
                    source_ref=u.source_ref,
                    agent_id=u.agent_id,
                    metadata=u.metadata or None,
                    sentence_vectors=packed,
                    parts=new_parts(span, found),
                )
                for u, vector, packed, span, found in zip(
                    units, vectors, sentence_vectors, spans, part_vectors, strict=True
                )
            ]
            prepared = self.stores.interactions.prepare(owner, items)
        stored = await self.writes.write(prepared)
        outcomes = await self._after_write(owner, consolidate, [s.id for s in stored])
        decided = _by_interaction(outcomes)
        # An episode's consolidated ids include the trigger that created or merged it.
        changed = {i for o in outcomes for i in o.consolidated_ids}
        return [
            Remembered(
                s.id,
                s.seq,
                s.created,
                decided.get(s.id),
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
            self.background.enqueue(owner)
            return []
        budget = self.settings.inline_consolidation_budget_s
        outcomes: list[ConsolidationOutcome] = []
        blocked: list[str] = []
        try:
            # The write is durable already: a long pass (a backlog left by bulk loads, a slow
            # LLM) must not turn its acknowledgement into a timeout. Cancelling the pass is safe:
            # each consolidation commits in one transaction, and wait_for returns only once the
            # cancelled pass has given its lease back.
            await asyncio.wait_for(self._cover(owner, written, outcomes, blocked), budget)
        except TimeoutError:
            self.metrics.failed("timeout")
            log.warning("inline consolidation passed its %.0f s budget; the rest stays pending", budget)
            why = f"inline consolidation passed its {budget:g} s budget"
            if blocked:
                why += f" waiting for {blocked[-1]}"
            self._defer(owner, written, outcomes, why)
        except Exception as error:
            # Neo4j gone mid-pass, an embedder down, a bug: the write is committed all the same,
            # and reporting it as failed would make the caller store it twice. The pass released
            # its lease; what it did not decide stays pending.
            self.metrics.failed(error)
            log.exception("inline consolidation failed after the write; the rest stays pending")
            self._defer(owner, written, outcomes, f"inline consolidation failed ({type(error).__name__})")
        return outcomes

    async def _cover(
        self, owner: Owner, written: list[str], outcomes: list[ConsolidationOutcome], blocked: list[str]
    ) -> None:
        """Until a pass has decided on every interaction of `written`: run one, or, while another
        pass has the user (a worker of this engine, or the lease holder of another process), read
        back what that pass did to them, polling with a growing delay (the caller bounds the time).
        Each wait appends to `blocked` who held the user."""
        delay = COVER_POLL_S
        busy = self._locks.busy(owner)
        ran = await self._consolidate_into(owner, False, outcomes)
        while not await self._read_back(owner, written, outcomes):
            if ran and any(o.action == "deferred" for o in outcomes):
                # This engine's own pass stopped at a decision it deferred: the rest waits for a retry.
                reason = next(o.error for o in outcomes if o.action == "deferred")
                self._defer(owner, written, outcomes, f"the pass stopped at a deferred decision ({reason})")
                return
            if not ran:
                blocked.append(WAITED_LOCAL if busy else WAITED_LEASE)
            await asyncio.sleep(delay)
            delay = min(2 * delay, COVER_POLL_MAX_S)
            # The other pass may have decided meanwhile: read that before trying for the lease.
            if await self._read_back(owner, written, outcomes):
                return
            busy = self._locks.busy(owner)
            ran = await self._consolidate_into(owner, False, outcomes)

    async def _read_back(
        self, owner: Owner, written: list[str], outcomes: list[ConsolidationOutcome]
    ) -> bool:
        """Append what passes (of any process) decided on the interactions of `written` that
        `outcomes` does not cover yet; True when none is left undecided (an erased one neither)."""
        undecided = [i for i in written if i not in _by_interaction(outcomes)]
        if not undecided:
            return True
        covered = await self.stores.events.covering(owner, undecided)
        outcomes += [o for c in covered if (o := covered_outcome(c)) is not None]
        decided = _by_interaction(outcomes)
        return all(c.interaction_id in decided for c in covered)

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
        self.background.retry_later(owner)  # the background worker, when it runs, finishes the rest

    def _checked(self, owner: Owner, batch: Sequence[Unit] | CheckedBatch) -> CheckedBatch:
        """A batch the API checked for this user within this engine's limit is taken as it is."""
        limit = self.settings.max_text_bytes
        if isinstance(batch, CheckedBatch):
            if batch.owner == owner and batch.max_text_bytes <= limit:
                return batch
            batch = batch.units
        return check_batch(owner, batch, limit)

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
    ) -> bool:
        """Appends each decision as it is made, so a caller that cancels still sees them; True
        when this call held the lease (and so ran a pass).

        The lease is released exactly once per acquisition, before this returns or raises, on
        every path: done, failed, or cancelled at any await (a caller's budget, a shutdown).
        """
        if self._locks.busy(owner) and not wait:
            return False
        lease_wait = wait if wait_lease is None else wait_lease
        ran = False
        async with self._locks.hold(owner):
            while await self._acquire(owner, lease_wait):
                ran = True
                start = len(outcomes)
                try:
                    async with renewing(self.leases, owner, self.holder, self.settings.lease_seconds):
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
        return ran

    async def _acquire(self, owner: Owner, wait: bool) -> bool:
        return await take_lease(self.leases, owner, self.holder, self.settings.lease_seconds, wait=wait)

    async def _release(self, owner: Owner, drained: list[ConsolidationOutcome]) -> bool:
        """Give the lease back, marking what the gate found no recurrence for; True when
        interactions are still pending."""
        checked = [o.trigger_id for o in drained if o.action == "none"]
        return await self.leases.release(owner, self.holder, checked)

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
        due = self.background.take_due(owner)
        if flush or self.settings.merge_batch > 1 or due:
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

    # -- background worker (consolidation/consolidating/background.py) -------------------------------

    def start(self) -> None:
        if self.settings.consolidation_mode == "background":
            self.background.start()

    async def stop(self) -> None:
        """Stop the workers, the sweeper, the event feeds and recall's vector reads; every pass
        that was running has released its lease."""
        await self.background.stop()
        await self.events.close()
        await self.stores.search.vectors.stop()

    async def drain_queue(self) -> None:
        """Wait until the background worker has handled every queued user (tests, shutdown)."""
        await self.background.drain()

    async def sweep_once(self) -> list[Owner]:
        """One pass of the sweeper: queue the users found (counted in `metrics`) and return them."""
        return await self.background.sweep_once()

    async def _background_pass(self, owner: Owner) -> list[ConsolidationOutcome]:
        # A lease another process holds is not waited for: its holder looks for pending
        # interactions again when it releases, and the sweeper takes what a crashed holder
        # left once its lease has expired. So no worker idles behind another's lease.
        return await self.consolidate(owner, wait=True, wait_lease=False)

    async def backlog(self) -> Backlog:
        """The interactions still waiting for the gate over the whole database (counts and the
        oldest's age, no user named); also sets the backlog gauges of `metrics` (NaN on failure)."""
        backlog = await _observed(self.leases.backlog(), self.metrics.observe_backlog)
        # Turns waiting for a batch merge are through the gate, so not pending: counted apart.
        with contextlib.suppress(Exception):
            await self.waiting_backlog()
        return backlog

    async def waiting_backlog(self) -> WaitingBacklog:
        """Turns waiting for their episode's batch merge over the whole database (no user named);
        also sets the waiting gauges of `metrics` (NaN on failure)."""
        return await _observed(self.stores.waiting.backlog(), self.metrics.observe_waiting)

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
        filters: RecallFilters | None = None,
        min_score: float | None = None,
        asked_at: datetime | None = None,
    ) -> Recall:
        """Per-layer hits under `budgets`; with `tokens`, also the assembled context of at most
        that many o200k tokens (consolidation/recall/context.py). `filters` narrows every layer
        inside the store's statements (docs/scopes.md#filters); `min_score`: only hits (and
        context items) whose rank score reaches it. The planner reads the query first, relative
        dates against `asked_at` (default: now; consolidation/recall/planning/)."""
        require_owner(owner.tenant, owner.user_id)
        require_text("query", query, self.settings.max_text_bytes)
        require_token_budget(tokens)
        require_min_score(min_score)
        scope = scope_filter(filters)
        # Its own offset kept: the planner reads relative dates in the asker's calendar.
        asked = datetime.now(UTC) if asked_at is None else aware(asked_at)
        plan = await self._plan(query, asked)
        include = self.settings.include_consolidated if include_consolidated is None else include_consolidated
        return await self.recaller.recall(
            owner,
            query,
            budgets or Budgets(),
            as_of=as_of,
            include_consolidated=include,
            lexical=lexical,
            tokens=tokens,
            scope=scope,
            min_score=min_score,
            plan=plan,
            asked_at=asked,
        )

    async def _plan(self, query: str, asked: datetime) -> Plan | None:
        if self.settings.planner == "off":
            return None
        if self.llm_planner is not None:
            return await self.llm_planner.plan(query, asked)
        return plan_question(query, asked)

    async def answer(
        self,
        owner: Owner,
        question: str,
        *,
        as_of: datetime | None = None,
        budgets: Budgets | None = None,
        tokens: int | None = None,
        filters: RecallFilters | None = None,
        min_score: float | None = None,
        asked_at: datetime | None = None,
    ) -> Answer:
        require_text("question", question, self.settings.max_text_bytes)  # named as the caller sent it
        recall = await self.recall(
            owner,
            question,
            budgets=budgets,
            tokens=tokens,
            as_of=as_of,
            filters=filters,
            min_score=min_score,
            asked_at=asked_at,
        )
        return await self.answerer.answer(owner, question, recall, asked_at)


class PlannerConfigError(ValueError):
    """RECMEM_PLANNER=llm with no LLM endpoint configured."""


def _llm_planner(settings: EngineSettings, model: LanguageModel | None) -> LLMPlanner | None:
    if settings.planner != "llm":
        return None
    if model is None:
        raise PlannerConfigError(
            "RECMEM_PLANNER=llm needs an LLM endpoint (RECMEM_LLM_BASE_URL and/or RECMEM_LLM_API_KEY); "
            "set RECMEM_PLANNER=rules to plan without one"
        )
    return LLMPlanner(model, settings.planner_timeout_s)


async def _observed(read: Awaitable[R], observe: Callable[[R | None], None]) -> R:
    """What `read` returns, passed to `observe` on the way; a read that fails is observed as None."""
    try:
        found = await read
    except BaseException:
        observe(None)
        raise
    observe(found)
    return found


def _by_interaction(outcomes: Sequence[ConsolidationOutcome]) -> dict[str, ConsolidationOutcome]:
    """The decision on each interaction: the one it triggered or the one that absorbed it,
    whichever came last."""
    found: dict[str, ConsolidationOutcome] = {}
    for outcome in outcomes:  # in the order decided: a later decision (an absorption) stands
        found |= dict.fromkeys([outcome.trigger_id, *outcome.consolidated_ids], outcome)
    return found


def _as_stored(owner: Owner, item: NewInteraction, stored: StoredInteraction) -> Interaction:
    """The record a read of the interaction just written would return."""
    return Interaction(
        id=stored.id,
        tenant=owner.tenant,
        user_id=owner.user_id,
        session_id=item.session_id,
        speaker=item.speaker,
        text=item.text,
        occurred_at=item.occurred_at.astimezone(UTC),
        seq=stored.seq,
        consolidated=False,
        source_ref=item.source_ref,
        agent_id=item.agent_id,
        metadata=dict(item.metadata) if item.metadata else None,
        utc_offset_s=utc_offset_s(item.occurred_at),
    )
