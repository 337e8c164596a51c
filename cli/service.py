"""`recmem serve` and `recmem keys ...`: registered on the main CLI by `cli.main`."""

from __future__ import annotations

import json
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

import typer

if TYPE_CHECKING:
    import asyncio

    import uvicorn
    from starlette.applications import Starlette

    from api.settings import ApiSettings
    from consolidation.forgetting.keys import AccessKeys, ApiKey
    from graph.local_server import LocalNeo4j
    from graph.settings import Neo4jSettings

T = TypeVar("T")
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}

keys_app = typer.Typer(
    help="API keys: each belongs to one tenant; shown once, stored hashed.", no_args_is_help=True
)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.add_typer(keys_app, name="keys")


# -- SIGTERM, for `serve` -----------------------------------------------------------------------


class Terminated(BaseException):
    """SIGTERM as an exception, so that `finally` blocks run (the default action kills at once).
    A BaseException, like KeyboardInterrupt: no `except Exception` on the way may swallow it."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextmanager
def _sigterm_raises() -> Iterator[None]:
    """SIGTERM raises Terminated inside the block; leaving by it, the process then dies of SIGTERM
    as if never caught (exit status -15 to a parent, as uvicorn alone would end).

    uvicorn catches SIGTERM (and SIGINT) while it serves, shuts down gracefully, restores this
    handler and raises the signal again: that is when Terminated reaches `serve`'s `finally`."""
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    except Terminated:
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, previous)


# -- the local Neo4j, when the URI points at it -------------------------------------------------


def points_at_local_server(settings: Neo4jSettings) -> bool:
    parts = urlsplit(settings.uri)
    return parts.scheme in ("bolt", "neo4j") and parts.hostname in LOCAL_HOSTS and parts.port == settings.port


def ensure_local_neo4j(settings: Neo4jSettings) -> LocalNeo4j | None:
    """Start the project's local Neo4j when the URI points at it and nothing answers there.

    Returns the server when this call started it, None when Neo4j was running already (or is not
    the local one): `serve` stops only what it started. A start interrupted (Ctrl-C, SIGTERM under
    `serve`) or failed stops the server again, so no half-started JVM is left behind."""
    from graph.local_server import LocalNeo4j
    from graph.reachability import reachable

    if not points_at_local_server(settings) or reachable(settings):
        return None
    server = LocalNeo4j(settings)
    if server.status().running:  # started by someone else and still coming up
        server.wait_until_ready(timeout_s=180.0)
        return None
    typer.echo(f"starting the local Neo4j at {settings.uri} (first start fetches the jars) ...")
    try:
        typer.echo(server.start().describe())
    except (KeyboardInterrupt, Terminated):
        server.stop()  # a failed start (LocalServerError) has stopped it already
        typer.echo("stopped the local Neo4j again: its start was interrupted")
        raise
    return server


# -- serve --------------------------------------------------------------------------------------


def serve(
    host: str | None = typer.Option(None, help="Listen address (default RECMEM_API_HOST or 127.0.0.1)."),
    port: int | None = typer.Option(
        None, min=0, max=65535, help="Port (default RECMEM_API_PORT or 8080; 0 picks a free one)."
    ),
    log_level: str = typer.Option("info", help="uvicorn log level."),
) -> None:
    """Run the GraphQL service (starting the local Neo4j if needed) and print the GraphiQL URL.

    On Ctrl-C or SIGTERM the service shuts down, then stops the local Neo4j if it started it
    (one that was running already is left running)."""
    import asyncio

    import uvicorn

    from api.app import create_app
    from api.settings import ApiSettings
    from consolidation.wiring import AppSettings

    settings = AppSettings()
    api = ApiSettings()
    api = api.model_copy(update={"host": host or api.host, "port": api.port if port is None else port})
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with _sigterm_raises():
        started = ensure_local_neo4j(settings.neo4j)
        try:
            app = create_app(settings, api)
            # lifespan="off": `_serve` runs the app's start-up itself, so that a refusal (another
            # embedder's database, a setting the engine refuses) reaches the user as one line.
            config = uvicorn.Config(app, host=api.host, port=api.port, log_level=log_level, lifespan="off")
            server = uvicorn.Server(config)
            with asyncio.Runner(loop_factory=_event_loop_factory()) as runner:
                runner.run(_serve(server, app, api))
            # uvicorn raises a SIGINT it caught again once it has shut down, for asyncio's runner
            # to turn into KeyboardInterrupt; but a runner whose task has just finished returns
            # normally instead (seen under load). Ctrl-C ends the command the same way either way.
            if signal.SIGINT in getattr(server, "_captured_signals", ()):
                raise KeyboardInterrupt
        finally:
            if started is not None:
                _stop_started(started)


def _stop_started(server: LocalNeo4j) -> None:
    pid = server.status().pid
    server.stop()  # SIGTERM, SIGKILL after 3 minutes: it is gone when this returns
    typer.echo(f"stopped the local Neo4j this service started (pid {pid})")


