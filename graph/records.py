"""Maps rows returned by Cypher to the records in `graph.models`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph.models import ConsolidationRun, Episode, Fact, Interaction, to_python


def instant(value: Any) -> Any:
    """A stored instant: the driver's DateTime, or `toString()` of one, which hot reads return
    because the driver's pure-Python temporal decoding costs ~0.3 ms per value; `fromisoformat`
    is in C. A named zone (`...+01:00[Europe/Paris]`) keeps its offset, so the instant is exact."""
    if isinstance(value, str):
        return datetime.fromisoformat(value.split("[", 1)[0])
    return to_python(value)


def interaction_from(data: dict[str, Any]) -> Interaction:
    return Interaction(
        id=data["id"],
        tenant=data["tenant"],
        user_id=data["user_id"],
        session_id=data.get("session_id"),
        speaker=data["speaker"],
        text=data["text"],
        occurred_at=instant(data["occurred_at"]),
        seq=int(data["seq"]),
        consolidated=bool(data["consolidated"]),
        source_ref=data.get("source_ref"),
        consolidated_at=instant(data.get("consolidated_at")),
        # Pending means `gate_checked = false`, as the sweeper and the backlog count it.
        pending=data["gate_checked"] is False if "gate_checked" in data else None,
    )


def episode_from(data: dict[str, Any]) -> Episode:
    return Episode(
        id=data["id"],
        tenant=data["tenant"],
        user_id=data["user_id"],
        title=data["title"],
        summary=data["summary"],
        version=int(data["version"]),
        first_at=instant(data["first_at"]),
        last_at=instant(data["last_at"]),
        created_at=instant(data["created_at"]),
        current=bool(data["current"]),
        valid_from=instant(data["valid_from"]),
        superseded_at=instant(data.get("superseded_at")),
    )


def fact_from(data: dict[str, Any]) -> Fact:
    return Fact(
        id=data["id"],
        tenant=data["tenant"],
        user_id=data["user_id"],
        text=data["text"],
        kind=data["kind"],
        status=data["status"],
        valid_from=instant(data["valid_from"]),
        valid_to=instant(data.get("valid_to")),
        created_at=instant(data["created_at"]),
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
