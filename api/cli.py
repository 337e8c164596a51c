"""The `recmem` command line."""

from __future__ import annotations

import asyncio
import json

import typer

from api.calibrate_cli import register as register_calibrate_command
from api.cypher_cli import cypher_app
from api.memory_cli import register as register_memory_commands
from api.service_cli import register as register_service_commands
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