def _event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop when installed (uvicorn[standard] brings it on Linux and macOS): the service spends
    a few ms of each request in the event loop, and uvloop's is several times faster. uvicorn
    picks it only when it creates the loop itself, which `_serve` does not let it do."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


class CannotListen(Exception):
    """uvicorn could not open the service's socket (the port is taken, the host is not local)."""


async def _serve(server: uvicorn.Server, app: Starlette, api: ApiSettings) -> None:
    """The app's start-up (migration, the engine), then uvicorn until it stops, then the app's
    shutdown. An error of the start-up propagates as raised; uvicorn's own failure to listen,
    which it reports by sys.exit, as CannotListen with the reason."""
    import asyncio

    async with app.router.lifespan_context(app):
        task = asyncio.create_task(_listening(server, api))
        # uvicorn exposes start-up only as a flag, so poll it briefly.
        while not server.started and not task.done():  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        if server.started:
            port = server.servers[0].sockets[0].getsockname()[1]
            shown = "127.0.0.1" if api.host in ("0.0.0.0", "::") else api.host  # noqa: S104
            typer.echo(f"GraphiQL: http://{shown}:{port}/graphql  (header Authorization: Bearer <key>)")
            typer.echo(f"memory explorer: http://{shown}:{port}/ui")
        await task


async def _listening(server: uvicorn.Server, api: ApiSettings) -> None:
    try:
        await server.serve()
    except SystemExit as stop:  # raised in this coroutine, it never reaches the event loop
        reason = stop.__context__ if isinstance(stop.__context__, OSError) else f"exit status {stop.code}"
        raise CannotListen(f"cannot listen on {api.host}:{api.port}: {reason}") from None


# -- keys ---------------------------------------------------------------------------------------


def _with_keys(work: Callable[[AccessKeys], Awaitable[T]]) -> T:
    import asyncio

    from consolidation.forgetting.keys import AccessKeys
    from graph.database import Database
    from graph.settings import Neo4jSettings

    settings = Neo4jSettings()
    ensure_local_neo4j(settings)

    async def run() -> T:
        db = Database.connect(settings)
        try:
            return await work(AccessKeys(db))
        finally:
            await db.close()

    return asyncio.run(run())


def _describe(key: ApiKey) -> dict[str, str | None]:
    return {
        "id": key.id,
        "tenant": key.tenant,
        "name": key.name,
        "prefix": key.prefix,
        "created_at": key.created_at.isoformat(),
        "revoked_at": key.revoked_at.isoformat() if key.revoked_at else None,
    }


@keys_app.command("create")
def keys_create(
    tenant: str = typer.Option(..., help="The tenant the key gives access to (created on first use)."),
    name: str | None = typer.Option(None, help="A label to recognise the key by."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Create a key. Its secret is printed once, now, and stored only as a hash."""
    issued = _with_keys(lambda keys: keys.create(tenant, name))
    if as_json:
        typer.echo(json.dumps({**_describe(issued.key), "key": issued.secret}))
        return
    typer.echo(f"id:     {issued.key.id}\ntenant: {issued.key.tenant}\nkey:    {issued.secret}")
    typer.secho("Store the key now: it is not shown again.", fg=typer.colors.YELLOW, err=True)


@keys_app.command("list")
def keys_list(
    tenant: str | None = typer.Option(None, help="Only this tenant's keys."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON lines."),
) -> None:
    """List keys (never their secrets)."""
    from graph.validation import require_name

    if tenant is not None:
        require_name("tenant", tenant)  # else an empty list, as for a tenant without keys
    for key in _with_keys(lambda keys: keys.list(tenant)):
        if as_json:
            typer.echo(json.dumps(_describe(key)))
            continue
        state = f"revoked {key.revoked_at:%Y-%m-%d %H:%M}" if key.revoked_at else "active"
        typer.echo(f"{key.id}  {key.tenant}  {key.prefix}...  {key.name or '-'}  {state}")


@keys_app.command("revoke")
def keys_revoke(key_id: str = typer.Argument(..., help="The key's id (from `recmem keys list`).")) -> None:
    """Revoke a key: every request with it is refused from now on.

    A key revoked already keeps its first revocation time, and the command says so with status 1."""
    from graph.validation import require_name

    require_name("key id", key_id)
    done = _with_keys(lambda keys: keys.revoke(key_id))
    key = done.key
    if done.already:
        when = f" at {key.revoked_at.isoformat()}" if key.revoked_at else ""
        typer.secho(
            f"error: {key.id} ({key.tenant}) was already revoked{when}", fg=typer.colors.RED, err=True
        )
        raise typer.Exit(1)  # not done: FAILURE (cli/main.py), so that a script can tell
    typer.echo(f"revoked {key.id} ({key.tenant})")
