"""Maps rows returned by Cypher to the records in `graph.models`."""

from __future__ import annotations

from typing import Any

from graph.models import ConsolidationRun, Episode, Fact, Interaction, to_python


def interaction_from(data: dict[str, Any]) -> Interaction:
    return Interaction(
        id=data["id"],
        tenant=data["tenant"],
        user_id=data["user_id"],
        session_id=data.get("session_id"),
        speaker=data["speaker"],
        text=data["text"],
        occurred_at=to_python(data["occurred_at"]),
        seq=int(data["seq"]),
        consolidated=bool(data["consolidated"]),
        source_ref=data.get("source_ref"),
        consolidated_at=to_python(data.get("consolidated_at")),
    )


def episode_from(data: dict[str, Any]) -> Episode:
    return Episode(
        id=data["id"],
        tenant=data["tenant"],
        user_id=data["user_id"],
        title=data["title"],
        summary=data["summary"],
        version=int(data["version"]),
        first_at=to_python(data["first_at"]),
        last_at=to_python(data["last_at"]),
        created_at=to_python(data["created_at"]),
        current=bool(data["current"]),
        valid_from=to_python(data["valid_from"]),
        superseded_at=to_python(data.get("superseded_at")),
    )


def fact_from(data: dict[str, Any]) -> Fact:
    return Fact(
        id=data["id"],
        tenant=data["tenant"],
        user_id=data["user_id"],
        text=data["text"],
        kind=data["kind"],
        status=data["status"],
        valid_from=to_python(data["valid_from"]),
        valid_to=to_python(data.get("valid_to")),
        created_at=to_python(data["created_at"]),
    )


def run_from(data: dict[str, Any]) -> ConsolidationRun:
    return ConsolidationRun(
        id=data["id"],
        tenant=data["tenant"],
        user_id=data["user_id"],
        op=data["op"],
        trigger=data["trigger"],
        provider=data["provider"],
        model=data["model"],
        status=data["status"],
        prompt_tokens=int(data["prompt_tokens"]),
        completion_tokens=int(data["completion_tokens"]),
        latency_ms=float(data["latency_ms"]),
        neighbor_count=int(data["neighbor_count"]),
        threshold=data.get("threshold"),
        at=to_python(data["at"]),
        error=data.get("error"),
    )
