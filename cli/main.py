"""The `recmem` command line."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from typer.core import TyperGroup

from cli.analytics import START_HINT, cypher_app
from cli.calibrate import register as register_calibrate_command
from cli.defaults import REEMBED_BATCH_SIZE
from cli.memory import register as register_memory_commands
from cli.portability import register as register_portability_commands
from cli.progress import StderrBar
from cli.service import register as register_service_commands

if TYPE_CHECKING:
    from rich.progress import TaskID

    from consolidation.providers.reembedding import ReembedReport
    from graph.reembed import Layer

# The service (its settings, the Neo4j driver, the embedders) is imported by the commands that
# use it, not here: `recmem --help` and an argument error answer without loading it.
# Exit statuses. 2: the request was wrong and the user can correct it (bad input, an unknown user
# or analytic, a malformed setting, a database built for another embedder). 1: the command could
# not do what was asked (Neo4j unreachable, the local server would not start) or a bug.
USER_ERROR = 2
FAILURE = 1


def _user_errors() -> tuple[type[Exception], ...]:
    from pydantic import ValidationError

    from api.settings import BodyLimitError
    from cli.analytics import AnalyticsError
    from consolidation.engine import PlannerConfigError
    from consolidation.providers.calibration import CalibrationError
    from consolidation.providers.embedders.minilm import LocalExtraMissing
    from consolidation.providers.embedding_template import TemplateError
    from graph.errors import InvalidInput, NotFound, SchemaMismatch, StoreAuthFailed

    return (
        InvalidInput,
        NotFound,
        SchemaMismatch,
        AnalyticsError,
        CalibrationError,
        TemplateError,
        ValidationError,  # a RECMEM_* setting pydantic-settings refused
        LocalExtraMissing,
        StoreAuthFailed,  # wrong Neo4j credentials
        PlannerConfigError,  # RECMEM_PLANNER=llm without an endpoint
        BodyLimitError,  # RECMEM_API_MAX_BODY_BYTES too small for RECMEM_MAX_TEXT_BYTES
    )


def _failures() -> tuple[type[Exception], ...]:
    """Raised on purpose with a message that says what failed: a traceback would add nothing."""
    from cli.service import CannotListen
    from consolidation.providers.embedders import EmbeddingError
    from consolidation.providers.llm.types import LLMError
    from consolidation.providers.reembedding import ReembedStalled
    from graph.errors import GraphError

    return (GraphError, EmbeddingError, LLMError, ReembedStalled, CannotListen)


DEBUG_HINT = "rerun with --debug (or RECMEM_DEBUG=1) for the traceback"


class ReportingGroup(TyperGroup):
    """The root command: an error a command raises reaches the user as one line on stderr and an
    exit status (USER_ERROR or FAILURE), not as typer's page of traceback; --debug prints the
    traceback instead of the line, with the same status."""

    # Any: the Context of the click typer runs on (vendored since typer 0.29, click's before).
    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise  # click's own exits and usage errors
        except BrokenPipeError:
            _stdout_gone()
        except Exception as error:
            status, message = classify(error)
            if ctx.params.get("debug"):
                # The traceback instead of the line, and the same status (a user error stays 2).
                import traceback

                traceback.print_exception(error, file=sys.stderr)
            else:
                typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
            raise typer.Exit(status) from None


def _stdout_gone() -> NoReturn:
    """The reader of stdout left (`recmem export | head`): stop quietly with status 1, as rich
    does for its tables. stdout goes to /dev/null so that the exit's flush cannot fail again."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise typer.Exit(FAILURE)


def classify(error: Exception) -> tuple[int, str]:
    """The exit status and the one line the user sees for an error."""
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    from graph.errors import LocalServerError, StoreUnavailable

    if isinstance(error, ValidationError):
        return USER_ERROR, _invalid_setting(error)
    if isinstance(error, SettingsError):
        return USER_ERROR, _unparsed_setting(error)
    if isinstance(error, _user_errors()):
        return USER_ERROR, _one_line(error)
    if isinstance(error, LocalServerError):
        # Its later lines are a log tail (Maven's or the server's): too long for one line.
        first, _, rest = str(error).partition("\n")
        return FAILURE, f"{first.rstrip(': ')} ({DEBUG_HINT})" if rest else first
    if isinstance(error, StoreUnavailable) and "RECMEM_NEO4J_URI" not in str(error):
        return FAILURE, f"{_one_line(error)}; {START_HINT}"
    if isinstance(error, _failures()):
        return FAILURE, _one_line(error)
    return FAILURE, f"internal error: {type(error).__name__}: {_one_line(error)} ({DEBUG_HINT})"


