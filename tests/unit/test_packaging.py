"""Project-level promises that are checkable without a Docker engine or a network."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from graph.settings import NEO4J_VERSION

ROOT = Path(__file__).resolve().parents[2]


def test_compose_parses_and_pins_the_same_neo4j() -> None:
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
    neo4j = compose["services"]["neo4j"]
    assert neo4j["image"] == f"neo4j:{NEO4J_VERSION}-community"
    assert "healthcheck" in neo4j and neo4j["volumes"]
    assert compose["services"]["recmem"]["environment"]["RECMEM_NEO4J_URI"] == "bolt://neo4j:7687"


def test_the_image_copies_every_package_the_wheel_lists() -> None:
    """docker/Dockerfile builds the wheel from what it copies: a package left out of its COPY lines
    fails `pip install .` in the image (or, worse, an import at run time)."""
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    copied = set(re.findall(r"^COPY (\S+) \./\1$", dockerfile, flags=re.MULTILINE))
    assert set(wheel["packages"]) | set(wheel["force-include"]) <= copied


# The wheel ships what a user runs: the service, the CLI and the client.
SHIPPED = frozenset({"graph", "consolidation", "api", "cli", "recmem_client"})


def test_the_wheel_ships_the_service_the_cli_and_the_client_only() -> None:
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    packages = set(wheel["packages"])
    assert packages == SHIPPED, sorted(packages ^ SHIPPED)
    assert set(wheel["force-include"]) == {"cypher"}


# The Python that must hold no Cypher text: the product packages, the harness and the benchmarks
# (their smoke tests, like tests/, may read the graph directly).
CYPHER_FREE = ("graph", "consolidation", "api", "cli", "bench", "harness")
SMOKE_TESTS = ROOT / "bench" / "tests"


def _python_files(package: str) -> list[Path]:
    return [p for p in (ROOT / package).rglob("*.py") if SMOKE_TESTS not in p.parents]


def test_python_holds_no_cypher() -> None:
    pattern = re.compile(r"(MATCH|MERGE|CREATE) \(")
    offenders = [
        f"{path}:{number}"
        for package in CYPHER_FREE
        for path in _python_files(package)
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if pattern.search(line)
    ]
    assert offenders == []


def test_every_named_statement_exists() -> None:
    """Each statement name used in code resolves to a .cypher file."""
    names = set()
    for package in CYPHER_FREE:
        for path in _python_files(package):
            names |= set(re.findall(r'"(queries/[a-z_/]+)"', path.read_text()))
    assert names, "no statement names found"
    missing = sorted(n for n in names if not (ROOT / "cypher" / f"{n}.cypher").exists())
    assert missing == []


def test_readme_commands_exist_and_are_executable() -> None:
    readme = (ROOT / "README.md").read_text()
    for script in ("scripts/serve.sh", "scripts/test.sh"):
        assert script in readme
        assert (ROOT / script).stat().st_mode & 0o111
    assert (ROOT / ".ci" / "run").exists()
