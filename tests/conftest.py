"""The fixtures every test folder shares (defined in tests/support/fixtures.py), and the markers
that name a test's cost: `unit` (tests/unit: no Neo4j, no subprocess), `integration`
(tests/integration: the session's Neo4j) and `system` (tests/system: processes of their own)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fixtures import (
    api_app,
    caller,
    client,
    db,
    embedder,
    llm,
    llm_server,
    neo4j_settings,
    owner,
)

__all__ = ["api_app", "caller", "client", "db", "embedder", "llm", "llm_server", "neo4j_settings", "owner"]

TESTS = Path(__file__).resolve().parent
FOLDERS = ("unit", "integration", "system")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(TESTS):
            folder = item.path.relative_to(TESTS).parts[0]
            assert folder in FOLDERS, (
                f"{item.nodeid}: a test belongs in tests/unit, tests/integration or tests/system"
            )
            item.add_marker(folder)
