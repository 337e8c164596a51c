"""A user queued by a write is consolidated before the users the sweeper queued, so a swept backlog
never delays a fresh write's consolidation (consolidation/consolidating/background.py)."""

from __future__ import annotations

import asyncio
from typing import cast

from consolidation.consolidating.background import Background
from consolidation.metrics import Metrics
from consolidation.settings import EngineSettings
from consolidation.stores import Stores
from consolidation.types import ConsolidationOutcome
from graph.models import Owner


def _owner(name: str) -> Owner:
    return Owner("t-order", name)


async def _order(enqueue: list[tuple[str, bool]]) -> list[str]:
    """The users one worker consolidates, queued as `enqueue` says ((user, swept), in order) while
    the worker is busy on a first user."""
    passes: list[str] = []
    first_started, release = asyncio.Event(), asyncio.Event()

    async def run_pass(owner: Owner) -> list[ConsolidationOutcome]:
        passes.append(owner.user_id)
        if owner.user_id == "busy":
            first_started.set()
            await release.wait()
        return []

    settings = EngineSettings(worker_concurrency=1, consolidation_delay_s=0, sweep_interval_s=0)
    # No sweep runs here: the stores are never read.
    background = Background(run_pass, cast(Stores, None), settings, Metrics(process=False))
    background.start()
    try:
        background.enqueue(_owner("busy"))
        await asyncio.wait_for(first_started.wait(), 10)
        for user, swept in enqueue:
            background.enqueue(_owner(user), swept=swept)
        release.set()
        await asyncio.wait_for(background.drain(), 10)
    finally:
        await background.stop()
    return passes


async def test_a_written_user_goes_before_the_swept_ones() -> None:
    order = await _order([("swept-1", True), ("swept-2", True), ("written", False)])
    assert order == ["busy", "written", "swept-1", "swept-2"]


async def test_a_swept_user_written_meanwhile_is_taken_once_as_written() -> None:
    order = await _order([("swept-1", True), ("both", True), ("both", False), ("both", True)])
    assert order == ["busy", "both", "swept-1"]


async def test_writes_keep_their_order() -> None:
    order = await _order([("a", False), ("b", False), ("a", False), ("c", False)])
    assert order == ["busy", "a", "b", "c"]
