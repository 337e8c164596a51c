"""The settings reference of docs/configuration.md, checked against the settings classes.

Prints one `variable | default` line per field of the pydantic-settings classes; with --check,
exits 1 and names each variable the table misses, lists in excess, or gives another default.
The default is the first value in backticks in the table's second column.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from pydantic_settings import BaseSettings

from api.settings import ApiSettings
from consolidation.settings import EmbedderSettings, EngineSettings, LLMSettings
from graph.settings import Neo4jSettings

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "configuration.md"
CLASSES: tuple[type[BaseSettings], ...] = (
    Neo4jSettings,
    EmbedderSettings,
    LLMSettings,
    EngineSettings,
    ApiSettings,
)
START, END = "<!-- settings-table:start -->", "<!-- settings-table:end -->"
_ROW = re.compile(r"^\|\s*`(RECMEM_[A-Z0-9_]+)`\s*\|([^|]*)\|")


def shown(value: Any) -> str:
    """A default as the table writes it."""
    if value is None or value == "":
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, Path):
        home = str(Path.home())
        text = str(value)
        return "~" + text[len(home) :] if text.startswith(home) else text
    if isinstance(value, list | dict):
        return json.dumps(value)
    return str(value)


def expected() -> dict[str, str]:
    """Every settings field's environment variable and its default, in class order."""
    found: dict[str, str] = {}
    for cls in CLASSES:
        prefix = str(cls.model_config.get("env_prefix", ""))
        for name, field in cls.model_fields.items():
            alias = field.validation_alias if isinstance(field.validation_alias, str) else None
            variable = (alias or f"{prefix}{name}").upper()
            found[variable] = shown(field.get_default(call_default_factory=True))
    return found


def documented(text: str) -> dict[str, str]:
    """The table's variables and the first backticked value of each default cell."""
    if START not in text or END not in text:
        raise ValueError(f"{DOC.name} has no {START} ... {END} table")
    table = text.split(START, 1)[1].split(END, 1)[0]
    rows: dict[str, str] = {}
    for line in table.splitlines():
        row = _ROW.match(line)
        if row:
            default = re.search(r"`([^`]*)`", row.group(2))
            rows[row.group(1)] = default.group(1) if default else row.group(2).strip()
    return rows


def problems(text: str) -> list[str]:
    """What the table gets wrong against the settings classes (empty when it is right)."""
    want, have = expected(), documented(text)
    found = [f"missing: {name} (default {want[name]})" for name in want if name not in have]
    found += [f"not a setting: {name}" for name in have if name not in want]
    found += [
        f"default of {name}: the table says {have[name]!r}, the code {want[name]!r}"
        for name in want
        if name in have and have[name] != want[name]
    ]
    return found


def main(argv: list[str]) -> int:
    if "--check" in argv:
        found = problems(DOC.read_text(encoding="utf-8"))
        for problem in found:
            print(f"{DOC.relative_to(ROOT)}: {problem}", file=sys.stderr)
        return 1 if found else 0
    for name, default in expected().items():
        print(f"| `{name}` | `{default}` |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
