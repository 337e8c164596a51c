"""`recmem cypher`: list and run the read-only analytics in ``cypher/analytics/``.

Each analytics file starts with a header comment: a first line ``Title: question``, a description,
then a ``Parameters:`` block with one line per parameter::

    //   $name (type, required): what it is.
    //   $name (type, default value): what it is.

The declared type is how a ``--param name=value`` string from the command line is converted, so a
numeric user id stays a string while ``limit=5`` becomes an integer:

- ``string``: as given;
- ``integer`` / ``float``: Python's ``int()`` (within Neo4j's 64 bits) / ``float()``;
- ``boolean``: true/false, yes/no, 1/0, on/off (any case);
- ``datetime``: ISO 8601 (``2024-05-01``, ``2024-05-01T09:00``, ``2024-05-01T09:00:00+02:00``);
  a value without an offset is taken as UTC, since every time in the graph is UTC.

``null`` (any case) passes null for any type. Optional parameters left out are passed as null and
the query applies its default (``coalesce($name, default)``), so Python never duplicates them.

Every analytic reads one tenant (``$tenant``): ``run`` takes it from ``--tenant`` (default
``default``, the tenant ``recmem ingest`` writes to without one), and an explicit
``--param tenant=...`` wins. The tenant used is named on stderr.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, time
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from cli.moments import read_moment
from graph.cypher import statements_in
from graph.errors import GraphError, InvalidInput, QueryFailed, StoreUnavailable

if TYPE_CHECKING:
    from graph.database import Database, Row

FOLDER = "analytics"
DEFAULT_TENANT = "default"  # as `recmem ingest` and `recmem recall` default it
# Exit statuses as cli/main.py: a refusal (an unknown analytic or parameter, a bad value) is the
# user's to correct; Neo4j unreachable or refusing the query is a failure.
USER_ERROR = 2
FAILURE = 1

# As cli/main.py says it (cli/main.py imports this module, so the text lives here).
START_HINT = (
    "start it with `recmem neo4j start` (or scripts/serve.sh), or set RECMEM_NEO4J_URI to a running one"
)

cypher_app = typer.Typer(help="Read-only Cypher analytics over the memory graph.", no_args_is_help=True)

_PARAM_LINE = re.compile(r"^\$(?P<name>\w+)\s+\((?P<type>\w+),\s*(?P<rule>[^)]*)\):\s*(?P<help>.*)$")
_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


class AnalyticsError(ValueError):
    """A name, parameter or value the command line cannot use; the message says which and why."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    required: bool
    # The default as written in the header, for display only: the query itself applies it.
    default: str | None
    help: str


@dataclass(frozen=True)
class Analytic:
    name: str
    title: str
    question: str
    description: str
    params: tuple[Param, ...]
    text: str

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


# --- catalog -------------------------------------------------------------------------------------


def catalog() -> list[Analytic]:
    """Every analytics file, in name order, with its parsed header."""
    return [parse_analytic(name.removeprefix(f"{FOLDER}/"), text) for name, text in statements_in(FOLDER)]


def find(name: str) -> Analytic:
    analytics = {a.name: a for a in catalog()}
    if name not in analytics:
        raise AnalyticsError(f"unknown analytic {name!r}; known: {', '.join(sorted(analytics))}")
    return analytics[name]


def parse_analytic(name: str, text: str) -> Analytic:
    header = _header_lines(text)
    if not header or ":" not in header[0]:
        raise AnalyticsError(f"analytic {name!r} has no 'Title: question' header line")
    title, question = (part.strip() for part in header[0].split(":", 1))
    marker = header.index("Parameters:") if "Parameters:" in header else len(header)
    description = " ".join(line for line in header[1:marker] if line)
    params = tuple(_parse_param(name, line) for line in header[marker + 1 :] if line)
    return Analytic(name, title, question, description, params, text)


