"""The shapes of the service benchmark's report: what each phase measures, as written to JSON.

TypedDicts rather than dataclasses: the report is JSON (printed, saved after every phase, merged
from earlier reports with --include-runs), and these keys are the ones docs/benchmarks/ and the saved
results quote. Keys that only some runs carry are NotRequired.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from bench.machine import MachineInfo

Mode = Literal["inline", "background"]
# CPU milliseconds per operation by process (service, neo4j, client) and their total.
CpuMs = dict[str, float | None]
# Derived splits whose keys say how they were computed ("http_total", "embedding", ...).
Split = dict[str, float | None]


class Latency(TypedDict):
    n: int
    p50_ms: float
    p90_ms: float
    p99_ms: float
    mean_ms: float | None
    max_ms: float | None


class StatementsLatency(Latency):
    """A floor: the latency of replaying the statements named, straight through the driver."""

    statements: list[str]
    note: NotRequired[str]


class RememberResult(TypedDict):
    latency: Latency
    throughput_per_s: float
    warmup_requests: int
    consolidation_actions: dict[str, int]
    llm_calls: int
    load_average_after: list[float] | None
    cpu_ms_per_op: NotRequired[CpuMs]
    consolidation_mode: NotRequired[str]


class LoadResult(TypedDict):
    interactions: int
    batch_size: int
    consolidate: bool | None
    wall_s: float
    interactions_per_s: float
    batch_latency: Latency
    load_average_after: list[float] | None
    cpu_ms_per_interaction: NotRequired[CpuMs]
    note: NotRequired[str]


class RecallResult(TypedDict):
    latency: Latency
    budgets: dict[str, int]
    warmup_queries: int
    mean_hits_per_layer: dict[str, float]
    load_average_after: list[float] | None
    cpu_ms_per_op: NotRequired[CpuMs]
    interactions: NotRequired[int]
    settle_s_after_load: NotRequired[float]
    # The RecallFilter of a filtered recall (--metadata-filter).
    filter: NotRequired[dict[str, object]]


class BatchIngest(TypedDict):
    per_size: dict[str, LoadResult]
    interactions: int
    interactions_per_s: float | None
    consolidate: bool
    note: str


class WarmUp(TypedDict):
    requests_per_kind: int
    loaded: int
    wall_s: float


class ServiceMemory(TypedDict):
    consolidation_mode: str
    pid: int
    rss_kb_at_start: int | None
    rss_kb_at_end: int | None
    peak_rss_kb: int | None
    peak_rss_mb: float
    neo4j_peak_rss_mb: float | None
    memory_source: str


class Profile(TypedDict, total=False):
    """The in-process profile: the same operations without HTTP/GraphQL (or the error it met)."""

    error: str
    n: int
    recall_user_interactions: int | None
    embed_one_query: Latency
    embed_batch_of_100: Latency
    api_key_lookup: Latency
    neo4j_trivial_read_roundtrip: Latency
    neo4j_commit_unindexed_write: Latency
    engine_recall: Latency
    neo4j_recall_statement: Latency
    neo4j_interaction_vector_search: Latency
    write_batch_of_100_split: dict[str, Latency]
    engine_remember_write_only: Latency
    engine_remember_with_gate: Latency


class ServerSplit(TypedDict):
    """An interleaved request's time by the service's Server-Timing header (bench/service/floors.py)."""

    n: int
    round_trip_p50_ms: float
    outside_service_p50_ms: float
    service_app_p50_ms: float
    service_neo4j_p50_ms: float
    service_neo4j_over_floor_p50_ms: float


class DriverFloors(TypedDict, total=False):
    """The database floors: the requests' statements replayed through the driver (or the error)."""

    error: str
    n: int
    block: int
    remember_write: StatementsLatency
    remember_http_interleaved: Latency
    recall_http_interleaved: Latency
    remember_http_server_timing: ServerSplit
    recall_http_server_timing: ServerSplit
    recall_reads: StatementsLatency
    recall_user_interactions: int | None
    consolidation_mode: str


