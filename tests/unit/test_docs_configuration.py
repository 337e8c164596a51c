"""docs/configuration.md's settings reference lists exactly the settings classes' fields and defaults."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "config_reference", ROOT / "scripts" / "config_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REFERENCE = _reference()
DOC = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")


def _row(variable: str) -> str:
    return next(line for line in DOC.splitlines() if line.startswith(f"| `{variable}` |"))


def test_the_table_names_every_setting_with_its_default() -> None:
    assert len(REFERENCE.expected()) > 50, "the settings classes were not read"
    assert REFERENCE.problems(DOC) == []


def test_a_missing_setting_is_reported() -> None:
    without = DOC.replace(_row("RECMEM_MERGE_BATCH") + "\n", "")
    assert REFERENCE.problems(without) == ["missing: RECMEM_MERGE_BATCH (default 16)"]


def test_a_setting_that_does_not_exist_is_reported() -> None:
    row = _row("RECMEM_MERGE_BATCH")
    extra = DOC.replace(row, row + "\n| `RECMEM_MERGE_BATCHES` | `16` | a typo |")
    assert REFERENCE.problems(extra) == ["not a setting: RECMEM_MERGE_BATCHES"]


def test_a_wrong_default_is_reported() -> None:
    row = _row("RECMEM_API_PORT")
    wrong = DOC.replace(row, row.replace("`8080`", "`8000`"))
    assert REFERENCE.problems(wrong) == ["default of RECMEM_API_PORT: the table says '8000', the code '8080'"]
