"""Loads Cypher statements from the ``cypher/`` folder by name; Python holds no query text."""

from __future__ import annotations

from functools import cache
from pathlib import Path

CYPHER_DIR = Path(__file__).resolve().parent.parent / "cypher"


@cache
def statement(name: str) -> str:
    """The text of ``cypher/<name>.cypher``, e.g. ``statement("queries/interactions/write_batch")``."""
    path = (CYPHER_DIR / f"{name}.cypher").resolve()
    if CYPHER_DIR not in path.parents:
        raise ValueError(f"cypher name escapes the cypher folder: {name!r}")
    return path.read_text(encoding="utf-8").strip().removesuffix(";")


def statements_in(folder: str) -> list[tuple[str, str]]:
    """Every ``.cypher`` file under ``cypher/<folder>`` in name order, as (name, text)."""
    root = CYPHER_DIR / folder
    return [
        (f"{folder}/{p.relative_to(root).with_suffix('').as_posix()}", statement_text(p))
        for p in sorted(root.rglob("*.cypher"))
    ]


def statement_text(path: Path) -> str:
    return path.read_text(encoding="utf-8").strip().removesuffix(";")