class Floor(TypedDict):
    target_ms: float
    floor_ms: float
    floor: str
    floor_above_target: bool
    bare_commit_ms: NotRequired[float]


class Floors(TypedDict, total=False):
    recall_p50: Floor
    remember_p50: Floor


class Gap(TypedDict):
    http_p50_ms: float
    http_p99_ms: float
    floor_p50_ms: float
    floor_p99_ms: float
    gap_p50_ms: float
    within_allowed_gap: bool
    measured: str
    split_p50_ms: NotRequired[Split]
    by_server_timing: NotRequired[ServerSplit]


class Overheads(TypedDict, total=False):
    allowed_gap_ms: float
    remember_p50: Gap
    recall_p50: Gap


class EarlierReport(TypedDict):
    """Where a run merged with --include-runs was measured."""

    path: str
    started_at: str | None
    command: str | None
    load_average_at_start: list[float] | None
    load_average_at_end: list[float] | None
    wall_s: float | None


class EmbedderRun(TypedDict, total=False):
    """Everything measured for one embedder."""

    embedder: str
    neo4j_uri: str
    tenant: str
    services: list[ServiceMemory]
    neo4j_warmup: WarmUp
    remember_inline: RememberResult
    remember_background: RememberResult
    recall: dict[str, RecallResult]
    # With --metadata-filter: the same users' recall under a metadata filter, per size.
    recall_filtered: dict[str, RecallResult]
    batch_ingest_partial: dict[str, LoadResult]
    batch_ingest: BatchIngest
    batch_ingest_gated: LoadResult
    driver_floors: DriverFloors
    service_peak_rss_mb: float
    profile_in_process: Profile
    attribution: dict[str, Split] | None
    floors: Floors | None
    overheads: Overheads | None
    from_report: EarlierReport


class MsJudgment(TypedDict):
    value_ms: float
    target_ms: float
    met: bool


class RateJudgment(TypedDict):
    value_per_s: float
    target_per_s: float
    met: bool


class Targets(TypedDict, total=False):
    evaluated: bool
    reason: str
    size: int
    note: str
    recall_evaluated_at: int | None
    recall_p50: MsJudgment
    recall_p99: MsJudgment
    remember_p50_inline: MsJudgment
    remember_p50_background: MsJudgment
    batch_ingest: RateJudgment
    all_met: bool


class StoredCheck(TypedDict):
    """A sweep level's writes as found in Neo4j: each acknowledged one stored exactly once."""

    stored: int
    distinct_stored: int
    acknowledged_missing: int
    stored_unacknowledged: int
    every_acknowledged_stored_once: bool
    seq_exact_per_user: bool


class SweepLevel(StoredCheck):
    writers: int
    acknowledged: int
    per_s: float
    ack: Latency
    errors: dict[str, int]
    cpu_ms_per_write: dict[str, float]
    load_average_after: list[float] | None
    vs_one_writer: NotRequired[float | None]


class SweepVariant(TypedDict):
    group_commit_wait_ms: float
    levels: list[SweepLevel]


class Sweep(TypedDict):
    writers: list[int]
    seconds_per_level: float
    tenant_users_per_level: str
    texts: str
    consolidation_mode: str
    client: str
    runs: dict[str, SweepVariant]


class CodeVersion(TypedDict):
    commit: str
    modified: list[str]


class Report(TypedDict, total=False):
    benchmark: str
    started_at: str
    machine: MachineInfo
    code: CodeVersion
    load_average_at_start: list[float] | None
    command: str
    settings: dict[str, object]
    targets: Targets
    runs: dict[str, EmbedderRun]
    concurrency_sweep: Sweep
    embedder_share: dict[str, dict[str, float | None]]
    wall_s: float
    load_average_at_end: list[float] | None
    complete: bool