def _invalid_setting(error: Any) -> str:
    """pydantic's report, which spans lines and links to its docs, in one line that names each
    setting refused by its variable (RECMEM_MAX_TEXT_BYTES, not EngineSettings' max_text_bytes)."""
    prefix = _env_prefixes().get(error.title)
    problems = []
    for e in error.errors():
        field = "_".join(str(part) for part in e["loc"])
        name = f"{prefix}{field}".upper() if prefix and field else f"{error.title} {field}".rstrip()
        # a validator's ValueError reads "Value error, <its message>", which may name the setting
        message = e["msg"].removeprefix("Value error, ").removeprefix(f"{name}: ")
        problems.append(f"{name}: {message} (got {_without_password(e.get('input'))!r})")
    return f"invalid setting {'; '.join(problems)}"


def _unparsed_setting(error: Exception) -> str:
    """pydantic-settings' SettingsError: a list or map setting whose value is not JSON. It names
    the field, not the class: the variable is named when one settings class has that field."""
    import re

    found = re.search(r'field "(\w+)"', str(error))
    field = found[1] if found else "?"
    prefixes = [prefix for prefix, fields in _env_fields().items() if field in fields]
    name = f"{prefixes[0]}{field}".upper() if len(prefixes) == 1 else field
    return f"invalid setting {name}: not JSON ({error.__cause__ or error})"


def _settings_classes() -> tuple[type[Any], ...]:
    from api.settings import ApiSettings
    from consolidation.settings import EmbedderSettings, EngineSettings, LLMSettings
    from graph.settings import Neo4jSettings

    return (Neo4jSettings, EmbedderSettings, LLMSettings, EngineSettings, ApiSettings)


def _env_prefixes() -> dict[str, str]:
    """Settings class name -> the prefix of its variables."""
    return {cls.__name__: cls.model_config["env_prefix"] for cls in _settings_classes()}


def _env_fields() -> dict[str, set[str]]:
    """Prefix -> the fields its class reads."""
    return {cls.model_config["env_prefix"]: set(cls.model_fields) for cls in _settings_classes()}


def _without_password(value: object) -> object:
    """A URL's password (`scheme://user:password@host`) masked: a refused URI may carry one."""
    import re

    return re.sub(r"(://[^/@:]*):[^/@]*@", r"\1:***@", value) if isinstance(value, str) else value