def _header_lines(text: str) -> list[str]:
    """The leading ``//`` comment block, markers stripped, blank comment lines kept as ''."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        lines.append(line.removeprefix("//").strip())
    return lines


def _parse_param(analytic: str, line: str) -> Param:
    match = _PARAM_LINE.match(line)
    if match is None:
        raise AnalyticsError(f"analytic {analytic!r}: cannot read parameter line {line!r}")
    kind, rule = match["type"], match["rule"].strip()
    if kind not in CONVERTERS:
        raise AnalyticsError(f"analytic {analytic!r}: unknown parameter type {kind!r}")
    if rule != "required" and not rule.startswith("default "):
        raise AnalyticsError(f"analytic {analytic!r}: expected 'required' or 'default ...' in {line!r}")
    default = None if rule == "required" else rule.removeprefix("default ").strip()
    return Param(match["name"], kind, rule == "required", default, match["help"].strip())


# --- parameters ----------------------------------------------------------------------------------


def _to_bool(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"expected one of {sorted(_TRUE | _FALSE)}")


def _to_integer(raw: str) -> int:
    value = int(raw)
    if not -(2**63) <= value < 2**63:
        raise ValueError("outside Neo4j's 64-bit integers")
    return value


CONVERTERS: dict[str, Callable[[str], Any]] = {
    "string": str,
    "integer": _to_integer,
    "float": float,
    "boolean": _to_bool,
    "datetime": read_moment,
}


def convert(param: Param, raw: str) -> Any:
    """A command-line string typed as the header declares; ``null`` is null for every type."""
    if raw.strip().lower() == "null":
        return None
    try:
        return CONVERTERS[param.type](raw)
    except ValueError as error:
        raise AnalyticsError(
            f"parameter {param.name!r} expects {param.type}, got {raw!r} ({error})"
        ) from None


def parse_assignments(analytic: Analytic, assignments: Iterable[str]) -> dict[str, Any]:
    """``k=v`` strings to typed values (the value may itself contain '=')."""
    params: dict[str, Any] = {}
    for assignment in assignments:
        key, sep, raw = assignment.partition("=")
        key = key.strip().removeprefix("$")
        if not sep or not key:
            raise AnalyticsError(f"--param expects name=value, got {assignment!r}")
        param = _known(analytic, key)
        params[key] = convert(param, raw)
    return params


def bind(analytic: Analytic, given: dict[str, Any]) -> dict[str, Any]:
    """Check names and required values, then pass every declared parameter (null when left out):
    Neo4j rejects a query whose parameters are missing, even ones the query coalesces."""
    for key in given:
        _known(analytic, key)
    missing = [p.name for p in analytic.params if p.required and given.get(p.name) is None]
    if missing:
        flags = " ".join(f"--param {name}=..." for name in missing)
        raise AnalyticsError(f"{analytic.name} needs {', '.join(missing)} ({flags})")
    return {p.name: given.get(p.name) for p in analytic.params}


def _known(analytic: Analytic, key: str) -> Param:
    param = analytic.param(key)
    if param is None:
        known = ", ".join(p.name for p in analytic.params)
        raise AnalyticsError(f"{analytic.name} has no parameter {key!r}; it takes: {known}")
    return param


async def run_analytic(db: Database, name: str, params: dict[str, Any]) -> list[Row]:
    """Run one analytic in a read transaction (the server refuses writes in one)."""
    analytic = find(name)
    return await db.read(f"{FOLDER}/{analytic.name}", **bind(analytic, params))


# --- output --------------------------------------------------------------------------------------


def native(value: Any) -> Any:
    """Driver values to Python ones, through lists and maps (temporals become datetime/date)."""
    if isinstance(value, list):
        return [native(v) for v in value]
    if isinstance(value, dict):
        return {k: native(v) for k, v in value.items()}
    from graph.models import to_python

    return to_python(value)


def plain(value: Any) -> Any:
    """JSON-ready: native values with temporals as ISO 8601 strings."""
    value = native(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if hasattr(value, "iso_format"):  # neo4j Duration has no stdlib counterpart
        return value.iso_format()
    return value


def _cell(value: Any) -> str:
    """One flat cell for a table or CSV: nested values as compact JSON, null as empty."""
    value = plain(value)
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def render_json(rows: list[Row]) -> str:
    return json.dumps([plain(row) for row in rows], indent=2, ensure_ascii=False)


def render_csv(rows: list[Row]) -> str:
    if not rows:
        return ""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(rows[0].keys())
    writer.writerows([_cell(v) for v in row.values()] for row in rows)
    return buffer.getvalue()


def render_table(title: str, rows: list[Row]) -> Table:
    table = Table(title=title, caption=f"{len(rows)} row(s)")
    for key in rows[0].keys() if rows else ["(no rows)"]:
        table.add_column(key, overflow="fold")
    for row in rows:
        table.add_row(*(_cell(v) for v in row.values()))
    return table


class Format(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


# --- commands ------------------------------------------------------------------------------------


def _fail(message: str, status: int = USER_ERROR) -> NoReturn:
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    raise typer.Exit(status)


def with_tenant(analytic: Analytic, params: dict[str, Any], tenant: str) -> dict[str, Any]:
    """`--tenant` as the analytic's $tenant, unless --param set it (explicit wins)."""
    if analytic.param("tenant") is None or "tenant" in params:
        return params
    return {**params, "tenant": tenant}


