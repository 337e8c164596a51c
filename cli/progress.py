"""Progress bars of the long commands (import, reembed): on stderr, so stdout keeps the JSON report."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Self

if TYPE_CHECKING:
    from rich.progress import Progress


def stderr_progress(description: str) -> Progress:
    """A bar with `description` (a rich column format), the count done and the time left; rich is
    imported here, when a command first draws one (cli/defaults.py: start-up stays light)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn(description),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    )


class StderrBar:
    """A command's bars (`progress`), drawn while the `with` block runs."""

    def __init__(self, description: str) -> None:
        self.progress = stderr_progress(description)

    def __enter__(self) -> Self:
        self.progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.progress.stop()
