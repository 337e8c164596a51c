"""JSON `data` -> the typed results of recmem_client/types.py, shared by the async and sync clients.

Every value is checked against the type the SDL promises; anything else raises ProtocolError
rather than handing the caller a half-typed object (a client and service of different versions,
a proxy answering for the service).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

from recmem_client.errors import ProtocolError
from recmem_client.types import (
    Answer,
    AuditedEpisode,
    ConsolidationAction,
    ConsolidationEvent,
    ConsolidationRun,
    ContextItem,
    Episode,
    EpisodeHit,
    EpisodeSource,
    Fact,
    FactAudit,
    FactChange,
    FactHit,
    FactKind,
    FactStatus,
    Interaction,
    InteractionForgotten,
    InteractionHit,
    Layer,
    Recall,
    RecallContext,
    Remembered,
    UserForgotten,
)

Obj = Mapping[str, Any]
E = TypeVar("E", bound=StrEnum)


# -- checked field access ----------------------------------------------------------------------


def _bad(name: str, value: object, expected: str) -> ProtocolError:
    return ProtocolError(f"unexpected response: {name} is {type(value).__name__}, expected {expected}")


def _get(o: Obj, name: str) -> Any:
    if name not in o:
        raise ProtocolError(f"unexpected response: {name} is missing")
    return o[name]


def _obj(value: object, name: str) -> Obj:
    if not isinstance(value, Mapping):
        raise _bad(name, value, "an object")
    return value


def _field_obj(o: Obj, name: str) -> Obj:
    return _obj(_get(o, name), name)


def _opt_obj(o: Obj, name: str) -> Obj | None:
    value = _get(o, name)
    return None if value is None else _obj(value, name)


def _objs(o: Obj, name: str) -> list[Obj]:
    value = _get(o, name)
    if not isinstance(value, list):
        raise _bad(name, value, "a list")
    return [_obj(item, name) for item in value]


def _str(o: Obj, name: str) -> str:
    value = _get(o, name)
    if not isinstance(value, str):
        raise _bad(name, value, "a string")
    return value


def _opt_str(o: Obj, name: str) -> str | None:
    return None if _get(o, name) is None else _str(o, name)


def _int(o: Obj, name: str) -> int:
    value = _get(o, name)
    # bool is an int in Python; JSON's true is not a count.
    if not isinstance(value, int) or isinstance(value, bool):
        raise _bad(name, value, "an integer")
    return value


def _float(o: Obj, name: str) -> float:
    value = _get(o, name)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise _bad(name, value, "a number")
    return float(value)


def _opt_float(o: Obj, name: str) -> float | None:
    return None if _get(o, name) is None else _float(o, name)


def _bool(o: Obj, name: str) -> bool:
    value = _get(o, name)
    if not isinstance(value, bool):
        raise _bad(name, value, "a boolean")
    return value


def _time(o: Obj, name: str) -> datetime:
    text = _str(o, name)
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise ProtocolError(f"unexpected response: {name} is not an ISO 8601 time: {text!r}") from None


def _opt_time(o: Obj, name: str) -> datetime | None:
    return None if _get(o, name) is None else _time(o, name)


def _ids(o: Obj, name: str) -> tuple[str, ...]:
    value = _get(o, name)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(name, value, "a list of ids")
    return tuple(value)


def _enum(o: Obj, name: str, kind: type[E]) -> E:
    text = _str(o, name)
    try:
        return kind(text)
    except ValueError:
        raise ProtocolError(f"unexpected response: {name} {text!r} is not a {kind.__name__}") from None


# -- memory nodes ------------------------------------------------------------------------------


def interaction(o: Obj) -> Interaction:
    return Interaction(
        id=_str(o, "id"),
        user_id=_str(o, "userId"),
        session_id=_opt_str(o, "sessionId"),
        speaker=_str(o, "speaker"),
        text=_str(o, "text"),
        occurred_at=_time(o, "occurredAt"),
        seq=_int(o, "seq"),
        consolidated=_bool(o, "consolidated"),
        consolidated_at=_opt_time(o, "consolidatedAt"),
        source_ref=_opt_str(o, "sourceRef"),
    )


def episode(o: Obj) -> Episode:
    return Episode(
        id=_str(o, "id"),
        user_id=_str(o, "userId"),
        title=_str(o, "title"),
        summary=_str(o, "summary"),
        version=_int(o, "version"),
        current=_bool(o, "current"),
        first_at=_time(o, "firstAt"),
        last_at=_time(o, "lastAt"),
        valid_from=_time(o, "validFrom"),
        superseded_at=_opt_time(o, "supersededAt"),
        created_at=_time(o, "createdAt"),
    )


def fact(o: Obj) -> Fact:
    return Fact(
        id=_str(o, "id"),
        user_id=_str(o, "userId"),
        text=_str(o, "text"),
        kind=_enum(o, "kind", FactKind),
        status=_enum(o, "status", FactStatus),
        valid_from=_time(o, "validFrom"),
        valid_to=_opt_time(o, "validTo"),
        created_at=_time(o, "createdAt"),
    )


def run(o: Obj) -> ConsolidationRun:
    return ConsolidationRun(
        id=_str(o, "id"),
        user_id=_str(o, "userId"),
        op=_str(o, "op"),
        trigger=_str(o, "trigger"),
        provider=_str(o, "provider"),
        model=_str(o, "model"),
        status=_str(o, "status"),
        prompt_tokens=_int(o, "promptTokens"),
        completion_tokens=_int(o, "completionTokens"),
        latency_ms=_float(o, "latencyMs"),
        neighbor_count=_int(o, "neighborCount"),
        threshold=_opt_float(o, "threshold"),
        at=_time(o, "at"),
        error=_opt_str(o, "error"),
    )


# -- writes ------------------------------------------------------------------------------------


def event(o: Obj) -> ConsolidationEvent:
    return ConsolidationEvent(
        user_id=_str(o, "userId"),
        trigger_id=_str(o, "triggerId"),
        action=_enum(o, "action", ConsolidationAction),
        episode_id=_opt_str(o, "episodeId"),
        previous_episode_id=_opt_str(o, "previousEpisodeId"),
        fact_ids=_ids(o, "factIds"),
        superseded_fact_ids=_ids(o, "supersededFactIds"),
        consolidated_ids=_ids(o, "consolidatedIds"),
        llm_calls=_int(o, "llmCalls"),
        error=_opt_str(o, "error"),
    )


def remembered(o: Obj) -> Remembered:
    consolidation = _opt_obj(o, "consolidation")
    stored = _opt_obj(o, "interaction")
    return Remembered(
        interaction_id=_str(o, "interactionId"),
        created=_bool(o, "created"),
        seq=_int(o, "seq"),
        consolidation=None if consolidation is None else event(consolidation),
        interaction=None if stored is None else interaction(stored),
    )


def interaction_forgotten(o: Obj) -> InteractionForgotten:
    return InteractionForgotten(
        interaction_ids=_ids(o, "interactionIds"),
        episode_ids=_ids(o, "episodeIds"),
        fact_ids=_ids(o, "factIds"),
        run_ids=_ids(o, "runIds"),
        rebuilt_episode_ids=_ids(o, "rebuiltEpisodeIds"),
        rebuilt_fact_ids=_ids(o, "rebuiltFactIds"),
        restored_fact_ids=_ids(o, "restoredFactIds"),
    )


def user_forgotten(o: Obj) -> UserForgotten:
    return UserForgotten(
        user_id=_str(o, "userId"),
        interactions=_int(o, "interactions"),
        episodes=_int(o, "episodes"),
        facts=_int(o, "facts"),
        runs=_int(o, "runs"),
    )


# -- recall, answers, audit --------------------------------------------------------------------


def context_item(o: Obj) -> ContextItem:
    return ContextItem(
        layer=_enum(o, "layer", Layer),
        id=_str(o, "id"),
        line=_str(o, "line"),
        tokens=_int(o, "tokens"),
        score=_float(o, "score"),
        rank_score=_float(o, "rankScore"),
        source_ids=_ids(o, "sourceIds"),
    )


def recall_context(o: Obj) -> RecallContext:
    return RecallContext(
        text=_str(o, "text"),
        tokens=_int(o, "tokens"),
        budget=_int(o, "budget"),
        items=tuple(context_item(i) for i in _objs(o, "items")),
    )


def recall(o: Obj) -> Recall:
    context = _opt_obj(o, "context")
    return Recall(
        query=_str(o, "query"),
        as_of=_opt_time(o, "asOf"),
        subconscious=tuple(
            InteractionHit(_float(h, "score"), interaction(_field_obj(h, "interaction")))
            for h in _objs(o, "subconscious")
        ),
        episodic=tuple(
            EpisodeHit(_float(h, "score"), episode(_field_obj(h, "episode")), _ids(h, "sourceIds"))
            for h in _objs(o, "episodic")
        ),
        semantic=tuple(
            FactHit(_float(h, "score"), fact(_field_obj(h, "fact")), _ids(h, "sourceIds"))
            for h in _objs(o, "semantic")
        ),
        context=None if context is None else recall_context(context),
    )


def answer(o: Obj) -> Answer:
    return Answer(
        text=_str(o, "text"),
        used_ids=_ids(o, "usedIds"),
        recall=recall(_field_obj(o, "recall")),
        run_id=_opt_str(o, "runId"),
        prompt_tokens=_int(o, "promptTokens"),
        completion_tokens=_int(o, "completionTokens"),
    )


def change(o: Obj) -> FactChange:
    return FactChange(fact=fact(_field_obj(o, "fact")), reason=_opt_str(o, "reason"), at=_opt_time(o, "at"))


def audited_episode(o: Obj) -> AuditedEpisode:
    return AuditedEpisode(
        episode=episode(_field_obj(o, "episode")),
        sources=tuple(
            EpisodeSource(interaction(_field_obj(s, "interaction")), _opt_float(s, "similarity"))
            for s in _objs(o, "sources")
        ),
    )


def audit(o: Obj) -> FactAudit:
    return FactAudit(
        fact=fact(_field_obj(o, "fact")),
        episodes=tuple(audited_episode(e) for e in _objs(o, "episodes")),
        interactions=tuple(interaction(i) for i in _objs(o, "interactions")),
        supersedes=tuple(change(c) for c in _objs(o, "supersedes")),
        superseded_by=tuple(change(c) for c in _objs(o, "supersededBy")),
        runs=tuple(run(r) for r in _objs(o, "runs")),
        prompt_tokens=_int(o, "promptTokens"),
        completion_tokens=_int(o, "completionTokens"),
    )


# -- operation results (the `data` of a response) ----------------------------------------------


def remember_data(data: Obj) -> Remembered:
    return remembered(_field_obj(data, "remember"))


def remember_batch_data(data: Obj) -> list[Remembered]:
    return [remembered(r) for r in _objs(data, "rememberBatch")]


def consolidate_data(data: Obj) -> list[ConsolidationEvent]:
    return [event(e) for e in _objs(data, "consolidate")]


def recall_data(data: Obj) -> Recall:
    return recall(_field_obj(data, "recall"))


def answer_data(data: Obj) -> Answer:
    return answer(_field_obj(data, "answer"))


def audit_data(data: Obj) -> FactAudit:
    return audit(_field_obj(_field_obj(data, "fact"), "audit"))


def forget_interaction_data(data: Obj) -> InteractionForgotten:
    return interaction_forgotten(_field_obj(data, "forgetInteraction"))


def forget_user_data(data: Obj) -> UserForgotten:
    return user_forgotten(_field_obj(data, "forgetUser"))
