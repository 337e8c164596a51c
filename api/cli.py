"""The `recmem` command line."""

from __future__ import annotations

import asyncio
import json

import typer

from consolidation.embedders import build_embedder
from consolidation.settings import EmbedderSettings
from graph.database import Database
from graph.errors import GraphError
from graph.local_server import LocalNeo4j
from graph.schema import migrate
from graph.settings import Neo4jSettings

app = typer.Typer(help="recmem-graph: long-term memory for LLM agents.", no_args_is_help=True)
neo4j_app = typer.Typer(help="Run the project's local Neo4j server (no Docker).", no_args_is_help=True)
db_app = typer.Typer(help="Database schema.", no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(db_app, name="db")


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
    """Create missing constraints and indexes; refuse a database built for another embedder."""
    embedder = build_embedder(EmbedderSettings())

    async def work() -> None:
        db = Database.connect(Neo4jSettings())
        try:
            await db.ping()
            result = await migrate(db, embedder.name, embedder.dimension)
        finally:
            await db.close()
        typer.echo(
            json.dumps(
                {"created": result.created, "embedder": result.embedder, "dimension": result.dimension}
            )
        )

    try:
        asyncio.run(work())
    except GraphError as error:
        _fail(error)


def main() -> None:
    app()
