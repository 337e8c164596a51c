"""The recurrence gate's decision rule, without a database."""

from __future__ import annotations

from datetime import UTC, datetime

from consolidation.writing.gate import RecurrenceGate, in_time_order
from graph.models import Hit, Interaction

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def unit(seq: int, hour: int = 0) -> Interaction:
    return Interaction(
        id=f"int_{seq}",
        tenant="t",
        user_id="u",
        session_id=None,
        speaker="a",
        text=str(seq),
        occurred_at=T0.replace(hour=hour),
        seq=seq,
        consolidated=False,
        source_ref=None,
    )


def test_opens_at_theta_count_counting_the_new_unit() -> None:
    gate = RecurrenceGate(theta_sim=0.7, theta_count=3, top_k=6)
    new = unit(10)
    below = gate.decide(new, [Hit(new, 1.0), Hit(unit(1), 0.9), Hit(unit(2), 0.69)])
    assert not below.open and [h.item.id for h in below.neighbors] == ["int_1"]
    at = gate.decide(new, [Hit(new, 1.0), Hit(unit(1), 0.9), Hit(unit(2), 0.7)])
    assert at.open and len(at.neighbors) == 2


def test_only_predecessors_count_and_top_k_caps_them() -> None:
    gate = RecurrenceGate(theta_sim=0.5, theta_count=3, top_k=2)
    new = unit(5)
    decision = gate.decide(new, [Hit(unit(9), 0.99), Hit(unit(1), 0.9), Hit(unit(2), 0.8), Hit(unit(3), 0.7)])
    assert [h.item.id for h in decision.neighbors] == ["int_1", "int_2"]
    only_later = gate.decide(new, [Hit(unit(6), 0.99), Hit(unit(7), 0.99)])
    assert not only_later.open


def test_time_order_breaks_ties_by_sequence() -> None:
    units = [unit(3, hour=2), unit(2, hour=1), unit(1, hour=2)]
    assert [u.seq for u in in_time_order(units)] == [2, 1, 3]
