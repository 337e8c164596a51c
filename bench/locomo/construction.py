"""What building memory cost: LLM calls and tokens per op from the ConsolidationRun nodes, beside
what the local server logged over HTTP."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.locomo.results import ConstructionReport, OpStats, UsageLog
from graph.database import Database
from graph.models import Owner
from local_llm_server import LocalLLMServer

CONSTRUCTION_OPS = ("create_episode", "merge_episode", "refine_facts")
_STATS = ("calls", "failed", "prompt_tokens", "completion_tokens")


@dataclass
class Construction:
    """What streaming one sample (or, summed, all of them) cost in one mode."""

    units: int = 0
    wall_s: float = 0.0
    triggered: int = 0
    # Of those, the ones salience alone opened (consolidation/salience/).
    salient: int = 0
    deferred: int = 0
    consolidated: int = 0
    by_op: dict[str, OpStats] = field(default_factory=dict)
    http_calls: int | None = None
    http_prompt_tokens: int | None = None
    http_completion_tokens: int | None = None

    def add(self, other: Construction) -> None:
        self.units += other.units
        self.wall_s = round(self.wall_s + other.wall_s, 3)
        self.triggered += other.triggered
        self.salient += other.salient
        self.deferred += other.deferred
        self.consolidated += other.consolidated
        for op, stats in other.by_op.items():
            mine = self.by_op.setdefault(op, {})
            for key, value in stats.items():
                mine[key] = mine.get(key, 0) + value
        if other.http_calls is not None:
            self.http_calls = (self.http_calls or 0) + other.http_calls
            self.http_prompt_tokens = (self.http_prompt_tokens or 0) + (other.http_prompt_tokens or 0)
            self.http_completion_tokens = (self.http_completion_tokens or 0) + (
                other.http_completion_tokens or 0
            )

    def totals(self) -> OpStats:
        return {key: sum(stats.get(key, 0) for stats in self.by_op.values()) for key in _STATS}

    def to_json(self) -> ConstructionReport:
        totals = self.totals()
        return {
            "units": self.units,
            "wall_s": round(self.wall_s, 2),
            "llm_calls": totals["calls"],
            "failed_calls": totals["failed"],
            "prompt_tokens": totals["prompt_tokens"],
            "completion_tokens": totals["completion_tokens"],
            "by_op": self.by_op,
            "interactions_consolidated": self.consolidated,
            "consolidated_share": round(self.consolidated / self.units, 4) if self.units else None,
            "triggered": self.triggered,
            "trigger_share": round(self.triggered / self.units, 4) if self.units else None,
            "salience_triggered": self.salient,
            "salience_share": round(self.salient / self.units, 4) if self.units else None,
            "deferred": self.deferred,
            "server_usage_log": self._usage_log(totals),
        }

    def _usage_log(self, totals: OpStats) -> UsageLog | None:
        if self.http_calls is None:
            return None
        agrees = (
            self.http_prompt_tokens == totals["prompt_tokens"]
            and self.http_completion_tokens == totals["completion_tokens"]
        )
        return {
            "http_calls": self.http_calls,
            "prompt_tokens": self.http_prompt_tokens,
            "completion_tokens": self.http_completion_tokens,
            "agrees_with_runs": agrees,
        }


async def run_costs(db: Database, owner: Owner) -> dict[str, OpStats]:
    """Construction runs of this user, from the ConsolidationRun nodes (the project's analytics)."""
    rows = await db.read("analytics/consolidation_cost", **owner.params(), since=None, until=None, op=None)
    by_op: dict[str, OpStats] = {}
    for row in rows:
        if row["op"] not in CONSTRUCTION_OPS:
            continue
        stats = by_op.setdefault(row["op"], {})
        for key in _STATS:
            stats[key] = stats.get(key, 0) + int(row[key] or 0)
    return by_op


async def consolidated_count(db: Database, owner: Owner) -> int:
    rows = await db.read("analytics/recurrence_rate", tenant=owner.tenant, user_id=owner.user_id)
    return int(rows[0]["consolidated"]) if rows else 0


def usage_slice(server: LocalLLMServer | None, start: int) -> tuple[int, int, int] | None:
    """(HTTP calls, prompt tokens, completion tokens) the server logged since `start`."""
    if server is None:
        return None
    entries = server.usage_log[start:]
    return (
        len(entries),
        sum(int(e["prompt_tokens"]) for e in entries),
        sum(int(e["completion_tokens"]) for e in entries),
    )
