"""Per-user consolidation leases held in the database, so every process serializes on them."""

from __future__ import annotations

from collections.abc import Sequence

from graph.database import Database
from graph.models import Owner


class LeaseStore:
    """A lease expires on its own, so a crashed holder blocks a user for at most its duration."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def acquire(self, owner: Owner, holder: str, seconds: float) -> bool:
        rows = await self.db.write(
            "queries/leases/acquire", **owner.params(), holder=holder, lease_ms=int(seconds * 1000)
        )
        return bool(rows and rows[0]["acquired"])

    async def release(self, owner: Owner, holder: str, checked: Sequence[str] = ()) -> bool:
        """Mark `checked` as gated without recurrence and release the lease if held; True when
        interactions are still waiting for the gate."""
        rows = await self.db.write("queries/leases/release", **owner.params(), holder=holder, checked=checked)
        return bool(rows and rows[0]["pending"])
