"""The benchmarks' smoke tests: opt-in (`pytest bench/tests -m bench`), outside the default
testpaths; without `-m bench` they are deselected, never counted as passed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fixtures import db, embedder, neo4j_settings, owner

__all__ = ["db", "embedder", "neo4j_settings", "owner"]

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mine = [item for item in items if item.path.is_relative_to(HERE)]
    for item in mine:
        item.add_marker("bench")
    if "bench" not in (config.option.markexpr or ""):
        config.hook.pytest_deselected(items=mine)
        items[:] = [item for item in items if not item.path.is_relative_to(HERE)]
