"""Adaptive thresholds on a real Neo4j: the user's estimate is stored on their node, moves from its
start towards the target share, opens the gate the fixed start never would, and stays the user's."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from tests.support.engines import DIMENSION, engine_settings

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
TEXTS = [f"I cooked spicy ramen with {extra} tonight." for extra in
         ("egg", "pork", "tofu", "corn", "leeks", "kimchi", "garlic", "chili", "miso", "seaweed", "beef", "nori")]  # fmt: skip


def engine(db: Database, adaptive: bool) -> MemoryEngine:
    settings = engine_settings(
        theta_sim=0.99, theta_count=2, merge_threshold=0.99, salience="off",
        adaptive_thresholds=adaptive, adaptive_target=0.5,
    )  # fmt: skip
    return MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), settings)


async def stream(memory: MemoryEngine, owner: Owner) -> list[str]:
    actions = []
    for i, text in enumerate(TEXTS):
        outcome = (
            await memory.remember(owner, Unit(text=text, occurred_at=T0 + timedelta(minutes=i)))
        ).consolidation
        assert outcome is not None
        actions.append(outcome.action)
    return actions


async def test_the_estimate_moves_opens_the_gate_and_stays_the_users(db: Database, owner: Owner) -> None:
    fixed = Owner(tenant=f"t-{uuid.uuid4().hex[:12]}", user_id="alice")
    assert "created" not in await stream(engine(db, False), fixed)
    adaptive = engine(db, True)
    assert "created" in await stream(adaptive, owner)
    estimate = await adaptive.stores.thresholds.read(owner)
    assert estimate is not None and estimate.theta_sim < 0.99 and 1 <= estimate.count < len(TEXTS)
    assert await adaptive.stores.thresholds.read(fixed) is None
    other = Owner(tenant=owner.tenant, user_id="bob")
    await adaptive.remember(other, Unit(text=TEXTS[0], occurred_at=T0))
    assert await adaptive.stores.thresholds.read(other) is None  # no predecessor, no score yet
