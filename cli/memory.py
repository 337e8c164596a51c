"""`recmem ingest` and `recmem recall`: feed a conversation file in, look memory up as a table."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from cli.moments import OffCalendar, read_moment

# The bounds the API sets (graph/vocabulary.py: no more than the constants, cheap to import).
from graph.vocabulary import MAX_BUDGET, MAX_CONTEXT_TOKENS, counted

if TYPE_CHECKING:
    from rich.progress import Progress
    from rich.table import Table

    from consolidation.engine import MemoryEngine
    from consolidation.recall.planning import Plan
    from consolidation.types import Recall, Unit
    from graph.models import Owner


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest)
    app.command("recall")(recall)


def ingest(
    path: Path = typer.Argument(..., exists=True, dir_okay=False, help="JSONL units or a LoCoMo JSON file."),
    user: str | None = typer.Option(None, help="User id; default: the LoCoMo sample id or the file name."),
    tenant: str = typer.Option("default", help="Tenant the user belongs to."),
    sample: list[str] = typer.Option([], help="LoCoMo sample ids to ingest (default: all)."),
    batch: int = typer.Option(50, min=1, max=1000, help="Units per remember_batch call."),
) -> None:
    """Remember every unit of a conversation file, consolidating as topics recur.

    Each conversation ends merged (no turn left waiting for its episode's batch merge).

    Units whose source_ref is stored already (a file ingested again) are not written twice: the
    summary line counts them apart from the new ones."""
    import asyncio

    from consolidation.settings import EngineSettings
    from consolidation.writing.conversation_files import check_units, read_conversations, selected
    from graph.errors import InvalidInput
    from graph.models import Owner
    from graph.validation import require_name, require_owner

    # Before anything connects: a blank --user would else fall back to the file's name.
    if user is None:
        require_name("tenant", tenant)
    else:
        require_owner(tenant, user)
    conversations = selected(path, read_conversations(path), sample)
    total = sum(len(c.units) for c in conversations)
    if total == 0:  # else "ingested 0 units", status 0: a wrong or empty file looked ingested
        raise InvalidInput(
            f"{path.name} holds no units to ingest: expected JSONL (one unit per line) or a LoCoMo JSON file"
        )
    # Every unit before the first is written: a bad one late in the file failed mid-way.
    max_text_bytes = EngineSettings().max_text_bytes
    for conversation in conversations:
        check_units(conversation, Owner(tenant, user or conversation.name), max_text_bytes)

    async def work() -> int:
        async with _engine() as engine:
            if engine.consolidator.name == "offline":
                typer.echo(f"consolidating offline: {OFFLINE_REASON}", err=True)
            with _progress() as progress:
                task = progress.add_task("ingesting", total=total)
                new = 0
                for conversation in conversations:
                    owner = Owner(tenant, user or conversation.name)
                    for start in range(0, len(conversation.units), batch):
                        chunk = conversation.units[start : start + batch]
                        new += await _remember(engine, owner, chunk)
                        progress.advance(task, len(chunk))
                    # A file is a finished conversation: turns still waiting for their episode's
                    # batch merge are merged now rather than when a sweeper finds them quiet.
                    await engine.consolidate(owner, wait=True, flush=True)
                return new

    new = asyncio.run(work())
    blank = sum(c.blank_lines for c in conversations)
    typer.echo(
        f"ingested {counted(total, 'unit')} from {counted(len(conversations), 'conversation')}: "
        f"{new} new, {total - new} already stored"
        + (f"; {counted(blank, 'blank line')} skipped" if blank else "")
    )


OFFLINE_REASON = "no LLM endpoint configured (RECMEM_LLM_BASE_URL / RECMEM_LLM_API_KEY)"


async def _remember(engine: MemoryEngine, owner: Owner, units: list[Unit]) -> int:
    """How many of the units were new: one whose source_ref is stored already is not written again."""
    # Inline: the command ends with the file consolidated, not queued.
    remembered = await engine.remember_batch(owner, units, consolidate=True)
    return sum(r.created for r in remembered)


def moment(raw: str) -> datetime:
    """An option's time (see `cli.moments.read_moment`); anything else is a usage error (status 2)."""
    try:
        return read_moment(raw)
    except OffCalendar:
        raise typer.BadParameter(f"{raw!r} is outside the years 1 to 9999 in UTC") from None
    except ValueError:
        raise typer.BadParameter(
            f"not an ISO 8601 date-time: {raw!r} (e.g. 2023-05-08, 2023-05-08T13:56:00+05:00)"
        ) from None


def recall(
    query: str = typer.Argument(..., help="What to look up."),
    user: str = typer.Option(..., help="User id."),
    tenant: str = typer.Option("default", help="Tenant the user belongs to."),
    sub: int = typer.Option(10, min=0, max=MAX_BUDGET, help="Subconscious (raw interaction) budget."),
    epi: int = typer.Option(5, min=0, max=MAX_BUDGET, help="Episodic budget."),
    sem: int = typer.Option(10, min=0, max=MAX_BUDGET, help="Semantic (fact) budget."),
    as_of: datetime | None = typer.Option(
        None, parser=moment, metavar="ISO-8601", help="Memory as it stood then (ISO 8601, UTC if no zone)."
    ),
    include_consolidated: bool = typer.Option(False, help="Also show raw turns already consolidated."),
    tokens: int | None = typer.Option(
        None,
        min=1,
        max=MAX_CONTEXT_TOKENS,
        help="Print instead the context assembled across the layers within this many tokens.",
    ),
    asked_at: datetime | None = typer.Option(
        None,
        parser=moment,
        metavar="ISO-8601",
        help="When the question is asked (ISO 8601, UTC if no zone; default now), for 'last week' and such: "
        "an offset names the asker's calendar.",
    ),
) -> None:
    """Print what memory recalls for a query, layer by layer, with scores and sources.

    With --tokens, the context assembled across the layers that an LLM would read."""
    import asyncio

    from rich.console import Console

    from consolidation.types import Budgets
    from graph.errors import NotFound
    from graph.models import Owner
    from graph.validation import require_owner

    require_owner(tenant, user)  # before anything connects, as ingest does
    console = Console()
    owner = Owner(tenant, user)

    async def work() -> Recall:
        async with _engine() as engine:
            # An unknown user would recall nothing: an empty table that reads like "no memories".
            if not await engine.stores.browse.users(tenant, [user]):
                raise NotFound(f"unknown user {user!r} in tenant {tenant!r} (nothing was ingested for it)")
            return await engine.recall(
                owner,
                query,
                budgets=Budgets(sub, epi, sem),
                tokens=tokens,
                as_of=as_of,
                include_consolidated=include_consolidated,
                asked_at=asked_at,
            )

    found = asyncio.run(work())
    if found.context is None:
        console.print(_table(found))
        return
    # Plain, unwrapped: the text exactly as a prompt would carry it.
    typer.echo(found.context.text)
    console.print(f"[dim]{found.context.tokens} of {found.context.budget} tokens[/dim]")
    if found.plan is not None and not found.plan.empty:
        console.print(f"[dim]plan: {plan_line(found.plan)}[/dim]")


def plan_line(plan: Plan) -> str:
    """The plan in one line: `window 1 May 2023 to 31 May 2023 ('in May'), order latest, kind lookup`
    (`window on 7 May 2023` for one day): the first and last days the window holds (its end is
    exclusive), the asker's (in --asked-at's zone), as the planner read them."""
    parts = []
    if plan.window is not None:
        zone = plan.asked_at.tzinfo
        first = plan.window.start.astimezone(zone).date()
        last = (plan.window.end - timedelta(microseconds=1)).astimezone(zone).date()
        days = f"on {_day(first)}" if last <= first else f"{_day(first)} to {_day(last)}"
        parts.append(f"window {days} ({plan.window.text!r})")
    if plan.order is not None:
        parts.append(f"order {plan.order.value}")
    parts.append(f"kind {plan.kind.value}")
    return ", ".join(parts)


def _day(day: date) -> str:
    return f"{day.day} {day:%b %Y}"


def _table(result: Recall) -> Table:
    from rich.table import Table

    table = Table(title=f"recall: {result.query}")
    for column in ("layer", "score", "when", "text", "sources"):
        table.add_column(column, overflow="fold")
    for hit in result.all_hits():
        when = hit.at.date().isoformat() if hit.at else ""
        table.add_row(hit.layer, f"{hit.score:.3f}", when, hit.text[:300], str(len(hit.interaction_ids)))
    return table


def _progress() -> Progress:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),  # stdout keeps the summary line
    )


@asynccontextmanager
async def _engine() -> AsyncIterator[MemoryEngine]:
    from consolidation.wiring import AppSettings, open_engine

    # Silent about offline consolidation: only `ingest` consolidates, and it says so itself.
    async with open_engine(AppSettings(), warn_offline=False) as engine:
        yield engine
