"""One Operation per client method: its document, variables, parser and retry safety.

Both clients build an Operation once per call and send that same Operation on every attempt, so a
retry resends byte-identical variables (the same source_ref above all). Nothing here does I/O.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from recmem_client import documents, parsers
from recmem_client.types import (
    Answer,
    ConsolidationEvent,
    FactAudit,
    InteractionForgotten,
    Layers,
    Recall,
    Remembered,
    Unit,
    UserForgotten,
)

T = TypeVar("T")

# Prefix of the source_refs the client makes up, so that they are recognisable in the graph.
GENERATED_REF_PREFIX = "recmem-client:"


@dataclass(frozen=True, slots=True)
class Operation(Generic[T]):
    name: str
    document: str
    variables: Mapping[str, Any]
    parse: Callable[[parsers.Obj], T]
    # The root field whose value is the result.
    field: str
    # A mutation's data stands for a committed write even when nested fields failed.
    mutation: bool
    # Safe to send again after an UNAVAILABLE, a 429 or a lost response.
    retryable: bool

    def body(self) -> dict[str, Any]:
        return {"query": self.document, "variables": dict(self.variables), "operationName": self.name}


def new_source_ref() -> str:
    """A unique idempotency key: random, so two calls never share one by accident."""
    return f"{GENERATED_REF_PREFIX}{uuid.uuid4()}"


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _unit(unit: Unit) -> dict[str, Any]:
    fields = {
        "text": unit.text,
        "speaker": unit.speaker,
        "occurredAt": _time(unit.occurred_at),
        "sessionId": unit.session_id,
        # Every write carries a source_ref: the service dedupes on it (per tenant and user), which
        # is what makes a retry unable to store the interaction twice.
        "sourceRef": unit.source_ref if unit.source_ref is not None else new_source_ref(),
    }
    return {k: v for k, v in fields.items() if v is not None}


def _budget(layers: Layers | None, tokens: int | None) -> dict[str, int] | None:
    if layers is None and tokens is None:
        return None  # the service's defaults
    budget: dict[str, int] = {}
    if layers is not None:
        budget |= {
            "subconscious": layers.subconscious,
            "episodic": layers.episodic,
            "semantic": layers.semantic,
        }
    if tokens is not None:
        budget["tokens"] = tokens
    return budget


def _present(**variables: Any) -> dict[str, Any]:
    """Variables without the unset ones, so the service's own defaults apply."""
    return {k: v for k, v in variables.items() if v is not None}


def remember(
    user_id: str,
    text: str,
    *,
    speaker: str = "user",
    occurred_at: datetime | None = None,
    session_id: str | None = None,
    source_ref: str | None = None,
    consolidate: bool | None = None,
) -> Operation[Remembered]:
    """Store one interaction durably (then consolidate now, never, or as configured: None)."""
    unit = Unit(text, speaker, occurred_at, session_id, source_ref)
    return Operation(
        name="Remember",
        document=documents.REMEMBER_DOC,
        variables=_present(input={"userId": user_id, **_unit(unit)}, consolidate=consolidate),
        parse=parsers.remember_data,
        field="remember",
        mutation=True,
        retryable=True,
    )


def remember_batch(
    user_id: str, units: Sequence[Unit], *, consolidate: bool | None = None
) -> Operation[list[Remembered]]:
    """Store a bounded batch of one user's interactions in one transaction (all or nothing)."""
    return Operation(
        name="RememberBatch",
        document=documents.REMEMBER_BATCH_DOC,
        variables=_present(userId=user_id, units=[_unit(u) for u in units], consolidate=consolidate),
        parse=parsers.remember_batch_data,
        field="rememberBatch",
        mutation=True,
        retryable=True,
    )


def consolidate(user_id: str) -> Operation[list[ConsolidationEvent]]:
    """Consolidate the user's pending interactions now."""
    # Not retried: a pass that committed but whose answer was lost would be reported as empty.
    return Operation(
        name="Consolidate",
        document=documents.CONSOLIDATE_DOC,
        variables={"userId": user_id},
        parse=parsers.consolidate_data,
        field="consolidate",
        mutation=True,
        retryable=False,
    )


def recall(
    user_id: str,
    query: str,
    *,
    tokens: int | None = None,
    layers: Layers | None = None,
    as_of: datetime | None = None,
    include_consolidated: bool | None = None,
    lexical: bool = True,
) -> Operation[Recall]:
    """Per-layer hits (`layers`: hits per layer, default 10 / 5 / 10); with `tokens`, also
    `context`: one prompt-ready text of the best evidence within that many o200k tokens."""
    return Operation(
        name="Recall",
        document=documents.RECALL_DOC,
        variables=_present(
            userId=user_id,
            query=query,
            budget=_budget(layers, tokens),
            asOf=_time(as_of),
            includeConsolidated=include_consolidated,
            lexical=lexical,
        ),
        parse=parsers.recall_data,
        field="recall",
        mutation=False,
        retryable=True,  # a read
    )


def answer(
    user_id: str,
    question: str,
    *,
    tokens: int | None = None,
    layers: Layers | None = None,
    as_of: datetime | None = None,
) -> Operation[Answer]:
    """An answer from the user's memory with its evidence (with `tokens`: from that context)."""
    # Not retried: each answer calls the model and records a run, so a retry could pay twice.
    return Operation(
        name="Answer",
        document=documents.ANSWER_DOC,
        variables=_present(
            userId=user_id, question=question, budget=_budget(layers, tokens), asOf=_time(as_of)
        ),
        parse=parsers.answer_data,
        field="answer",
        mutation=False,
        retryable=False,
    )


def audit(fact_id: str) -> Operation[FactAudit]:
    """A fact's audit trail: episodes -> interactions, supersessions, runs and their cost."""
    return Operation(
        name="Audit",
        document=documents.AUDIT_DOC,
        variables={"id": fact_id},
        parse=parsers.audit_data,
        field="fact",
        mutation=False,
        retryable=True,  # a read
    )


def forget_interaction(interaction_id: str) -> Operation[InteractionForgotten]:
    """Erase an interaction and everything derived only from it; rebuild what survives."""
    # Not retried: after a lost answer the retry would find nothing left and raise NotFound.
    return Operation(
        name="ForgetInteraction",
        document=documents.FORGET_INTERACTION_DOC,
        variables={"id": interaction_id},
        parse=parsers.forget_interaction_data,
        field="forgetInteraction",
        mutation=True,
        retryable=False,
    )


def forget_user(user_id: str) -> Operation[UserForgotten]:
    """Erase a user entirely: interactions, episodes, facts and runs."""
    return Operation(
        name="ForgetUser",
        document=documents.FORGET_USER_DOC,
        variables={"id": user_id},
        parse=parsers.forget_user_data,
        field="forgetUser",
        mutation=True,
        retryable=False,
    )
