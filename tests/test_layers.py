"""The layer rules, checked on the source: data flows cli/api -> consolidation -> graph, and only
`graph` talks to the Neo4j driver; the client imports nothing of the service. Every import of
every module is parsed (function-level imports and `import x.y` forms included), so a new file
breaking a rule fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("api", "cli", "consolidation", "graph", "recmem_client")
SERVICE = frozenset({"neo4j", "graph", "consolidation", "api", "cli"})
# What each layer must never import (a top-level package name).
FORBIDDEN: dict[str, frozenset[str]] = {
    "api": frozenset({"neo4j", "cli"}),
    "cli": frozenset({"neo4j"}),
    "consolidation": frozenset({"neo4j", "api", "cli"}),
    "graph": frozenset({"consolidation", "api", "cli"}),
    # The client needs only httpx; its wire types are generated from the SDL.
    "recmem_client": SERVICE,
}
# An import every layer may make.
ALLOWED = "import json\n\nfrom dataclasses import dataclass\n"


def imported_packages(source: str, filename: str) -> list[tuple[int, str]]:
    """(line, top-level package) of every absolute import in a module."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def violations(root: Path = ROOT) -> list[str]:
    broken = []
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            for line, package in imported_packages(path.read_text(), str(path)):
                if package in FORBIDDEN[layer]:
                    broken.append(f"{path.relative_to(root)}:{line} imports {package}")
    return broken


def test_every_layer_is_there() -> None:
    for layer in LAYERS:
        assert list((ROOT / layer).rglob("*.py")), f"no modules under {layer}/"


def test_layers_import_only_downwards_and_only_graph_imports_the_driver() -> None:
    assert violations() == []


@pytest.mark.parametrize(
    ("layer", "source", "package"),
    [
        ("api", "from neo4j.exceptions import ServiceUnavailable", "neo4j"),
        ("api", "import neo4j", "neo4j"),
        ("api", "from cli.main import app", "cli"),
        ("cli", "from neo4j import GraphDatabase", "neo4j"),
        ("consolidation", "def f() -> None:\n    import neo4j.exceptions", "neo4j"),
        ("consolidation", "from api.errors import ApiError", "api"),
        ("consolidation", "import cli.main", "cli"),
        ("graph", "from consolidation.types import Unit", "consolidation"),
        ("graph", "from api import errors", "api"),
        ("graph", "from cli.main import app", "cli"),
        ("recmem_client", "from graph.models import Owner", "graph"),
    ],
)
def test_a_forbidden_import_is_caught(tmp_path: Path, layer: str, source: str, package: str) -> None:
    """The check itself can fail: a copy of the layout with one bad module is reported, by line."""
    for name in LAYERS:
        (tmp_path / name).mkdir()
        (tmp_path / name / "ok.py").write_text(ALLOWED)
    (tmp_path / layer / "bad.py").write_text(source + "\n")
    line = source.count("\n") + 1
    assert violations(tmp_path) == [f"{layer}/bad.py:{line} imports {package}"]
