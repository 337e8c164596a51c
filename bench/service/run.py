"""One embedder's run: a service per consolidation mode, the HTTP measurements against it, then the
floors and the in-process profile over the same data."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bench.service.client import Client
from bench.service.floors import driver_floors
from bench.service.load import METADATA_FILTER, load_user, measure_recall, measure_remember, warm_up
from bench.service.process import (
    Target,
    cpu_meter,
    create_key,
    neo4j_pid,
    running_service,
)
from bench.service.profile import profile_in_process
from bench.service.results import EmbedderRun, LoadResult, Mode, Profile, RecallResult, ServiceMemory
from bench.service.stats import log
from bench.service.texts import Salads
from harness.processes import proc_status, settle
from harness.serve_process import ServeProcess

Checkpoint = Callable[[EmbedderRun], None]


@dataclass(frozen=True)
class RunOptions:
    """What the command line asks of one embedder's run."""

    modes: list[Mode]
    remember: int
    warmup: int
    neo4j_warmup: int
    max_batch: int
    queries: int
    settle_limit: float
    gated_batch: int
    floors: bool
    floor_n: int
    floor_block: int
    profile: bool
    profile_n: int
    # Load turns with a metadata topic and measure recall with a filter on one topic as well.
    metadata_filter: bool = False


def remember_key(mode: Mode) -> Literal["remember_inline", "remember_background"]:
    return "remember_inline" if mode == "inline" else "remember_background"


