"""Builds the ConsolidationRun records that account for every LLM (or offline) operation."""

from __future__ import annotations

from datetime import UTC, datetime

from consolidation.llm.types import Usage
from graph.models import RunWrite, new_id
from graph.vocabulary import RUN_ID_PREFIX


def run_record(
    op: str,
    usage: Usage | None,
    *,
    provider: str,
    model: str,
    trigger: str,
    read_ids: list[str],
    produced_ids: list[str] | None = None,
    neighbor_count: int = 0,
    threshold: float | None = None,
    status: str = "ok",
    error: str | None = None,
) -> RunWrite:
    return RunWrite(
        id=new_id(RUN_ID_PREFIX),
        op=op,
        trigger=trigger,
        provider=provider,
        model=usage.model if usage is not None and usage.model else model,
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
    )


def with_products(record: RunWrite, produced_ids: list[str]) -> RunWrite:
    """Runs are built before their products have ids; this attaches them."""
    return RunWrite(**{**record.__dict__, "produced_ids": produced_ids})
