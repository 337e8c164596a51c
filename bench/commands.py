"""The command line a report records, with secrets left out."""

from __future__ import annotations

from collections.abc import Sequence

HIDDEN = "***"


def shown_command(program: str, argv: Sequence[str]) -> str:
    """`program` and its arguments, with the value of every `--...password` and `--...key`
    option hidden (reports are committed; a password or an API key given on the command line
    must not be)."""
    shown: list[str] = [program]
    hide_next = False
    for argument in argv:
        if hide_next:
            shown.append(HIDDEN)
            hide_next = False
            continue
        option, equals, _ = argument.partition("=")
        if option.startswith("--") and ("password" in option or option.endswith("key")):
            if equals:
                shown.append(f"{option}={HIDDEN}")
                continue
            hide_next = True
        shown.append(argument)
    return " ".join(shown)
