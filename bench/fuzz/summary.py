"""A run's summary (bench/results/fuzz.json): counts by kind, status and error code, the worst
latency, every failed check with up to ten of its cases, and the list of failed checks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import NotRequired, TypedDict

from bench.fuzz.case import CaseDescription
from bench.fuzz.health import Health
from bench.fuzz.outcome import Outcome


class FailedCase(CaseDescription):
    status: str
    detail: str


class Failures(TypedDict):
    server_errors: list[FailedCase]
    hangs: list[FailedCase]
    rejected_with_write: list[FailedCase]
    errors_without_code: list[FailedCase]


class Summary(TypedDict):
    cases: int
    by_kind: dict[str, int]
    by_transport: dict[str, int]
    by_status: dict[str, int]
    by_error_code: dict[str, int]
    rejected: int
    max_latency_s: float
    slowest_case: CaseDescription | None
    server_errors: int
    hangs: int
    rejected_with_write: int
    unattributed_writes: int
    errors_without_code: int
    failures: Failures
    # Added by the full run (bench/fuzz_graphql.py); the health check by the tests too.
    health: NotRequired[Health]
    lanes: NotRequired[int]
    seed: NotRequired[int]
    wall_s: NotRequired[float]
    command: NotRequired[str]
    problems: NotRequired[list[str]]


def _counts(values: Iterable[str]) -> dict[str, int]:
    return dict(sorted(Counter(values).items()))


def _samples(failed: list[Outcome]) -> list[FailedCase]:
    return [FailedCase(**o.case.describe(), status=o.status, detail=o.detail) for o in failed[:10]]


def summarize(outcomes: list[Outcome], unattributed_writes: int = 0) -> Summary:
    """Counts by kind, status and error code, the worst latency, and every failed check."""
    slowest = max(outcomes, key=lambda o: o.latency_s, default=None)
    server_errors = [o for o in outcomes if o.server_error]
    hangs = [o for o in outcomes if o.hang]
    writes = [o for o in outcomes if o.wrote]
    uncoded = [o for o in outcomes if o.missing_code]
    return {
        "cases": len(outcomes),
        "by_kind": _counts(o.case.kind for o in outcomes),
        "by_transport": _counts(o.case.transport for o in outcomes),
        "by_status": _counts(o.status for o in outcomes),
        "by_error_code": _counts(c for o in outcomes for c in o.codes),
        "rejected": sum(o.rejected for o in outcomes),
        "max_latency_s": round(slowest.latency_s, 3) if slowest else 0.0,
        "slowest_case": slowest.case.describe() if slowest else None,
        "server_errors": len(server_errors),
        "hangs": len(hangs),
        "rejected_with_write": len(writes),
        "unattributed_writes": unattributed_writes,
        "errors_without_code": sum(o.missing_code for o in outcomes),
        "failures": {
            "server_errors": _samples(server_errors),
            "hangs": _samples(hangs),
            "rejected_with_write": _samples(writes),
            "errors_without_code": _samples(uncoded),
        },
    }


def failed(summary: Summary) -> list[str]:
    """The checks a summary fails (empty when the run is clean)."""
    checks = {
        "server_errors": summary["server_errors"],
        "hangs": summary["hangs"],
        "rejected_with_write": summary["rejected_with_write"],
        "unattributed_writes": summary["unattributed_writes"],
        "errors_without_code": summary["errors_without_code"],
    }
    problems = [f"{name}: {count}" for name, count in checks.items() if count]
    health = summary.get("health")
    if health is not None and not health.get("ok"):
        problems.append(f"unhealthy after: {health}")
    return problems
