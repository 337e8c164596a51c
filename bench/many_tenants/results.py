"""The shapes of the many-tenants report, as written to JSON (docs/benchmarks/ quotes these keys)."""

from __future__ import annotations

from typing import TypedDict

from bench.machine import MachineInfo


class Mismatch(TypedDict):
    user: str
    query: str
    k: int
    returned: int
    extra: list[int]
    missing: list[int]
    foreign: int


class ModeSummary(TypedDict):
    """One mode's recalls of one layout's probes at one checkpoint."""

    recalls: int
    p50_ms: float
    p99_ms: float
    mean_ms: float
    exact_share: float
    strict_order_share: float
    foreign_hits: int
    max_score_error: float
    mismatches: list[Mismatch]


# layout name -> mode name -> its summary
Measured = dict[str, dict[str, ModeSummary]]


class Checkpoint(TypedDict):
    share_target: float
    loaded: int
    interactions_in_database: int
    users_loaded: dict[str, int]
    settle_s: float | None
    load_avg_1m: float
    layouts: Measured


class P99Judgment(TypedDict):
    single_tenant_p99_ms: float
    p99_ms: float
    ratio: float | None
    met: bool


class Targets(TypedDict):
    layout: str
    at_interactions_in_database: int
    p99_ratio_max: float
    p99: dict[str, P99Judgment]
    exact_share_min: float | None
    exact_met: bool
    all_met: bool


class LayoutRecord(TypedDict):
    name: str
    users: int
    per_user: int
    interactions: int


class Ingest(TypedDict):
    interactions: int
    seconds: float
    per_s: float
    writers: int
    stopped_by_deadline: bool


class Measurements(TypedDict):
    layouts: list[LayoutRecord]
    interactions_planned: int
    complete: bool
    ingest: Ingest
    checkpoints: list[Checkpoint]
    targets: Targets


class Report(Measurements):
    embedder: str
    exact_limit: int
    settings: dict[str, object]
    machine: MachineInfo
    total_seconds: float
    command: str
