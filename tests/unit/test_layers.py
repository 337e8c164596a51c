"""The layer rules, checked on the source, as an allow-list: each folder may import the project
packages (and the Neo4j driver and httpx) listed for it, and nothing else of them. Data flows
cli/api -> consolidation -> graph, only `graph` talks to the driver, the client imports nothing of
the service, and no product code imports the test server, the harness or the benchmarks. Every
import of every module is parsed (function-level imports and `import x.y` forms included), so a new
file breaking a rule fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What the allow-lists speak of: the project's top-level packages, the driver and the HTTP client.
PROJECT = frozenset(
    {"api", "bench", "cli", "consolidation", "graph", "harness", "local_llm_server"}
    | {"recmem_client", "scripts", "tests"}
)
CHECKED = PROJECT | {"neo4j", "httpx"}
PRODUCT = frozenset({"api", "cli", "consolidation", "graph", "recmem_client"})
_BENCH = PRODUCT | {"harness", "local_llm_server", "neo4j", "httpx"}
# Folder -> what its modules may import besides themselves (the longest folder of a file wins).
ALLOWED: dict[str, frozenset[str]] = {
    "graph": frozenset({"neo4j"}),
    "consolidation": frozenset({"graph"}),
    "api": frozenset({"consolidation", "graph"}),
    "cli": frozenset({"api", "consolidation", "graph"}),
    # The client needs only httpx; its wire types are generated from the SDL.
    "recmem_client": frozenset({"httpx"}),
    "local_llm_server": frozenset(),
    "harness": frozenset({"httpx"}),
    # Development tools: the client generator and the settings reference read the service's code.
    "scripts": PRODUCT,
    "bench": _BENCH,
    "bench/tests": _BENCH | {"bench", "tests"},
    "tests": _BENCH,
}


def imported_packages(source: str, filename: str) -> list[tuple[int, str]]:
    """(line, top-level package) of every absolute import in a module."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def folder_of(relative: Path) -> str:
    """The longest folder of ALLOWED that holds the file."""
    parts = relative.parts
    return max((f for f in ALLOWED if parts[: len(Path(f).parts)] == Path(f).parts), key=len)


def violations(root: Path = ROOT) -> list[str]:
    broken = []
    for top in sorted({Path(f).parts[0] for f in ALLOWED}):
        for path in sorted((root / top).rglob("*.py")):
            relative = path.relative_to(root)
            folder = folder_of(relative)
            own = Path(folder).parts[0]
            for line, package in imported_packages(path.read_text(), str(path)):
                if package in CHECKED and package != own and package not in ALLOWED[folder]:
                    broken.append(f"{relative}:{line} imports {package}")
    return broken


def test_every_layer_is_there() -> None:
    for folder in ALLOWED:
        assert list((ROOT / folder).rglob("*.py")), f"no modules under {folder}/"


def test_every_folder_imports_only_what_it_is_allowed() -> None:
    assert violations() == []


def _layout(tmp_path: Path) -> None:
    """A copy of the layout where each folder imports everything it may."""
    for folder, allowed in ALLOWED.items():
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        source = "".join(f"import {package}\n" for package in sorted(allowed))
        (tmp_path / folder / "ok.py").write_text(source or "import json\n")


def test_what_is_allowed_passes(tmp_path: Path) -> None:
    _layout(tmp_path)
    assert violations(tmp_path) == []


FORBIDDEN = [
    (folder, package)
    for folder, allowed in ALLOWED.items()
    for package in sorted(CHECKED - allowed - {Path(folder).parts[0]})
]


@pytest.mark.parametrize(("folder", "package"), FORBIDDEN, ids=[f"{f}-{p}" for f, p in FORBIDDEN])
def test_each_forbidden_import_is_caught(tmp_path: Path, folder: str, package: str) -> None:
    """Every rule can fail: a copy of the layout with one bad module is reported, by line."""
    _layout(tmp_path)
    (tmp_path / folder / "bad.py").write_text(f"import json\n\nfrom {package}.x import y\n")
    assert violations(tmp_path) == [f"{folder}/bad.py:3 imports {package}"]


@pytest.mark.parametrize(
    ("folder", "source", "package"),
    [
        ("consolidation", "def f() -> None:\n    import neo4j.exceptions", "neo4j"),
        ("api", "import neo4j", "neo4j"),
        ("recmem_client", "from graph.models import Owner", "graph"),
        ("consolidation/recall", "from api.errors import ApiError", "api"),
        ("api", "from local_llm_server import Reply", "local_llm_server"),
        ("cli", "import bench.service", "bench"),
        ("bench", "from tests.support.api import STORY", "tests"),
        ("tests/unit", "from bench.fuzz.case import KINDS", "bench"),
    ],
)
def test_every_import_form_is_caught(tmp_path: Path, folder: str, source: str, package: str) -> None:
    """Function-level imports, `import x.y` and modules in sub-folders are checked too."""
    _layout(tmp_path)
    (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    (tmp_path / folder / "bad.py").write_text(source + "\n")
    line = source.count("\n") + 1
    assert violations(tmp_path) == [f"{folder}/bad.py:{line} imports {package}"]
