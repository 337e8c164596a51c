"""One Kind per client method (its generated document, its retry safety) and the builder that
makes an Operation of it from the method's arguments.

Both clients build an Operation once per call and send that same Operation on every attempt, so a
retry resends byte-identical variables (the same source_ref above all). Nothing here does I/O.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar, get_args

from recmem_client import generated, parsers
from recmem_client.document import Document
from recmem_client.errors import BadUserInput
from recmem_client.generated import (
    Answer,
    BeliefChanged,
    BudgetInput,
    ConsolidationEvent,
    FactAudit,
    FactKind,
    InteractionForgotten,
    Recall,
    RecallFilter,
    Remembered,
    UnitInput,
    UserForgotten,
    UserStats,
)
from recmem_client.types import Layers, Unit

V = TypeVar("V", bound=Mapping[str, object])
T = TypeVar("T")

# Prefix of the source_refs the client makes up, so that they are recognisable in the graph.
GENERATED_REF_PREFIX = "recmem-client:"


@dataclass(frozen=True, slots=True)
class Kind(Generic[V, T]):
    """What an operation is, whatever its arguments: its document (recmem_client/generated.py:
    its text, where and as what its result stands in the response's `data`) and whether it is
    safe to send again."""

    document: Document[V, T]
    # Safe to send again after an UNAVAILABLE, a 429 or a lost response.
    retryable: bool

    @property
    def name(self) -> str:
        return self.document.name

    @property
    def field(self) -> str:
        """The root field (the one a committed mutation answers)."""
        return self.document.path[0]

    @property
    def mutation(self) -> bool:
        """A mutation's data stands for a committed write even when nested fields failed."""
        return self.document.mutation

    def __call__(self, variables: V) -> Operation[T]:
        """This operation with `variables`, less the unset ones so the service's defaults apply.
        Raises BadUserInput, sending nothing, for a value JSON cannot carry (NaN, a set, ...)."""
        sent = {k: v for k, v in variables.items() if v is not None}
        try:
            json.dumps(sent, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise BadUserInput(f"{self.name}: an argument cannot be sent as JSON: {error}") from None
        return Operation(self, sent)


@dataclass(frozen=True, slots=True)
class Operation(Generic[T]):
    """One call: its kind and variables, built once and sent as they are on every attempt."""

    kind: Kind[Any, T]
    variables: Mapping[str, Any]

    def body(self) -> dict[str, Any]:
        document = self.kind.document
        return {"query": document.text, "variables": dict(self.variables), "operationName": document.name}

    def parse(self, data: parsers.Obj) -> T:
        document = self.kind.document
        return parsers.result(data, document.path, document.result)


REMEMBER = Kind(generated.REMEMBER, retryable=True)
REMEMBER_BATCH = Kind(generated.REMEMBER_BATCH, retryable=True)
# Not retried: a pass that committed but whose answer was lost would be reported as empty.
CONSOLIDATE = Kind(generated.CONSOLIDATE, retryable=False)
RECALL = Kind(generated.RECALL, retryable=True)  # a read
# Not retried: each answer calls the model and records a run, so a retry could pay twice.
ANSWER = Kind(generated.ANSWER, retryable=False)
AUDIT = Kind(generated.AUDIT, retryable=True)  # a read
STATS = Kind(generated.STATS, retryable=True)  # a read
# Not retried: after a lost answer the retry would find nothing left and raise NotFound.
FORGET_INTERACTION = Kind(generated.FORGET_INTERACTION, retryable=False)
FORGET_USER = Kind(generated.FORGET_USER, retryable=False)
# Not retried: after a lost answer the fact is changed already and the retry would be refused.
CORRECT_FACT = Kind(generated.CORRECT_FACT, retryable=False)
RETRACT_FACT = Kind(generated.RETRACT_FACT, retryable=False)
ADD_FACT = Kind(generated.ADD_FACT, retryable=False)


def new_source_ref() -> str:
    """A unique idempotency key: random, so two calls never share one by accident."""
    return f"{GENERATED_REF_PREFIX}{uuid.uuid4()}"


def _time(value: datetime | str | None) -> str | None:
    """A time as the service reads it: ISO 8601 text (a naive one is refused there)."""
    return value.isoformat() if isinstance(value, datetime) else value


# A RecallFilter's times, which may be given as datetimes.
FilterTime = Literal["occurredAfter", "occurredBefore", "validFromAfter", "validFromBefore"]
FILTER_TIMES: tuple[FilterTime, ...] = get_args(FilterTime)


def _filter(given: RecallFilter | None) -> RecallFilter | None:
    if given is None:
        return None
    sent = given.copy()
    for name in FILTER_TIMES:
        if name in sent:
            sent[name] = _time(sent[name])
    return sent


def _unit(unit: Unit) -> UnitInput:
    fields: UnitInput = {"text": unit.text, "speaker": unit.speaker}
    if unit.occurred_at is not None:
        fields["occurredAt"] = unit.occurred_at.isoformat()
    if unit.session_id is not None:
        fields["sessionId"] = unit.session_id
    if unit.agent_id is not None:
        fields["agentId"] = unit.agent_id
    if unit.metadata is not None:
        fields["metadata"] = dict(unit.metadata)
    # Every write carries a source_ref: the service dedupes on it (per tenant and user), which
    # is what makes a retry unable to store the interaction twice.
    fields["sourceRef"] = unit.source_ref if unit.source_ref is not None else new_source_ref()
    return fields


def _budget(layers: Layers | None, tokens: int | None) -> BudgetInput | None:
    if layers is None and tokens is None:
        return None  # the service's defaults
    budget: BudgetInput = {}
    if layers is not None:
        budget["subconscious"] = layers.subconscious
        budget["episodic"] = layers.episodic
        budget["semantic"] = layers.semantic
    if tokens is not None:
        budget["tokens"] = tokens
    return budget


def remember(
    user_id: str,
    text: str,
    *,
    speaker: str = "user",
    occurred_at: datetime | None = None,
    session_id: str | None = None,
    source_ref: str | None = None,
    consolidate: bool | None = None,
    agent_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Operation[Remembered]:
    """Store one interaction durably (then consolidate now, never, or as configured: None)."""
    unit = Unit(text, speaker, occurred_at, session_id, source_ref, agent_id, metadata)
    return REMEMBER({"input": {"userId": user_id, **_unit(unit)}, "consolidate": consolidate})


def remember_batch(
    user_id: str, units: Sequence[Unit], *, consolidate: bool | None = None
) -> Operation[list[Remembered]]:
    """Store a bounded batch of one user's interactions in one transaction (all or nothing)."""
    return REMEMBER_BATCH({"userId": user_id, "units": [_unit(u) for u in units], "consolidate": consolidate})


def consolidate(user_id: str) -> Operation[list[ConsolidationEvent]]:
    """Consolidate the user's pending interactions now."""
    return CONSOLIDATE({"userId": user_id})


def recall(
    user_id: str,
    query: str,
    *,
    tokens: int | None = None,
    layers: Layers | None = None,
    as_of: datetime | None = None,
    include_consolidated: bool | None = None,
    lexical: bool = True,
    filter: RecallFilter | None = None,
    min_score: float | None = None,
    asked_at: datetime | None = None,
) -> Operation[Recall]:
    """Per-layer hits (`layers`: hits per layer, default 10 / 5 / 10); with `tokens`, also
    `context`: one prompt-ready text of the best evidence within that many o200k tokens.
    `filter` narrows every layer (agentIds, sessionIds, speakers, metadata, kinds, times);
    `min_score`: only hits and context items whose rank score reaches it; `asked_at`: when the
    question is asked (default now), for "last week" and the like."""
    return RECALL(
        {
            "userId": user_id,
            "query": query,
            "budget": _budget(layers, tokens),
            "asOf": _time(as_of),
            "includeConsolidated": include_consolidated,
            "lexical": lexical,
            "filter": _filter(filter),
            "minScore": min_score,
            "askedAt": _time(asked_at),
        }
    )


def answer(
    user_id: str,
    question: str,
    *,
    tokens: int | None = None,
    layers: Layers | None = None,
    as_of: datetime | None = None,
    filter: RecallFilter | None = None,
    min_score: float | None = None,
    asked_at: datetime | None = None,
) -> Operation[Answer]:
    """An answer from the user's memory with its evidence (with `tokens`: from that context)."""
    budget = _budget(layers, tokens)
    return ANSWER(
        {
            "userId": user_id,
            "question": question,
            "budget": budget,
            "asOf": _time(as_of),
            "filter": _filter(filter),
            "minScore": min_score,
            "askedAt": _time(asked_at),
        }
    )


def stats(user_id: str, *, filter: RecallFilter | None = None) -> Operation[UserStats]:
    """Sizes of the user's memory and its cost. `filter` (recall's) narrows the interactions,
    episodes and facts counted; runs and tokens stay the user's whole (runs hold no scope)."""
    return STATS({"userId": user_id, "filter": _filter(filter)})


def audit(fact_id: str) -> Operation[FactAudit]:
    """A fact's audit trail: episodes -> interactions, supersessions, runs and their cost."""
    return AUDIT({"id": fact_id})


def forget_interaction(interaction_id: str) -> Operation[InteractionForgotten]:
    """Erase an interaction and everything derived only from it; rebuild what survives."""
    return FORGET_INTERACTION({"id": interaction_id})


def forget_user(user_id: str) -> Operation[UserForgotten]:
    """Erase a user entirely: interactions, episodes, facts and runs."""
    return FORGET_USER({"id": user_id})


def correct_fact(
    fact_id: str, text: str, reason: str, *, source_interaction_id: str | None = None
) -> Operation[BeliefChanged]:
    """Replace a fact from now on by a corrected one (derived from the named interaction, if any)."""
    return CORRECT_FACT(
        {"id": fact_id, "text": text, "reason": reason, "sourceInteractionId": source_interaction_id}
    )


def retract_fact(fact_id: str, reason: str) -> Operation[BeliefChanged]:
    """Stop believing a fact from now on; it stays, retracted, in the audit trail."""
    return RETRACT_FACT({"id": fact_id, "reason": reason})


def add_fact(
    user_id: str,
    text: str,
    kind: FactKind | str,
    *,
    valid_from: datetime | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Operation[BeliefChanged]:
    """State a fact by hand (`kind`: a FactKind, or its name in any case, e.g. "preference"), in
    the agent's, session's and metadata's scopes when given (else a scope filter never finds it)."""
    return ADD_FACT(
        {
            "userId": user_id,
            "text": text,
            "kind": FactKind(kind.upper()),
            "validFrom": _time(valid_from),
            "agentId": agent_id,
            "sessionId": session_id,
            "metadata": None if metadata is None else dict(metadata),
        }
    )
