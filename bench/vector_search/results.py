"""The shapes of the vector-search report, as printed (docs/benchmarks/ quotes these keys)."""

from __future__ import annotations

from typing import Any, TypedDict


class ScenarioResult(TypedDict, total=False):
    n_interactions: int
    users: int
    per_user: int
    tenant: str
    load_seconds: float | None
    load_rate_per_s: float | None
    queries: int
    p50_ms: float
    p99_ms: float
    mean_ms: float
    recall_at_10: float
    min_recall_at_10: float
    short_results: int
    foreign_hits: int
    # named statement -> reads: the query path the searches took
    strategy: dict[str, int]
    round_trips_per_query: float
    targets_met: bool
    load_avg_1m: float


class ServerInfo(TypedDict):
    neo4j_version: str | None
    neo4j_edition: str | None
    # index name -> its options (as the server reports them) and state
    vector_indexes: dict[str, dict[str, Any]]
    interactions_in_database: int | None


class Measurements(TypedDict):
    server: ServerInfo
    settle_s_after_load: float | None
    scenarios: dict[str, ScenarioResult]
