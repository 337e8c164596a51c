"""The `recmem` command line."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from types import TracebackType

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from api.calibrate_cli import register as register_calibrate_command
from api.cypher_cli import cypher_app
from api.memory_cli import register as register_memory_commands
from api.service_cli import register as register_service_commands
from consolidation.embedders import build_embedder
from consolidation.reembedding import DEFAULT_BATCH_SIZE, ReembedReport, ReembedStalled, reembed_database
from consolidation.settings import EmbedderSettings, EngineSettings
from consolidation.wiring import AppSettings
from graph.database import Database
from graph.errors import GraphError, StoreUnavailable
from graph.local_server import LocalNeo4j
from graph.reembed import Layer
from graph.schema import migrate
from graph.settings import Neo4jSettings

app = typer.Typer(help="recmem-graph: long-term memory for LLM agents.", no_args_is_help=True)
neo4j_app = typer.Typer(help="Run the project's local Neo4j server (no Docker).", no_args_is_help=True)
db_app = typer.Typer(help="Database schema and vectors.", no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(db_app, name="db")
app.add_typer(cypher_app, name="cypher")
register_memory_commands(app)
register_calibrate_command(app)
# `recmem serve` and `recmem keys create|list|revoke` (api/service_cli.py).
register_service_commands(app)


def _fail(error: Exception) -> None:
    typer.secho(f"error: {error}", fg=typer.colors.RED, err=True)
    raise typer.Exit(1)


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Fetch the jars once, start the server on loopback, wait for Bolt, print the URI."""
    server = LocalNeo4j(Neo4jSettings())
    try:
        status = server.start()
    except GraphError as error:
        _fail(error)
    typer.echo(status.describe())
    typer.echo(f"RECMEM_NEO4J_URI={status.uri}")


@neo4j_app.command("fetch")
def neo4j_fetch() -> None:
    """Resolve the Neo4j jars into the cache and check for a suitable JDK (no server started)."""
    server = LocalNeo4j(Neo4jSettings())
    try:
        lib = server.ensure_jars()
        java = server.java_binary()
    except GraphError as error:
        _fail(error)
    typer.echo(f"neo4j {server.settings.version} jars in {lib}; java {java}")


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local server (SIGTERM, then SIGKILL after a minute)."""
    typer.echo(LocalNeo4j(Neo4jSettings()).stop().describe())


@neo4j_app.command("status")
def neo4j_status() -> None:
    status = LocalNeo4j(Neo4jSettings()).status()
    typer.echo(status.describe())
    raise typer.Exit(0 if status.running else 3)


@neo4j_app.command("logs")
def neo4j_logs(lines: int = typer.Option(50, help="Lines from the end of each log.")) -> None:
    typer.echo(LocalNeo4j(Neo4jSettings()).logs(lines))


@db_app.command("migrate")
def db_migrate() -> None:
    """Create missing constraints and indexes; refuse a database built for another embedder or template."""
    embedder = build_embedder(EmbedderSettings())
    template = EngineSettings().embedding_template

    async def work() -> None:
        db = Database.connect(Neo4jSettings())
        try:
            await db.ping()
            result = await migrate(db, embedder.name, embedder.dimension, template)
        finally:
            await db.close()
        created = {"created": result.created, "embedder": result.embedder, "dimension": result.dimension}
        typer.echo(json.dumps(created | {"template": result.template}))

    try:
        asyncio.run(work())
    except GraphError as error:
        _fail(error)


@db_app.command("reembed")
def db_reembed(
    batch_size: int = typer.Option(
        DEFAULT_BATCH_SIZE, min=1, max=10_000, help="Nodes read, embedded and written back per transaction."
    ),
) -> None:
    """Re-embed every interaction (through the template), episode and fact of every tenant with
    the configured embedder and template, then record them. Resumable: Ctrl-C and run it again."""
    try:
        settings = AppSettings()
        with _ReembedBar() as bar:
            report = asyncio.run(reembed_database(settings, batch_size, bar))
    except StoreUnavailable as error:
        _fail(
            StoreUnavailable(f"{_one_line(error)}; start it (`recmem neo4j start`) or set RECMEM_NEO4J_URI")
        )
    except (GraphError, ReembedStalled, ValueError) as error:  # ValueError: a bad setting (template)
        _fail(error)
    except KeyboardInterrupt:
        typer.secho("interrupted: what was re-embedded is kept; run it again to finish", err=True)
        raise typer.Exit(130) from None
    typer.echo(json.dumps(_report(report)))


class _ReembedBar:
    """One bar per layer on stderr (stdout keeps the JSON report); totals grow when a later pass
    finds what was written meanwhile."""

    def __init__(self) -> None:
        self.progress = Progress(
            TextColumn("{task.description:<12}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self.tasks: dict[Layer, TaskID] = {}

    def __enter__(self) -> _ReembedBar:
        self.progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.progress.stop()

    def pass_started(self, remaining: Mapping[Layer, int]) -> None:
        for layer, count in remaining.items():
            if layer not in self.tasks:
                self.tasks[layer] = self.progress.add_task(layer, total=count)
                continue
            task = self.tasks[layer]
            self.progress.update(task, total=self.progress.tasks[task].completed + count)

    def advanced(self, layer: Layer, count: int) -> None:
        self.progress.advance(self.tasks[layer], count)


def _report(report: ReembedReport) -> dict[str, object]:
    previous = report.previous
    return {
        "reembedded": report.reembedded,
        "passes": report.passes,
        "recreated_indexes": report.recreated_indexes,
        "from": None if previous is None else previous.describe(),
        "embedder": report.target.embedder,
        "dimension": report.target.dimension,
        "template": report.target.template,
    }


def _one_line(error: Exception) -> str:
    # The driver's connection errors span several lines; a refusal should read as one.
    return " ".join(str(error).split())


def main() -> None:
    app()
