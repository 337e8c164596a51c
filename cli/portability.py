"""`recmem export` and `recmem import`: one user's memory out as JSON Lines, and in again under
any tenant and user (docs/export.md)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import typer

from cli.progress import StderrBar

if TYPE_CHECKING:
    from consolidation.portability import Portability


def register(app: typer.Typer) -> None:
    app.command("export")(export)
    app.command("import")(import_)


def export(
    user: str = typer.Option(..., help="User id."),
    tenant: str = typer.Option("default", help="Tenant the user belongs to."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write here instead of stdout."),
) -> None:
    """Write one user's memory as JSON Lines: a header line, then nodes, then edges.

    Every interaction, episode version, fact, consolidation run and event of the user, and every
    edge among them; no vectors."""
    import asyncio

    from consolidation.portability import dump
    from graph.errors import NotFound
    from graph.models import Owner
    from graph.validation import require_owner

    require_owner(tenant, user)
    owner = Owner(tenant, user)
    if output:
        _writable(output)

    async def work() -> None:
        async with _portability() as portability:
            if not await portability.exists(owner):
                raise NotFound(f"unknown user {user!r} in tenant {tenant!r}")
            sink = _opened(output, "w") if output else sys.stdout
            try:
                async for line in portability.export(owner):
                    sink.write(dump(line) + "\n")
            finally:
                if output:
                    sink.close()

    asyncio.run(work())


def import_(
    user: str = typer.Option(..., help="User id to import as."),
    tenant: str = typer.Option("default", help="Tenant to import into."),
    path: Path | None = typer.Argument(
        None, exists=True, dir_okay=False, help="The export (default: stdin)."
    ),
) -> None:
    """Rebuild an exported user under this tenant and user.

    The whole file is checked first (nothing is written if any line is bad or its schema version
    is newer), every vector is embedded again with the configured embedder, and a rerun writes the
    same nodes again."""
    import asyncio
    import json

    from consolidation.portability import parse
    from graph.models import Owner
    from graph.validation import require_owner

    require_owner(tenant, user)
    source = _opened(path, "rb") if path else sys.stdin.buffer
    try:
        parsed = parse(_text_lines(source))
    finally:
        if path:
            source.close()

    async def work() -> dict[str, object]:
        async with _portability() as portability:
            with _ImportBar() as bar:
                report = await portability.import_user(parsed, Owner(tenant, user), bar)
        return {
            "tenant": tenant,
            "user": user,
            "nodes": report.nodes,
            "edges": report.edges,
            "rekeyed": report.rekeyed,
            "reembedded": report.reembedded,
        }

    typer.echo(json.dumps(asyncio.run(work())))


def _writable(path: Path) -> None:
    """Refuses, before anything connects, an output path that cannot be written: a folder, or
    one in a folder that does not exist or cannot be written to."""
    import os

    from graph.errors import InvalidInput

    folder = path.parent
    if path.is_dir():
        raise InvalidInput(f"cannot write {path}: it is a folder")
    if not folder.is_dir():
        raise InvalidInput(f"cannot write {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InvalidInput(f"cannot write {path}: permission denied")


def _opened(path: Path, mode: str) -> Any:
    """The file at `path`; a path that cannot be opened is bad input that names it and why."""
    from graph.errors import InvalidInput

    try:
        return path.open(mode, encoding=None if "b" in mode else "utf-8")
    except OSError as error:
        raise InvalidInput(f"cannot {'read' if 'r' in mode else 'write'} {path}: {error.strerror}") from None


def _text_lines(source: BinaryIO) -> Iterator[str]:
    """The file's lines as text; a line that is not UTF-8 is bad input, named by its number."""
    from graph.errors import InvalidInput

    for number, raw in enumerate(source, start=1):
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            raise InvalidInput(f"line {number}: not UTF-8 text (byte {bad.start + 1})") from None


class _ImportBar(StderrBar):
    """One bar on stderr (stdout keeps the JSON report)."""

    def __init__(self) -> None:
        super().__init__("importing")
        self.task = self.progress.add_task("importing", total=None)

    def started(self, total: int) -> None:
        self.progress.update(self.task, total=total)

    def advanced(self, count: int) -> None:
        self.progress.advance(self.task, count)


@asynccontextmanager
async def _portability() -> AsyncIterator[Portability]:
    """Connect and migrate (refusing another embedder's database); no engine is started."""
    from consolidation.wiring import AppSettings, build_memory
    from graph.database import Database

    settings = AppSettings()
    db = Database.connect(settings.neo4j)
    try:
        await db.ping()
        memory = build_memory(db, settings, warn_offline=False)
        await memory.storage.migrate()
        yield memory.portability
    finally:
        await db.close()