@dataclass
class EmbedderBench:
    options: RunOptions
    target: Target
    embedder: str
    sizes: list[int]
    workdir: Path
    checkpoint: Checkpoint = lambda result: None
    key: str | None = None
    recall_users: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        run = uuid.uuid4().hex[:8]
        self.tenant = f"bench-{self.embedder}-{run}"
        self.salads = Salads(seed=hash((self.embedder, run)) & 0xFFFF)
        self.neo_pid = neo4j_pid(self.target.home, None)
        self.result: EmbedderRun = {
            "embedder": self.embedder,
            "neo4j_uri": self.target.uri,
            "tenant": self.tenant,
            "services": [],
        }

    def run(self) -> EmbedderRun:
        for index, mode in enumerate(self.options.modes):
            self._service_run(index, mode)
        self.result["service_peak_rss_mb"] = max(s["peak_rss_mb"] for s in self.result["services"])
        if self.options.profile and self.key is not None:
            self.result["profile_in_process"] = self._profile(self.key)
        return self.result

    def _ensure_key(self) -> None:
        """Created while the first service starts (the two overlap)."""
        if self.key is None:
            self.key = create_key(self.target, self.tenant)

    def _service_run(self, index: int, mode: Mode) -> None:
        options = self.options
        with running_service(
            self.target, self.embedder, mode, options.max_batch, self.workdir, self._ensure_key
        ) as service:
            assert self.key is not None
            client = Client(service.base, self.key)
            try:
                memory_before = service.memory()
                self._measure(index, mode, service, client)
            finally:
                client.close()
            self.result["services"].append(self._memory(mode, service, memory_before))

    def _pids(self, service: ServeProcess) -> dict[str, int | None]:
        return {"service": service.process.pid, "neo4j": self.neo_pid, "client": os.getpid()}

    def _measure(self, index: int, mode: Mode, service: ServeProcess, client: Client) -> None:
        options, label = self.options, f"[{self.embedder}/{mode}]"
        if index == 0 and options.neo4j_warmup > 0:
            log(f"{label} warm-up: {options.neo4j_warmup} requests a kind, unmeasured")
            self.result["neo4j_warmup"] = warm_up(
                client, self.salads, options.neo4j_warmup, options.max_batch
            )
        log(f"{label} single remember x{options.remember}")
        with cpu_meter(self._pids(service), options.remember + options.warmup) as cpu:
            remember = measure_remember(
                client, self.salads, f"remember-{mode}", options.remember, options.warmup
            )
        remember["cpu_ms_per_op"] = cpu.per_op
        remember["consolidation_mode"] = mode
        self.result[remember_key(mode)] = remember
        log(f"  p50 {remember['latency']['p50_ms']} ms")
        if index == 0:
            self._loads_and_recalls(mode, service, client)
            if options.floors:
                self._floors(mode, client)
                self.checkpoint(self.result)

    def _loads_and_recalls(self, mode: Mode, service: ServeProcess, client: Client) -> None:
        loads: dict[str, LoadResult] = {}
        recalls: dict[str, RecallResult] = {}
        for size in self.sizes:
            loads[str(size)], recalls[str(size)] = self._size(mode, service, client, size)
            self.result["recall"], self.result["batch_ingest_partial"] = recalls, loads
            self.checkpoint(self.result)
        total = sum(v["interactions"] for v in loads.values())
        wall = sum(v["wall_s"] for v in loads.values())
        self.result["batch_ingest"] = {
            "per_size": loads,
            "interactions": total,
            "interactions_per_s": round(total / wall, 1) if wall else None,
            "consolidate": False,
            "note": "rememberBatch with consolidate:false (durable write + embedding, no gate)",
        }
        if self.options.gated_batch > 0:
            self.result["batch_ingest_gated"] = self._gated(mode, service, client)
        self.result["recall"] = recalls
        self.result.pop("batch_ingest_partial", None)
        self.checkpoint(self.result)

    def _size(
        self, mode: Mode, service: ServeProcess, client: Client, size: int
    ) -> tuple[LoadResult, RecallResult]:
        """Load one recall user with `size` interactions, let Neo4j settle, measure its recall."""
        options, pids, user = self.options, self._pids(service), f"recall-{size}"
        log(f"[{self.embedder}/{mode}] load {size} interactions via rememberBatch")
        with cpu_meter(pids, size) as cpu:
            load = load_user(
                client, self.salads, user, size, options.max_batch, False, options.metadata_filter
            )
        load["cpu_ms_per_interaction"] = cpu.per_op
        log(f"  {load['interactions_per_s']} interactions/s")
        self.recall_users[size] = user
        settled = settle(pids.get("neo4j"), limit_s=options.settle_limit)
        log(f"  Neo4j idle again after {settled} s (index merges after the load)")
        log(f"[{self.embedder}/{mode}] recall x{options.queries} at {size}")
        with cpu_meter(pids, options.queries + options.warmup) as cpu:
            recall = measure_recall(client, self.salads, user, options.queries, options.warmup)
        recall["cpu_ms_per_op"] = cpu.per_op
        recall["interactions"] = size
        recall["settle_s_after_load"] = settled
        log(f"  p50 {recall['latency']['p50_ms']} ms")
        if options.metadata_filter:
            self._filtered(pids, client, user, size)
        return load, recall

    def _filtered(self, pids: dict[str, int | None], client: Client, user: str, size: int) -> None:
        """The same user's recall under a metadata filter on one topic (a tenth of its turns)."""
        options = self.options
        log(f"[{self.embedder}] filtered recall x{options.queries} at {size}")
        with cpu_meter(pids, options.queries + options.warmup) as cpu:
            found = measure_recall(
                client, self.salads, user, options.queries, options.warmup, filter=METADATA_FILTER
            )
        found["cpu_ms_per_op"] = cpu.per_op
        found["interactions"] = size
        self.result.setdefault("recall_filtered", {})[str(size)] = found
        log(f"  p50 {found['latency']['p50_ms']} ms (filtered)")

    def _gated(self, mode: Mode, service: ServeProcess, client: Client) -> LoadResult:
        gated = self.options.gated_batch
        log(f"[{self.embedder}/{mode}] gated ingest {gated}")
        with cpu_meter(self._pids(service), gated) as cpu:
            load = load_user(client, self.salads, "gated-batch", gated, self.options.max_batch, None)
        load["cpu_ms_per_interaction"] = cpu.per_op
        load["note"] = (
            f"rememberBatch with consolidate:null in {mode} mode: the gate runs for every "
            "unit (non-recurring texts, so no consolidation fires)"
        )
        return load

    def _largest(self) -> tuple[int | None, str | None]:
        largest = max(self.recall_users) if self.recall_users else None
        return largest, self.recall_users.get(largest) if largest else None

    def _floors(self, mode: Mode, client: Client) -> None:
        largest, user = self._largest()
        log(f"[{self.embedder}/{mode}] floors: the same statements through the driver, interleaved with HTTP")
        n, block = self.options.floor_n, self.options.floor_block
        try:
            found = asyncio.run(
                driver_floors(self.target, self.embedder, self.tenant, user, self.salads, n, client, block)
            )
            found["recall_user_interactions"] = largest
            found["consolidation_mode"] = mode
            self.result["driver_floors"] = found
        except Exception as error:  # a failed floor must not lose the HTTP figures
            log(f"floors failed: {error!r}")
            self.result["driver_floors"] = {"error": repr(error)}

    def _memory(self, mode: Mode, service: ServeProcess, before: dict[str, int]) -> ServiceMemory:
        after = service.memory()
        neo = proc_status(self.neo_pid) if self.neo_pid else {}
        return {
            "consolidation_mode": mode,
            "pid": service.process.pid,
            "rss_kb_at_start": before.get("VmRSS"),
            "rss_kb_at_end": after.get("VmRSS"),
            "peak_rss_kb": after.get("VmHWM"),
            "peak_rss_mb": round(after.get("VmHWM", 0) / 1024, 1),
            "neo4j_peak_rss_mb": round(neo["VmHWM"] / 1024, 1) if "VmHWM" in neo else None,
            "memory_source": "/proc/PID/status VmHWM",
        }

    def _profile(self, key: str) -> Profile:
        largest, user = self._largest()
        log(f"[{self.embedder}] in-process profile (no HTTP) against the user with {largest} interactions")
        try:
            profile = asyncio.run(
                profile_in_process(
                    self.target, self.embedder, self.tenant, key, user, self.salads, self.options.profile_n
                )
            )
            profile["recall_user_interactions"] = largest
        except Exception as error:  # a failed profile must not lose the HTTP figures
            log(f"profile failed: {error!r}")
            profile = {"error": repr(error)}
        return profile