def _describe_param(param: Param) -> str:
    rule = "required" if param.required else f"default {param.default}"
    return f"${param.name} ({param.type}, {rule})"


@cypher_app.command("list")
def list_analytics() -> None:
    """Every analytic: its name, the question it answers, its parameters."""
    table = Table(title="cypher/analytics")
    table.add_column("name", no_wrap=True)
    table.add_column("answers", overflow="fold")
    table.add_column("parameters", overflow="fold")
    for analytic in catalog():
        params = "\n".join(_describe_param(p) for p in analytic.params)
        table.add_row(analytic.name, f"{analytic.title}: {analytic.question}", params)
    Console().print(table)


@cypher_app.command("show")
def show_analytic(name: Annotated[str, typer.Argument(help="Analytic name, as `list` prints it.")]) -> None:
    """The full Cypher text of one analytic, header included."""
    try:
        typer.echo(find(name).text)
    except AnalyticsError as error:
        _fail(str(error))


@cypher_app.command("run")
def run_command(
    name: Annotated[str, typer.Argument(help="Analytic name, as `list` prints it.")],
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param", "-p", help="name=value, repeatable; typed as the analytic's header declares."
        ),
    ] = None,
    output: Annotated[Format, typer.Option("--format", "-f", help="table, json or csv.")] = Format.table,
    tenant: Annotated[
        str, typer.Option("--tenant", "-t", help="The tenant to read ($tenant); --param tenant=... wins.")
    ] = DEFAULT_TENANT,
) -> None:
    """Run one analytic read-only against the configured Neo4j (RECMEM_NEO4J_* settings).

    Every analytic reads one tenant: --tenant, default `default` (as for `recmem ingest`).
    An explicit --param tenant=... wins. The tenant used is named on stderr.

    Values of --param are typed as the analytic's header declares (see `show NAME`):
    integer, float, boolean (true/false, yes/no, 1/0, on/off), string,
    datetime (ISO 8601; no offset means UTC); `null` passes null.
    Optional parameters left out take the query's own default.
    """
    import asyncio

    from graph.validation import require_name

    try:
        analytic = find(name)
        params = with_tenant(analytic, parse_assignments(analytic, param or []), tenant)
        bind(analytic, params)  # refuse bad input before connecting
        if isinstance(params.get("tenant"), str):
            require_name("tenant", params["tenant"])  # a blank one would read nothing
    except (AnalyticsError, InvalidInput) as error:
        _fail(str(error))
    if "tenant" in params:
        typer.echo(f"tenant: {params['tenant']}", err=True)
    try:
        rows = asyncio.run(_fetch(analytic.name, params))
    except QueryFailed as error:  # before GraphError, its base: Neo4j refused the query itself
        _fail(f"Neo4j refused {name}: {error.message or error}", FAILURE)
    except GraphError as error:  # Neo4j unreachable: not the user's input
        hint = "" if not isinstance(error, StoreUnavailable) else f"; {START_HINT}"
        _fail(" ".join(str(error).split()) + hint, FAILURE)
    if output is Format.json:
        typer.echo(render_json(rows))
    elif output is Format.csv:
        typer.echo(render_csv(rows), nl=False)
    else:
        Console().print(render_table(f"{analytic.title}: {analytic.question}", rows))


async def _fetch(name: str, params: dict[str, Any]) -> list[Row]:
    from graph.database import Database
    from graph.settings import Neo4jSettings

    db = Database.connect(Neo4jSettings())
    try:
        await db.ping()
        return await run_analytic(db, name, params)
    finally:
        await db.close()
