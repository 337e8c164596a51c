"""Builds the ConsolidationRun records that account for every LLM (or offline) operation."""

from __future__ import annotations

from datetime import UTC, datetime

from consolidation.consolidating.consolidator import Consolidator
from consolidation.providers.llm.types import LLMError, Usage
from graph.models import RunWrite, new_id
from graph.vocabulary import RUN_ID_PREFIX


def run_record(
    by: Consolidator,
    op: str,
    usage: Usage | None,
    *,
    trigger: str,
    read_ids: list[str],
    produced_ids: list[str] | None = None,
    neighbor_count: int = 0,
    threshold: float | None = None,
    status: str = "ok",
    error: str | None = None,
    triggered_by: str | None = None,
    rule: str | None = None,
) -> RunWrite:
    """The run of one operation of `by`, under the model the endpoint reported when it did."""
    return RunWrite(
        id=new_id(RUN_ID_PREFIX),
        op=op,
        trigger=trigger,
        provider=by.name,
        model=usage.model if usage is not None and usage.model else by.model,
        status=status,
        prompt_tokens=usage.prompt_tokens if usage else 0,
        completion_tokens=usage.completion_tokens if usage else 0,
        latency_ms=usage.latency_ms if usage else 0.0,
        neighbor_count=neighbor_count,
        threshold=threshold,
        at=datetime.now(UTC),
        read_ids=read_ids,
        produced_ids=produced_ids or [],
        error=error,
        triggered_by=triggered_by,
        rule=rule,
    )


def failed_run(by: Consolidator, op: str, error: LLMError, *, trigger: str, read_ids: list[str]) -> RunWrite:
    """The run of a call that raised: what it had spent, its status, the error's class."""
    return run_record(
        by,
        op,
        error.usage,
        trigger=trigger,
        read_ids=read_ids,
        status=error.status or "error",
        error=type(error).__name__,
    )


def with_products(record: RunWrite, produced_ids: list[str]) -> RunWrite:
    """Runs are built before their products have ids; this attaches them."""
    return RunWrite(**{**record.__dict__, "produced_ids": produced_ids})
