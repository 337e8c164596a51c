"""The engine's health metrics, in a Prometheus registry of its own (one `Metrics` per engine, so
several engines in one process do not collide); `GET /metrics` renders it (api/metrics.py).

Nothing here carries a tenant, a user or any text: the only label is a failure's class, from a
fixed set, so the cardinality stays bounded.
"""

from __future__ import annotations

from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

from consolidation.providers.llm.types import LLMError
from graph.errors import LeaseLost, StoreError
from graph.leases import Backlog
from graph.waiting import WaitingBacklog

# Why a consolidation pass (or one interaction of it) failed and was left pending:
#   llm         the LLM call failed (unreachable, refused, malformed answer); the unit is deferred
#   lease_lost  the lease expired and was taken over mid-pass; its commit was refused
#   store       Neo4j unreachable or a driver error
#   timeout     an inline pass ran past its budget (the rest stays pending)
#   other       anything else (an embedder failure, a bug)
FAILURE_CLASSES: Final = ("llm", "lease_lost", "store", "timeout", "other")


def failure_class(error: BaseException) -> str:
    """The class (one of FAILURE_CLASSES) of an error that ended a consolidation pass."""
    if isinstance(error, LeaseLost):
        return "lease_lost"
    if isinstance(error, LLMError):
        return "llm"
    if isinstance(error, StoreError) or type(error).__module__.startswith("neo4j"):
        return "store"
    if isinstance(error, TimeoutError):
        return "timeout"
    return "other"


# The counters without labels: (name, help), in the order Metrics unpacks (and exposes) them.
_COUNTERS: Final = (
    (
        "recmem_lease_takeovers",
        "Consolidation leases this engine took after another holder let them expire.",
    ),
    (
        "recmem_sweeper_passes",
        "Passes of the background sweeper for users with unattended pending interactions.",
    ),
    (
        "recmem_sweeper_users",
        "Users the sweeper found with unattended pending interactions and queued.",
    ),
)

# Gauges set from one read of the database when `/metrics` is scraped: (the read's field, name, help).
GaugeTable = tuple[tuple[str, str, str], ...]
_BACKLOG_GAUGES: Final[GaugeTable] = (
    (
        "pending",
        "recmem_pending_interactions",
        "Interactions still waiting for the recurrence gate, over the whole database "
        "(read when scraped; NaN when Neo4j did not answer).",
    ),
    (
        "users",
        "recmem_pending_users",
        "Users with interactions still waiting for the recurrence gate (read when scraped).",
    ),
    (
        "oldest_age_s",
        "recmem_pending_oldest_age_seconds",
        "Seconds since the oldest interaction still waiting for the gate was written (0: none).",
    ),
    (
        "partial",
        "recmem_pending_partial",
        "1 when the backlog read reached its user limit, so the pending gauges are lower bounds.",
    ),
)
# Turns through the gate that wait for their episode's batch merge (not pending).
_WAITING_GAUGES: Final[GaugeTable] = (
    (
        "waiting",
        "recmem_waiting_interactions",
        "Interactions waiting for their episode's batch merge, over the whole database "
        "(read when scraped; NaN when Neo4j did not answer).",
    ),
    (
        "users",
        "recmem_waiting_users",
        "Users with interactions waiting for a batch merge (read when scraped).",
    ),
)


class Metrics:
    """Counters the engine increments, and the backlog gauges set when `/metrics` is scraped.

    `process`: also register prometheus_client's process, platform and GC collectors."""

    def __init__(self, *, process: bool = True) -> None:
        self.registry = CollectorRegistry()
        if process:
            ProcessCollector(registry=self.registry)
            PlatformCollector(registry=self.registry)
            GCCollector(registry=self.registry)
        self.failures = Counter(
            "recmem_consolidation_failures",
            "Consolidation passes or units that failed and stayed pending, by class.",
            ["class"],
            registry=self.registry,
        )
        for name in FAILURE_CLASSES:
            self.failures.labels(name)  # every class is exposed, at 0 until it happens
        self.lease_takeovers, self.sweeps, self.swept_users = (
            Counter(name, help_text, registry=self.registry) for name, help_text in _COUNTERS
        )
        self.backlog_gauges = self._gauges(_BACKLOG_GAUGES)
        self.waiting_gauges = self._gauges(_WAITING_GAUGES)

    def _gauges(self, table: GaugeTable) -> dict[str, Gauge]:
        return {field: Gauge(name, help_text, registry=self.registry) for field, name, help_text in table}

    def failed(self, error: BaseException | str) -> None:
        """Count a failure: an error, or a class name from FAILURE_CLASSES."""
        name = error if isinstance(error, str) else failure_class(error)
        self.failures.labels(name if name in FAILURE_CLASSES else "other").inc()

    def lease_taken_over(self) -> None:
        self.lease_takeovers.inc()

    def swept(self, users: int) -> None:
        self.sweeps.inc()
        self.swept_users.inc(users)

    def observe_backlog(self, backlog: Backlog | None) -> None:
        """Set the backlog gauges; None (the read failed) sets them to NaN."""
        _observe(self.backlog_gauges, backlog)

    def observe_waiting(self, waiting: WaitingBacklog | None) -> None:
        """Set the waiting gauges; None (the read failed) sets them to NaN."""
        _observe(self.waiting_gauges, waiting)


def _observe(gauges: dict[str, Gauge], reading: Backlog | WaitingBacklog | None) -> None:
    """Each gauge to its field of `reading` (a flag as 1 or 0)."""
    for field, gauge in gauges.items():
        gauge.set(float("nan") if reading is None else float(getattr(reading, field)))
