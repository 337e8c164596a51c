"""Latency statistics, timestamps and the progress log of the service benchmark."""

from __future__ import annotations

import statistics
import sys
import time

from bench.service.results import Latency


def log(message: str) -> None:
    print(f"[service-bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank-interpolated percentile (numpy's default 'linear' method)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary(ms: list[float]) -> Latency:
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 2),
        "p90_ms": round(percentile(ms, 90), 2),
        "p99_ms": round(percentile(ms, 99), 2),
        "mean_ms": round(statistics.fmean(ms), 2) if ms else None,
        "max_ms": round(max(ms), 2) if ms else None,
    }
