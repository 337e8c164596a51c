"""The recurrence gate: decides, with no LLM call, whether a topic has recurred enough to consolidate."""

from __future__ import annotations

from dataclasses import dataclass

from graph.models import Hit, Interaction


@dataclass(frozen=True)
class GateDecision:
    open: bool
    # The similar unconsolidated predecessors that count towards theta_count, most similar first.
    neighbors: list[Hit[Interaction]]
    threshold: float
    needed: int


@dataclass(frozen=True)
class RecurrenceGate:
    """RecMem's gate: at least `theta_count` similar unconsolidated units, the new one included.

    `candidates` are the unconsolidated interactions most similar to the new unit; the top `top_k`
    earlier ones at or above `theta_sim` (plain cosine) are its recurring neighbours.
    """

    theta_sim: float
    theta_count: int
    top_k: int

    def decide(self, unit: Interaction, candidates: list[Hit[Interaction]]) -> GateDecision:
        # Only predecessors count: a unit written later but still waiting for its own gate must not
        # be pulled in, or background and inline consolidation would build different episodes.
        neighbors = [h for h in candidates if h.item.seq < unit.seq and h.score >= self.theta_sim]
        neighbors = neighbors[: self.top_k]
        return GateDecision(
            open=len(neighbors) + 1 >= self.theta_count,
            neighbors=neighbors,
            threshold=self.theta_sim,
            needed=self.theta_count,
        )


def in_time_order(units: list[Interaction]) -> list[Interaction]:
    """The order the LLM reads turns in: by time, ties broken by the stream's sequence number."""
    return sorted(units, key=lambda unit: (unit.occurred_at, unit.seq))
