"""Consolidates one interaction: merge-first, else the recurrence gate, then semantic refinement.

Merge-first is recurrence-gated: a turn close enough to a current episode waits for it (raw and
recallable), and the episode absorbs its waiting turns in one merge once `merge_batch` of them have
gathered, their session has ended, or a consolidate asks for everything (`flush`).

Every LLM result is collected first and written in one transaction at the end, so a failure at
any step leaves the interaction unconsolidated (and eligible again), never a half-written episode;
the turns of a failed batch merge are still waiting.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from dataclasses import replace
from datetime import datetime
from typing import TypeVar

from consolidation.consolidating.consolidator import (
    Consolidator,
    EpisodeInput,
    ExistingFact,
    MergeInput,
    RefineInput,
)
from consolidation.consolidating.products import episode_write, fact_writes
from consolidation.consolidating.retractions import RETRACTED_FACTS, shown, without_retracted
from consolidation.consolidating.runs import failed_run, run_record, with_products
from consolidation.metrics import Metrics
from consolidation.providers.embedders import Embedder
from consolidation.providers.llm.types import LLMError, LLMResult, Usage
from consolidation.salience import detector_for
from consolidation.settings import EngineSettings
from consolidation.stores import Stores
from consolidation.types import ConsolidationOutcome
from consolidation.writing.adaptive import recurrence_score, updated
from consolidation.writing.gate import GateDecision, RecurrenceGate, in_time_order
from consolidation.writing.turns import to_turn
from graph.errors import LeaseLost
from graph.models import (
    ConsolidationWrite,
    Episode,
    EpisodeWrite,
    Fact,
    Hit,
    Interaction,
    Owner,
    RunWrite,
)
from graph.thresholds import ThresholdEstimate
from graph.waiting import Waiting, WaitingGroup

T = TypeVar("T")
RELATED_FACTS = 10
RECURRENCE = "recurrence"
SALIENCE = "salience"


class Deferred(Exception):
    """The unit could not be consolidated now (LLM failure, lost lease); it stays eligible."""


class UnitPipeline:
    def __init__(
        self,
        stores: Stores,
        embedder: Embedder,
        consolidator: Consolidator,
        settings: EngineSettings,
        *,
        metrics: Metrics | None = None,
    ) -> None:
        self.stores = stores
        self.search = stores.search
        self.embedder = embedder
        self.consolidator = consolidator
        self.settings = settings
        self.metrics = metrics
        self.waiting = stores.waiting
        self.gate = RecurrenceGate(
            settings.theta_sim_for(embedder.name), settings.resolved_theta_count, settings.resolved_gate_top_k
        )
        self.salience = detector_for(settings.salience)

    async def run(
        self, owner: Owner, unit: Interaction, vector: list[float], holder: str, later: int = 0
    ) -> ConsolidationOutcome:
        """`later`: how many unconsolidated interactions may follow this one in the stream; the gate
        reads that many more candidates so that the top predecessors are all among them."""
        try:
            # One read serves both steps: the nearest current episode (merge-first) and the
            # unit's unconsolidated neighbours (the gate).
            found = await self.search.candidates(
                owner,
                vector,
                None,
                interactions=self.gate.top_k + 1 + later,
                episodes=1,
                facts=0,
                include_consolidated=False,
                # Recurrence compares turns by their own vectors, long ones too (not their parts).
                parts=False,
            )
            salient = await self._salient(unit, vector)
            gate = await self._gate_for(owner, unit, found.interactions.dense, holder)
            target = self._merge_target(found.episodes.dense)
            if target is not None:
                joined = await self._join(owner, unit, target, holder, salient)
                if joined is not None:
                    return joined
            outcome = await self._recurrence(owner, unit, found.interactions.dense, holder, salient, gate)
            # A merge the LLM refused was a call too.
            refused = 1 if target is not None else 0
            return replace(outcome, llm_calls=outcome.llm_calls + refused)
        except (Deferred, LeaseLost) as error:
            return self._deferred(unit.id, error)

    async def _salient(self, unit: Interaction, vector: list[float]) -> str | None:
        """The salience rule that fires on `unit`, if salience is on."""
        if self.salience is None:
            return None
        return await self.salience.check(self.embedder, unit.speaker, unit.text, vector)

    async def _gate_for(
        self, owner: Owner, unit: Interaction, candidates: list[Hit[Interaction]], holder: str
    ) -> RecurrenceGate:
        """The fixed gate, or, with adaptive thresholds, one at the user's current estimate, which
        this unit's recurrence score then updates."""
        if not self.settings.adaptive_thresholds:
            return self.gate
        estimate = await self.stores.thresholds.read(owner) or ThresholdEstimate(self.gate.theta_sim, 0)
        score = recurrence_score(unit, candidates, self.gate.theta_count)
        if score is not None:
            await self.stores.thresholds.write(
                owner, updated(estimate, score, self.settings.adaptive_target), holder
            )
        return replace(self.gate, theta_sim=estimate.theta_sim)

    def _deferred(self, trigger_id: str, error: Deferred | LeaseLost) -> ConsolidationOutcome:
        if self.metrics is not None:
            self.metrics.failed("lease_lost" if isinstance(error, LeaseLost) else "llm")
        return ConsolidationOutcome(trigger_id=trigger_id, action="deferred", error=str(error))

    # -- merge-first, gated by recurrence ------------------------------------------------------

    async def _join(
        self, owner: Owner, unit: Interaction, target: Hit[Episode], holder: str, salient: str | None
    ) -> ConsolidationOutcome | None:
        """Wait for the episode, or, as the `merge_batch`-th turn waiting for it (or a salient
        one), merge them all. None when the LLM refused the merge: the turns waiting stop waiting,
        `unit` meets the gate."""
        episode, similarity = target.item, target.score
        batch = self.settings.merge_batch
        # merge_batch 1 is the per-turn merge: no turn ever waits, so nothing to read.
        waiting = await self.waiting.for_episode(owner, episode.id) if batch > 1 else []
        rule = None
        if len(waiting) + 1 < batch:
            if salient is None:
                await self.waiting.mark(owner, unit.id, episode.id, similarity, holder)
                return ConsolidationOutcome(trigger_id=unit.id, action="none", waiting_for=episode.id)
            rule = salient
        joined = [*waiting, Waiting(unit, similarity)]
        merged = await self._merge(owner, unit, episode, joined, holder, rule)
        if merged is None and waiting:
            await self.waiting.release(owner, [w.turn.id for w in waiting], holder, regate=False)
        return merged

    async def _merge(
        self,
        owner: Owner,
        trigger: Interaction,
        episode: Episode,
        joined: list[Waiting],
        holder: str,
        rule: str | None = None,
    ) -> ConsolidationOutcome | None:
        """One merge_episode call over every joining turn, then refine_facts, then one commit.
        None when the LLM refused (its run is recorded); raises Deferred when a call failed.
        `rule`: the salience rule that called the merge before its batch was full."""
        turns = in_time_order([w.turn for w in joined])
        merge_input = MergeInput(
            episode_summary=episode.summary,
            episode_first_at=episode.first_at,
            episode_last_at=episode.last_at,
            new_turns=[to_turn(t) for t in turns],
        )
        read = [episode.id, *(t.id for t in turns)]
        result = await self._call(
            owner, "merge_episode", trigger.id, read, self.consolidator.decide_merge(merge_input)
        )
        run = self._run(
            "merge_episode", result.usage, trigger.id, read, len(turns), self._merge_threshold, rule
        )
        decision = result.value
        if not decision.continues or not decision.summary:
            await self.stores.consolidations.record_runs(owner, [run])
            return None
        # The new version holds from the newest turn it absorbed (the merged turn, for one).
        at = turns[-1].occurred_at
        new_version = await episode_write(
            self.embedder,
            episode.title,
            decision.summary,
            run.id,
            [(w.turn.id, w.similarity) for w in joined],
            first_at=min(episode.first_at, turns[0].occurred_at),
            last_at=max(episode.last_at, at),
            valid_from=at,
            previous_id=episode.id,
        )
        return await self._refine_and_commit(
            owner, trigger, turns, new_version, run, holder, episode, at, rule
        )

    @property
    def _merge_threshold(self) -> float:
        # Read per decision: a test may change the engine's settings after it was built.
        return self.settings.merge_threshold_for(self.embedder.name)

    def _merge_target(self, hits: list[Hit[Episode]]) -> Hit[Episode] | None:
        """The nearest current episode when it is close enough to ask the LLM for a merge."""
        if not hits or hits[0].score < self._merge_threshold:
            return None
        return hits[0]

    async def flush(
        self, owner: Owner, holder: str, *, everything: bool
    ) -> AsyncIterator[ConsolidationOutcome]:
        """Merge every group of waiting turns that is due (all of them with `everything`), one
        outcome per group; stops after a deferred one (its turns stay waiting)."""
        found = await self.waiting.groups(
            owner,
            batch=self.settings.merge_batch,
            quiet_s=self.settings.merge_quiet_seconds,
            everything=everything,
        )
        due = [g for g in found.groups if g.due]
        for group in due:
            outcome = await self._flush_group(owner, group, holder)
            yield outcome
            if outcome.action == "deferred":
                return
        if found.flagged and len(due) == len(found.groups):
            await self.waiting.settle(owner)

    async def _flush_group(self, owner: Owner, group: WaitingGroup, holder: str) -> ConsolidationOutcome:
        newest = group.turns[-1].turn
        ids = [w.turn.id for w in group.turns]
        try:
            if group.episode is None:
                # The episode was forgotten meanwhile: the turns meet the gate again.
                await self.waiting.release(owner, ids, holder, regate=True)
                return ConsolidationOutcome(trigger_id=newest.id, action="none")
            merged = await self._merge(owner, newest, group.episode, group.turns, holder)
            if merged is None:
                await self.waiting.release(owner, ids, holder, regate=False)
                return ConsolidationOutcome(trigger_id=newest.id, action="none", llm_calls=1)
            return merged
        except (Deferred, LeaseLost) as error:
            return self._deferred(newest.id, error)

    # -- recurrence gate -----------------------------------------------------------------------

    async def _recurrence(
        self,
        owner: Owner,
        unit: Interaction,
        candidates: list[Hit[Interaction]],
        holder: str,
        salient: str | None,
        gate: RecurrenceGate,
    ) -> ConsolidationOutcome:
        """`gate` decides; a salient unit the gate turned down gets its episode all the same,
        from itself and whatever similar predecessors it found."""
        decision = gate.decide(unit, candidates)
        if decision.open and decision.neighbors:
            # Turns waiting for an episode have a topic already: they are no recurring neighbours.
            waiting = await self.waiting.among(owner, [h.item.id for h in decision.neighbors])
            if waiting:
                decision = gate.decide(unit, [h for h in candidates if h.item.id not in waiting])
        if not decision.open:
            if salient is not None:
                return await self._create(owner, unit, decision, holder, salient)
            # The caller marks it as gated when it releases the lease (one write per pass).
            return ConsolidationOutcome(trigger_id=unit.id, action="none")
        return await self._create(owner, unit, decision, holder)

    async def _create(
        self, owner: Owner, unit: Interaction, decision: GateDecision, holder: str, rule: str | None = None
    ) -> ConsolidationOutcome:
        turns = in_time_order([h.item for h in decision.neighbors] + [unit])
        read = [t.id for t in turns]
        draft = self.consolidator.create_episode(EpisodeInput(turns=[to_turn(t) for t in turns]))
        result = await self._call(owner, "create_episode", unit.id, read, draft)
        run = self._run(
            "create_episode", result.usage, unit.id, read, len(decision.neighbors), decision.threshold, rule
        )
        sources = [(h.item.id, h.score) for h in decision.neighbors] + [(unit.id, 1.0)]
        episode = await episode_write(
            self.embedder,
            result.value.title,
            result.value.summary,
            run.id,
            sources,
            first_at=turns[0].occurred_at,
            last_at=turns[-1].occurred_at,
            valid_from=turns[0].occurred_at,
        )
        return await self._refine_and_commit(
            owner, unit, turns, episode, run, holder, None, unit.occurred_at, rule
        )

    # -- semantic refinement and the single commit ---------------------------------------------

    async def _refine_and_commit(
        self,
        owner: Owner,
        unit: Interaction,
        turns: list[Interaction],
        episode: EpisodeWrite,
        episode_run: RunWrite,
        holder: str,
        previous: Episode | None,
        at: datetime,
        rule: str | None = None,
    ) -> ConsolidationOutcome:
        related = await self._related_facts(owner, episode.embedding)
        # Retracted facts resting on what this consolidation rests on are not to be restated.
        retracted = await self.stores.beliefs.retracted_among(
            owner, [t.id for t in turns], previous.id if previous else None, RETRACTED_FACTS
        )
        refine_input = RefineInput(
            episode_summary=episode.summary,
            turns=[to_turn(t) for t in turns],
            existing_facts=[
                ExistingFact(id=f.id, text=f.text, kind=f.kind, valid_from=f.valid_from) for f in related
            ],
            retracted_facts=shown(retracted),
        )
        read = [episode.id, *(t.id for t in turns), *(f.id for f in related)]
        try:
            result = await self._call(
                owner, "refine_facts", unit.id, read, self.consolidator.refine_facts(refine_input)
            )
        except Deferred:
            # The episode's call was made and answered, so it is accounted for; its product was
            # never written, which its status says.
            discarded = replace(episode_run, status="discarded", error="refine_facts failed")
            await self.stores.consolidations.record_runs(owner, [discarded])
            raise
        refine_run = self._run("refine_facts", result.usage, unit.id, read, len(turns), None, rule)
        drafts = without_retracted(result.value, retracted)
        facts = await fact_writes(self.embedder, drafts, turns, {f.id for f in related}, unit)
        write = ConsolidationWrite(
            episode=episode,
            facts=facts,
            runs=[with_products(episode_run, [episode.id]), with_products(refine_run, [f.id for f in facts])],
            consolidated_ids=[t.id for t in turns],
            at=at,
            facts_run_id=refine_run.id,
            lease_holder=holder,
        )
        superseded = await self.stores.consolidations.commit(owner, write)
        return ConsolidationOutcome(
            trigger_id=unit.id,
            action="merged" if previous else "created",
            episode_id=episode.id,
            previous_episode_id=previous.id if previous else None,
            fact_ids=[f.id for f in facts],
            superseded_fact_ids=superseded,
            consolidated_ids=write.consolidated_ids,
            llm_calls=2,  # the episode's call (create or merge) and refine_facts
            salience=rule,
        )

    async def _related_facts(self, owner: Owner, vector: list[float]) -> list[Fact]:
        """The user's active facts nearest `vector`, exact per user as recall's (graph/recall.py):
        which facts refinement may supersede does not depend on other tenants' vectors."""
        found = await self.search.candidates(
            owner, vector, None, interactions=0, episodes=0, facts=RELATED_FACTS, include_consolidated=True
        )
        return [hit.item for hit in found.facts.dense]

    # -- helpers -------------------------------------------------------------------------------

    async def _call(
        self, owner: Owner, op: str, trigger: str, read: list[str], call: Awaitable[LLMResult[T]]
    ) -> LLMResult[T]:
        """Await one consolidator call; a failure is recorded as a failed run, then deferred."""
        try:
            return await call
        except LLMError as error:
            failed = failed_run(self.consolidator, op, error, trigger=trigger, read_ids=read)
            await self.stores.consolidations.record_runs(owner, [failed])
            raise Deferred(f"{op} failed ({error.status or type(error).__name__}); will retry") from error

    def _run(
        self,
        op: str,
        usage: Usage,
        trigger: str,
        read: list[str],
        neighbors: int,
        threshold: float | None,
        rule: str | None = None,
    ) -> RunWrite:
        """`rule`: the salience rule when salience alone opened the gate (else recurrence did)."""
        return run_record(
            self.consolidator,
            op,
            usage,
            trigger=trigger,
            read_ids=read,
            neighbor_count=neighbors,
            threshold=threshold,
            triggered_by=RECURRENCE if rule is None else SALIENCE,
            rule=rule,
        )
