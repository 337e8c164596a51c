"""The engine's, the audit's and the forgetter's answers as the tools' results (api/mcp/results.py).

Where a result's fields are a record's attributes under the same names, it is read from the
record (`_view`) rather than copied field by field, so the two cannot drift apart unseen: a
missing attribute fails validation.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypeVar

from pydantic import BaseModel

from api.mcp.results import (
    Answered,
    AuditedEpisode,
    ConsolidationSummary,
    ContextItem,
    EpisodeSource,
    Evidence,
    FactAudit,
    FactChange,
    FactView,
    Forgotten,
    InteractionView,
    LayerHit,
    LayerHits,
    PlanWindow,
    Recalled,
    Remembered,
    RunView,
    UserStats,
)
from api.mcp.results import Plan as PlanResult
from consolidation import types as engine
from consolidation.forgetting import forgetter as forgetting
from consolidation.recall.planning import Plan
from graph import models

View = TypeVar("View", bound=BaseModel)


def _view(model: type[View], record: object) -> View:
    """`model` from the attributes of `record` that its fields name (the others are not read)."""
    return model.model_validate(record, from_attributes=True)


def _interaction(i: models.Interaction) -> InteractionView:
    """A turn, its occurred_at in the offset it was said in (GraphQL's occurredAt: the same instant)."""
    return _view(InteractionView, i).model_copy(update={"occurred_at": i.local_occurred_at})


def _at(h: engine.RecallHit) -> datetime | None:
    """A hit's time: a turn's in the offset it was said in, as `_interaction` gives it."""
    return h.item.local_occurred_at if isinstance(h.item, models.Interaction) else h.at


def remembered(done: engine.Remembered) -> Remembered:
    outcome = done.consolidation
    return Remembered(
        interaction_id=done.interaction_id,
        created=done.created,
        seq=done.seq,
        consolidation=None if outcome is None else _view(ConsolidationSummary, outcome),
    )


def _hit(h: engine.RecallHit) -> LayerHit:
    return LayerHit(id=h.id, text=h.text, score=h.score, at=_at(h), source_ids=h.interaction_ids)


def _layers(found: engine.Recall) -> LayerHits:
    return LayerHits(
        subconscious=[_hit(h) for h in found.subconscious],
        episodic=[_hit(h) for h in found.episodic],
        semantic=[_hit(h) for h in found.semantic],
    )


def _item(i: engine.ContextItem) -> ContextItem:
    h = i.hit
    return ContextItem(layer=h.layer, id=h.id, tokens=i.tokens, score=h.score, source_ids=h.interaction_ids)


def recalled(found: engine.Recall, layers: bool) -> Recalled:
    assembled = found.context
    assert assembled is not None  # a recall with a token budget assembles one
    return Recalled(
        context=assembled.text,
        tokens=assembled.tokens,
        budget=assembled.budget,
        items=[_item(i) for i in assembled.items],
        nothing_relevant=assembled.nothing_relevant,
        layers=_layers(found) if layers else None,
        plan=_plan(found.plan),
        withdrawn=[_view(FactView, f) for f in found.withdrawn],
    )


def _plan(plan: Plan | None) -> PlanResult | None:
    if plan is None:
        return None
    window = plan.window
    return PlanResult(
        source=plan.source,
        fallback=plan.fallback,
        notes=plan.notes,
        llm_calls=plan.llm_calls,
        prompt_tokens=plan.prompt_tokens,
        completion_tokens=plan.completion_tokens,
        asked_at=plan.asked_at.astimezone(UTC),  # in UTC, as GraphQL answers it
        window=PlanWindow(start=window.start, end=window.end, text=window.text) if window else None,
        order=plan.order.value if plan.order is not None else None,
        kind=plan.kind.value,
        entities=plan.entities,
        unresolved=plan.unresolved,
    )


def _evidence(h: engine.RecallHit) -> Evidence:
    return Evidence(layer=h.layer, id=h.id, text=h.text, at=_at(h), source_ids=h.interaction_ids)


def answered(found: engine.Answer) -> Answered:
    read = found.recall.context
    hits = [i.hit for i in read.items] if read is not None else found.recall.all_hits()
    by_id = {h.id: h for h in hits}
    return Answered(
        answer=found.text,
        evidence=[_evidence(by_id[i]) for i in found.used_ids if i in by_id],
        run_id=found.run_id,
        prompt_tokens=found.prompt_tokens,
        completion_tokens=found.completion_tokens,
        withdrawn=[_view(FactView, f) for f in found.recall.withdrawn],
    )


def _change(r: models.Replacement) -> FactChange:
    return FactChange(fact=_view(FactView, r.fact), reason=r.reason, at=r.at)


def _episode(e: models.EpisodeWithSources) -> AuditedEpisode:
    sources = [EpisodeSource(interaction=_interaction(i), similarity=s) for i, s in e.sources]
    return AuditedEpisode(
        id=e.episode.id,
        title=e.episode.title,
        summary=e.episode.summary,
        version=e.episode.version,
        current=e.episode.current,
        valid_from=e.episode.valid_from,
        sources=sources,
    )


def fact_audit(p: models.Provenance) -> FactAudit:
    return FactAudit(
        fact=_view(FactView, p.fact),
        episodes=[_episode(e) for e in p.episodes],
        interactions=[_interaction(i) for i in p.interactions],
        supersedes=[_change(r) for r in p.supersedes],
        superseded_by=[_change(r) for r in p.superseded_by],
        runs=[_view(RunView, r) for r in p.runs],
        corrections=[_view(RunView, r) for r in p.corrections],
    )


def forgotten(f: forgetting.Forgotten) -> Forgotten:
    return _view(Forgotten, f)


def user_stats(s: models.UserStats) -> UserStats:
    return UserStats(unconsolidated=s.interactions - s.consolidated, **s.__dict__)
