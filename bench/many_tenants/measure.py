"""Measuring: `MemoryEngine.recall` per mode for every probe's queries, each recall's dense hits
judged against the exact top k computed in numpy over the probe's own vectors."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench.many_tenants.data import User
from bench.many_tenants.results import Measured, Mismatch, ModeSummary
from bench.many_tenants.stats import log
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders import Vectors
from consolidation.recall.recaller import context_pools
from consolidation.types import Budgets
from graph.database import Database
from graph.models import Hit, Interaction
from graph.recall import RecallCandidates, RecallSearch

TOKENS = 1_000
# Cosine scores closer than this to the k-th best count as ties: Neo4j and numpy round differently.
TIE = 1e-5


class RecordingSearch(RecallSearch):
    """RecallSearch that keeps the dense interaction hits of its last candidates call: recall
    returns them fused with the lexical view, and exactness is a property of the dense one."""

    def __init__(self, db: Database, dimension: int) -> None:
        super().__init__(db, dimension)
        self.last_dense: list[Hit[Interaction]] = []

    async def candidates(self, *args: Any, **kwargs: Any) -> RecallCandidates:
        found = await super().candidates(*args, **kwargs)
        self.last_dense = found.interactions.dense
        return found


@dataclass
class Tally:
    latencies_ms: list[float] = field(default_factory=list)
    checked: int = 0
    exact: int = 0
    strict: int = 0
    foreign_hits: int = 0
    max_score_error: float = 0.0
    mismatches: list[Mismatch] = field(default_factory=list)


def exact_top(vectors: Vectors, query: Vectors, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Seqs - 1 of the k most similar rows, best first, and every row's cosine (unit vectors)."""
    scores = (vectors.astype(np.float64) @ query.astype(np.float64)).ravel()
    order = np.argsort(-scores, kind="stable")[: min(k, len(scores))]
    return order, scores


def judge(tally: Tally, probe: User, query: str, qvec: Vectors, k: int, hits: list[Hit[Interaction]]) -> None:
    """Count the recall exact when its dense hits are the exact top k, up to ties at the k-th score."""
    assert probe.vectors is not None
    order, scores = exact_top(probe.vectors, qvec, k)
    tally.checked += 1
    own = [h for h in hits if (h.item.tenant, h.item.user_id) == (probe.owner.tenant, probe.owner.user_id)]
    tally.foreign_hits += len(hits) - len(own)
    found = [h.item.seq - 1 for h in own]
    truth = [int(i) for i in order]
    for hit in own:
        tally.max_score_error = max(tally.max_score_error, abs(hit.score - float(scores[hit.item.seq - 1])))
    kth = float(scores[order[-1]]) if len(order) else 0.0
    extra, missing = set(found) - set(truth), set(truth) - set(found)
    tied = all(abs(float(scores[i]) - kth) <= TIE for i in extra | missing)
    strict = found == truth
    exact = len(found) == len(truth) == len(hits) and (set(found) == set(truth) or tied)
    tally.strict += strict
    tally.exact += exact
    if not exact and len(tally.mismatches) < 10:
        tally.mismatches.append(
            {
                "user": probe.owner.user_id,
                "query": query,
                "k": k,
                "returned": len(hits),
                "extra": sorted(extra),
                "missing": sorted(missing),
                "foreign": len(hits) - len(own),
            }
        )


def summary(tally: Tally) -> ModeSummary:
    latencies = np.asarray(tally.latencies_ms)
    return {
        "recalls": len(latencies),
        "p50_ms": round(float(np.percentile(latencies, 50)), 2),
        "p99_ms": round(float(np.percentile(latencies, 99)), 2),
        "mean_ms": round(float(latencies.mean()), 2),
        "exact_share": round(tally.exact / max(1, tally.checked), 4),
        "strict_order_share": round(tally.strict / max(1, tally.checked), 4),
        "foreign_hits": tally.foreign_hits,
        "max_score_error": float(f"{tally.max_score_error:.2e}"),
        "mismatches": tally.mismatches,
    }


@dataclass(frozen=True)
class Mode:
    name: str
    budgets: Budgets
    tokens: int | None

    @property
    def dense_k(self) -> int:
        """How many dense interaction hits recall asks for (`context_pools`,
        consolidation/recall/recaller.py)."""
        pools = self.budgets if self.tokens is None else context_pools(self.budgets, self.tokens)
        return pools.subconscious


MODES = (Mode("budgets", Budgets(), None), Mode(f"tokens_{TOKENS}", Budgets(), TOKENS))


async def measure(
    engine: MemoryEngine, search: RecordingSearch, probes: dict[str, list[User]], rounds: int, warmup: int
) -> Measured:
    """Every probe's queries `rounds` times per mode, per layout, after `warmup` unmeasured passes."""
    result: Measured = {}
    for layout, users in probes.items():
        per_mode: dict[str, ModeSummary] = {}
        for mode in MODES:
            tally = Tally()
            for round_ in range(warmup + rounds):
                for probe in users:
                    for q in range(len(probe.queries)):
                        await one_recall(engine, search, probe, q, mode, tally if round_ >= warmup else None)
            per_mode[mode.name] = summary(tally)
        result[layout] = per_mode
    return result


async def warm_up(
    engine: MemoryEngine, search: RecordingSearch, probes: dict[str, list[User]], seconds: float
) -> None:
    """Unmeasured recalls for `seconds`. The baseline comes first, on a JVM that has not run these
    statements yet and compiles their hot paths for minutes (a first run measured a p50 of 16 ms
    there against 4.6 ms at 200,000 interactions): without this the baseline would be the JIT's."""
    stop = time.monotonic() + seconds
    done = 0
    while time.monotonic() < stop:
        for users in probes.values():
            for mode in MODES:
                for probe in users:
                    await one_recall(engine, search, probe, done % len(probe.queries), mode, None)
        done += 1
    log(f"warmed up for {seconds:.0f} s ({done} passes)")


async def one_recall(
    engine: MemoryEngine, search: RecordingSearch, probe: User, q: int, mode: Mode, tally: Tally | None
) -> None:
    started = time.perf_counter()
    await engine.recall(probe.owner, probe.queries[q], budgets=mode.budgets, tokens=mode.tokens)
    elapsed = (time.perf_counter() - started) * 1000
    if tally is None:
        return
    tally.latencies_ms.append(elapsed)
    assert probe.query_vectors is not None
    judge(tally, probe, probe.queries[q], probe.query_vectors[q], mode.dense_k, search.last_dense)
