"""Unit tests run without Neo4j: the database fixtures fail here instead of starting one."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def neo4j_settings() -> None:
    pytest.fail("a unit test may not use Neo4j: move it to tests/integration")


@pytest.fixture(scope="session")
def db() -> None:
    pytest.fail("a unit test may not use Neo4j: move it to tests/integration")
