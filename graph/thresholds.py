"""Each user's adaptive recurrence threshold, stored on the User node (consolidation/writing/adaptive.py
computes it; this reads and writes it)."""

from __future__ import annotations

from dataclasses import dataclass

from graph.database import Database
from graph.models import Owner


@dataclass(frozen=True)
class ThresholdEstimate:
    theta_sim: float
    count: int  # how many turns have updated it


class ThresholdStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def read(self, owner: Owner) -> ThresholdEstimate | None:
        rows = await self.db.read("queries/thresholds/read", **owner.params())
        if not rows or rows[0]["theta_sim"] is None:
            return None
        return ThresholdEstimate(float(rows[0]["theta_sim"]), int(rows[0]["count"] or 0))

    async def write(self, owner: Owner, estimate: ThresholdEstimate, holder: str) -> None:
        """Written only while `holder` owns the user's lease (a stale pass changes nothing)."""
        await self.db.write(
            "queries/thresholds/write",
            **owner.params(),
            theta_sim=estimate.theta_sim,
            count=estimate.count,
            holder=holder,
        )