app = typer.Typer(
    cls=ReportingGroup,
    no_args_is_help=True,
    # --debug tracebacks: no local variables, which can hold the Neo4j password or API keys.
    pretty_exceptions_show_locals=False,
)
neo4j_app = typer.Typer(help="Run the project's local Neo4j server (no Docker).", no_args_is_help=True)
db_app = typer.Typer(help="Database schema and vectors.", no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(db_app, name="db")
app.add_typer(cypher_app, name="cypher")
register_memory_commands(app)
register_portability_commands(app)
register_calibrate_command(app)
# `recmem serve` and `recmem keys create|list|revoke` (cli/service.py).
register_service_commands(app)


@app.callback()
def root(
    debug: bool = typer.Option(
        False, "--debug", envvar="RECMEM_DEBUG", help="Show the traceback of an error, not one line."
    ),
) -> None:
    """recmem-graph: long-term memory for LLM agents.

    An error prints one line on stderr (--debug: the traceback).
    Exit status 2: the request was wrong (bad input, an unknown user, a bad setting).
    Exit status 1: it could not be done (Neo4j unreachable) or an internal error.
    """
    # `debug` is read by ReportingGroup from the parsed parameters.


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Fetch the jars once, start the server on loopback, wait for Bolt, print the URI."""
    from graph.local_server import LocalNeo4j
    from graph.settings import Neo4jSettings

    status = LocalNeo4j(Neo4jSettings()).start()
    typer.echo(status.describe())
    typer.echo(f"RECMEM_NEO4J_URI={status.uri}")


@neo4j_app.command("fetch")
def neo4j_fetch() -> None:
    """Resolve the Neo4j jars into the cache and check for a suitable JDK (no server started)."""
    from graph.local_server import LocalNeo4j
    from graph.settings import Neo4jSettings

    server = LocalNeo4j(Neo4jSettings())
    lib = server.ensure_jars()
    java = server.java_binary()
    typer.echo(f"neo4j {server.settings.version} jars in {lib}; java {java}")


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local server (SIGTERM, then SIGKILL after 3 minutes)."""
    from graph.local_server import LocalNeo4j
    from graph.settings import Neo4jSettings

    typer.echo(LocalNeo4j(Neo4jSettings()).stop().describe())


@neo4j_app.command("status")
def neo4j_status() -> None:
    from graph.local_server import LocalNeo4j
    from graph.settings import Neo4jSettings

    status = LocalNeo4j(Neo4jSettings()).status()
    typer.echo(status.describe())
    raise typer.Exit(0 if status.running else 3)


@neo4j_app.command("logs")
def neo4j_logs(lines: int = typer.Option(50, min=0, help="Lines from the end of each log.")) -> None:
    from graph.local_server import LocalNeo4j
    from graph.settings import Neo4jSettings

    typer.echo(LocalNeo4j(Neo4jSettings()).logs(lines))


@db_app.command("migrate")
def db_migrate(
    recheck: bool = typer.Option(
        False,
        "--recheck",
        help="Look for older data again even where a migration of this version found none "
        "(after an older process wrote beside it).",
    ),
) -> None:
    """Create missing constraints and indexes and bring older data up to date.

    A database built for another embedder or template is refused."""
    import asyncio
    from dataclasses import asdict

    from consolidation.providers.embedders import build_embedder
    from consolidation.settings import EmbedderSettings, EngineSettings
    from graph.database import Database
    from graph.schema import migrate
    from graph.settings import Neo4jSettings

    embedder = build_embedder(EmbedderSettings())
    template = EngineSettings().embedding_template

    async def work() -> None:
        db = Database.connect(Neo4jSettings())
        try:
            await db.ping()
            result = await migrate(db, embedder.name, embedder.dimension, template, recheck=recheck)
        finally:
            await db.close()
        created = {"created": result.created, "embedder": result.embedder, "dimension": result.dimension}
        typer.echo(
            json.dumps(created | {"template": result.template, "backfilled": asdict(result.backfilled)})
        )

    asyncio.run(work())


@db_app.command("reembed")
def db_reembed(
    batch_size: int = typer.Option(
        REEMBED_BATCH_SIZE, min=1, max=10_000, help="Nodes read, embedded and written back per transaction."
    ),
) -> None:
    """Re-embed every node of every tenant with the configured embedder and template.

    Interactions (through the template), episodes and facts; then the embedder and template are
    recorded. Resumable: Ctrl-C and run it again."""
    import asyncio

    from consolidation.providers.reembedding import reembed_database
    from consolidation.wiring import AppSettings
    from graph.errors import InvalidInput, StoreUnavailable

    try:
        settings = AppSettings()
        with _ReembedBar() as bar:
            report = asyncio.run(reembed_database(settings, batch_size, bar))
    except StoreUnavailable as error:
        raise StoreUnavailable(f"{_one_line(error)}; {START_HINT}") from error
    except ValueError as error:  # a stored node the template cannot render
        if isinstance(error, _user_errors()):
            raise
        raise InvalidInput(str(error)) from error
    except KeyboardInterrupt:
        typer.secho("interrupted: what was re-embedded is kept; run it again to finish", err=True)
        raise typer.Exit(130) from None
    typer.echo(json.dumps(_report(report)))


class _ReembedBar(StderrBar):
    """One bar per layer on stderr (stdout keeps the JSON report); totals grow when a later pass
    finds what was written meanwhile."""

    def __init__(self) -> None:
        super().__init__("{task.description:<12}")
        self.tasks: dict[Layer, TaskID] = {}

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
