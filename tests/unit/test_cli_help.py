"""Every command's summary is one line: a group's help lists it as written (typer's rich mode
keeps a docstring's line breaks there, so a wrapped summary broke mid-sentence)."""

from __future__ import annotations

import inspect

import typer.main
from typer.core import TyperGroup

from cli.main import app


def _summaries(group: TyperGroup, path: str = "") -> dict[str, str]:
    """Each command's first help paragraph, by its full name ("db migrate")."""
    found: dict[str, str] = {}
    for name, command in group.commands.items():
        found[f"{path}{name}"] = inspect.cleandoc(command.help or "").split("\n\n")[0]
        if isinstance(command, TyperGroup):
            found |= _summaries(command, f"{path}{name} ")
    return found


def test_every_command_has_a_one_line_summary() -> None:
    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    summaries = _summaries(root)
    assert {"ingest", "export", "db migrate", "keys revoke", "neo4j start"} <= set(summaries)
    assert {name: text for name, text in summaries.items() if "\n" in text} == {}
