"""Forgetting on request (docs/api/graphql.md#forgetting).

`forget_interaction` erases the interaction and everything that exists only because of it: facts
it alone states, episode versions resting on nothing else (or merges that added only it). Episode
versions and facts that also rest on other interactions survive, lose the edge, and have their text
*rebuilt from the remaining interactions only* (the consolidator sees the remaining raw turns, never
the old text), with a new embedding; a fact the remaining turns no longer state is erased instead.
Facts that only erased facts had superseded become current again, unless a surviving fact had
replaced those: then it replaces them directly and they stay superseded. A fact a person stated (a
correction or an addition) is kept as it is, resting on the recorded change once the turn it cited
is gone, so the belief it replaced stays replaced (docs/corrections.md). All of it is prepared while
holding the user's consolidation lease (renewed while the rebuild runs) and written in one
transaction, so no consolidation can interleave and nothing is half-done. When a surviving fact or
episode changed, that transaction also records the forget as a person's change
(docs/corrections.md#the-record-of-a-forget).

`forget_user` erases every node of the user, runs included, in one transaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import TypeVar

import numpy as np

from consolidation.beliefs import person_run
from consolidation.consolidating.consolidator import EpisodeDraft, EpisodeInput, FactDraft, RefineInput
from consolidation.consolidating.leasing import Busy, holder_id, renewing, take_lease
from consolidation.consolidating.runs import run_record
from consolidation.engine import MemoryEngine
from consolidation.providers.llm.types import Usage
from consolidation.writing.gate import in_time_order
from consolidation.writing.turns import to_turn
from graph.forget import (
    EpisodeRewrite,
    EpisodeTouch,
    FactRewrite,
    FactTouch,
    Forgotten,
    InteractionErasure,
    InteractionPlan,
    UserForgotten,
)
from graph.models import Interaction, Owner, RunWrite
from graph.validation import require_name, require_owner

__all__ = ["Busy", "ForgetPreview", "Forgetter", "Forgotten", "UserForgotten"]
T = TypeVar("T")
# The trigger of a rebuild's runs (a model's); the op and trigger of the run recording who forgot.
TRIGGER = "forget"
OP = "forget_interaction"
PERSON_TRIGGER = "erasure"


@dataclass(frozen=True)
class ForgetPreview:
    """What forget_interaction would do now, read from the same plan; nothing is changed.

    A surviving fact is listed as rebuilt: the real forget erases it instead when the consolidator,
    given only the remaining turns, no longer states it (only the rebuild call can tell).
    """

    interaction_ids: list[str]
    episode_ids: list[str]
    fact_ids: list[str]
    rebuilt_episode_ids: list[str]
    rebuilt_fact_ids: list[str]
    restored_fact_ids: list[str]


@dataclass
class _Prepared:
    """Rewrites and the runs that produced them, collected before the single commit."""

    episode_rewrites: list[EpisodeRewrite]
    fact_rewrites: list[FactRewrite]
    erased_fact_ids: list[str]
    runs: list[RunWrite]


@dataclass
class _Refined:
    """One refine call of a rebuild: its drafts, their vectors, and the facts restated from it."""

    sources: list[Interaction]
    usage: Usage
    drafts: list[FactDraft]
    vectors: np.ndarray | None
    produced: list[str] = field(default_factory=list)


def _closest(fact: FactTouch, refined: _Refined) -> tuple[FactDraft, list[float]] | None:
    """The restated draft nearest the old fact (compared by vector; the old text is never sent)."""
    if refined.vectors is None:
        return None
    scores = (
        refined.vectors @ np.asarray(fact.embedding, dtype=np.float32)
        if fact.embedding
        else np.zeros(len(refined.drafts))
    )
    index = int(np.argmax(scores))
    return refined.drafts[index], [float(x) for x in refined.vectors[index]]


class Forgetter:
    def __init__(self, engine: MemoryEngine) -> None:
        """Over an engine's stores, with its embedder, consolidator and settings: what a forget
        rebuilds is what that engine's consolidation would have written."""
        stores = engine.stores
        self.store = stores.forget
        self.interactions = stores.interactions
        self.leases = stores.leases
        self.vectors = stores.search.vectors
        self.embedder = engine.embedder
        self.consolidator = engine.consolidator
        self.settings = engine.settings

    async def forget_interaction(self, owner: Owner, interaction_id: str, *, by: str) -> Forgotten:
        """`by` names who asked (the API key's name and id), as a correction's run does."""
        require_owner(owner.tenant, owner.user_id)
        require_name("interaction id", interaction_id)
        require_name("by", by)
        await self.store.plan(owner, interaction_id)  # NotFound at once, before waiting for a lease
        holder = holder_id("forget")
        await self._acquire(owner, holder)
        try:
            async with renewing(self.leases, owner, holder, self.settings.lease_seconds):
                return await self._forget(owner, interaction_id, holder, by)
        finally:
            await self.leases.release(owner, holder)

    async def _forget(self, owner: Owner, interaction_id: str, holder: str, by: str) -> Forgotten:
        """Under the lease, renewed while it runs: a rebuild's LLM calls may outlast one period."""
        # Planned again under the lease: from here on no consolidation can change the graph.
        plan = await self.store.plan(owner, interaction_id)
        prepared = await self._prepare(owner, plan)
        # It names nothing of the turn; the store adds the facts it restores or re-points.
        rebuilt = [r.id for r in prepared.episode_rewrites] + [r.id for r in prepared.fact_rewrites]
        record = person_run(OP, PERSON_TRIGGER, by, None, datetime.now(UTC), rebuilt, [])
        erasure = InteractionErasure(
            interaction_id=plan.interaction_id,
            lease_holder=holder,
            record=record,
            episode_ids=[e.id for e in plan.erased_episodes],
            fact_ids=[f.id for f in plan.erased_facts] + prepared.erased_fact_ids,
            stated_fact_ids=[f.id for f in plan.stated_facts],
            episode_rewrites=prepared.episode_rewrites,
            fact_rewrites=prepared.fact_rewrites,
            runs=prepared.runs,
        )
        return await self.store.erase_interaction(owner, erasure)

    async def preview_interaction(self, owner: Owner, interaction_id: str) -> ForgetPreview:
        """The plan forget_interaction would follow, without a lease, LLM call or write."""
        require_owner(owner.tenant, owner.user_id)
        require_name("interaction id", interaction_id)
        plan = await self.store.plan(owner, interaction_id)
        erased_facts = [f.id for f in plan.erased_facts]
        return ForgetPreview(
            interaction_ids=[plan.interaction_id],
            episode_ids=[e.id for e in plan.erased_episodes],
            fact_ids=erased_facts,
            rebuilt_episode_ids=[e.id for e in plan.kept_episodes],
            rebuilt_fact_ids=[f.id for f in plan.kept_facts],
            restored_fact_ids=await self.store.restorable(owner, erased_facts),
        )

    async def preview_user(self, owner: Owner) -> UserForgotten:
        """What forget_user would erase now, counted; nothing is changed."""
        require_owner(owner.tenant, owner.user_id)
        return await self.store.user_counts(owner)

    async def forget_user(self, owner: Owner) -> UserForgotten:
        """Erases the user; this process's recall keeps none of its vectors either (another
        process drops them at that user's next recall)."""
        require_owner(owner.tenant, owner.user_id)
        erased = await self.store.erase_user(owner)
        self.vectors.drop(owner)
        return erased

    async def _acquire(self, owner: Owner, holder: str) -> None:
        """Wait for a running consolidation to finish (bounded by one lease period)."""
        if not await take_lease(self.leases, owner, holder, self.settings.lease_seconds, wait=True):
            raise Busy(f"consolidation for {owner.user_id!r} is running; retry the forget later")

    # -- rebuilding what survives ---------------------------------------------------------------

    async def _prepare(self, owner: Owner, plan: InteractionPlan) -> _Prepared:
        kept_episodes, kept_facts = plan.kept_episodes, plan.kept_facts
        needed = {i for e in kept_episodes for i in e.remaining} | {
            i for f in kept_facts for i in f.remaining
        }
        turns = {t.id: t for t in await self.interactions.get(owner, sorted(needed))} if needed else {}
        episode_rewrites, episode_runs = await self._rebuild_episodes(kept_episodes, turns)
        summaries = {r.id: r.summary for r in episode_rewrites}
        fact_rewrites, erased, fact_runs = await self._rebuild_facts(kept_facts, turns, summaries)
        return _Prepared(episode_rewrites, fact_rewrites, erased, episode_runs + fact_runs)

    async def _rebuild_episodes(
        self, touched: list[EpisodeTouch], turns: dict[str, Interaction]
    ) -> tuple[list[EpisodeRewrite], list[RunWrite]]:
        drafts: list[tuple[EpisodeTouch, list[Interaction], EpisodeDraft]] = []
        runs: list[RunWrite] = []
        inputs = [(e, in_time_order([turns[i] for i in e.remaining if i in turns])) for e in touched]
        results = await self._side_by_side(
            [
                partial(self.consolidator.create_episode, EpisodeInput(turns=[to_turn(t) for t in sources]))
                for _, sources in inputs
            ]
        )
        for (episode, sources), result in zip(inputs, results, strict=True):
            drafts.append((episode, sources, result.value))
            runs.append(self._run("create_episode", result.usage, [t.id for t in sources], [episode.id]))
        if not drafts:
            return [], []
        vectors = await self.embedder.embed([d.summary for _, _, d in drafts])
        rewrites = [
            EpisodeRewrite(
                id=episode.id,
                title=draft.title,
                summary=draft.summary,
                embedding=[float(x) for x in vector],
                first_at=sources[0].occurred_at,
                last_at=sources[-1].occurred_at,
            )
            for (episode, sources, draft), vector in zip(drafts, vectors, strict=True)
        ]
        return rewrites, runs

    async def _rebuild_facts(
        self, touched: list[FactTouch], turns: dict[str, Interaction], summaries: dict[str, str]
    ) -> tuple[list[FactRewrite], list[str], list[RunWrite]]:
        """Facts with the same remaining turns and episode summary send the same input: one refine
        call (and one embedding of its drafts) serves them all, each taking the draft nearest it."""
        rewrites, erased = [], []
        keys: list[tuple[str, tuple[str, ...]]] = []
        inputs: dict[tuple[str, tuple[str, ...]], tuple[str, list[Interaction]]] = {}
        for fact in touched:
            sources = in_time_order([turns[i] for i in fact.remaining if i in turns])
            summary = next((summaries[e] for e in fact.episode_ids if e in summaries), "")
            keys.append(key := (summary, tuple(t.id for t in sources)))
            inputs.setdefault(key, (summary, sources))
        refined_all = await self._side_by_side([partial(self._refine, *inp) for inp in inputs.values()])
        calls = dict(zip(inputs, refined_all, strict=True))
        for fact, key in zip(touched, keys, strict=True):
            refined = calls[key]
            best = _closest(fact, refined)
            if best is None:
                erased.append(fact.id)  # the remaining turns do not state it: it goes
                continue
            draft, vector = best
            rewrites.append(FactRewrite(fact.id, draft.text.strip(), draft.kind, vector))
            refined.produced.append(fact.id)
        runs = [
            self._run("refine_facts", r.usage, [t.id for t in r.sources], r.produced)
            for r in calls.values()
            if r.produced
        ]
        return rewrites, erased, runs

    async def _side_by_side(self, calls: Sequence[Callable[[], Awaitable[T]]]) -> list[T]:
        """The calls' results in order, at most `worker_concurrency` in flight (the LLM work one
        process runs at once). The first failure cancels the rest and is raised as it is."""
        limit = asyncio.Semaphore(self.settings.worker_concurrency)

        async def one(call: Callable[[], Awaitable[T]]) -> T:
            async with limit:
                return await call()

        tasks = [asyncio.ensure_future(one(call)) for call in calls]
        try:
            return list(await asyncio.gather(*tasks))
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _refine(self, summary: str, sources: list[Interaction]) -> _Refined:
        inp = RefineInput(episode_summary=summary, turns=[to_turn(t) for t in sources], existing_facts=[])
        result = await self.consolidator.refine_facts(inp)
        drafts = [d for d in result.value.facts if d.text.strip()]
        vectors = await self.embedder.embed([d.text for d in drafts]) if drafts else None
        return _Refined(sources, result.usage, drafts, vectors)

    def _run(self, op: str, usage: Usage, read: list[str], produced: list[str]) -> RunWrite:
        return run_record(
            self.consolidator,
            op,
            usage,
            trigger=TRIGGER,
            read_ids=read,
            produced_ids=produced,
            neighbor_count=len(read),
        )
