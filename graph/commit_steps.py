"""Steps every transaction that commits derived memory shares (a consolidation, a forget, a batch
merge): the lease check that opens it, and the run records that account for its LLM calls."""

from __future__ import annotations

from dataclasses import asdict

from neo4j import AsyncManagedTransaction

from graph.database import run
from graph.errors import InvalidInput, LeaseLost
from graph.models import Owner, RunWrite
from graph.vocabulary import NODE_LABELS


def label_of(node_id: str) -> str:
    """The label a memory node id names, from the prefix `new_id` gave it; anything else is refused."""
    label = NODE_LABELS.get(node_id.split("_", 1)[0])
    if label is None:
        raise InvalidInput(f"not a memory node id: {node_id!r}")
    return label


def check_run_links(runs: list[RunWrite]) -> None:
    """Refuse, before anything is written, a run that names something other than a memory node."""
    for record in runs:
        for node_id in [*record.read_ids, *record.produced_ids]:
            label_of(node_id)


async def require_lease(tx: AsyncManagedTransaction, owner: Owner, holder: str) -> None:
    """The first statement of the transaction: a holder whose lease expired (and was taken over)
    must not write, so no two processes commit derived memory for the same user at once."""
    rows = await run(tx, "queries/consolidation/check_lease", {**owner.params(), "holder": holder})
    if not rows or not rows[0]["held"]:
        raise LeaseLost(f"consolidation lease for {owner.user_id!r} is no longer held by {holder}")


async def record_runs(tx: AsyncManagedTransaction, owner: Owner, runs: list[RunWrite]) -> None:
    """The runs, with READ and PRODUCED edges to the nodes they name, in the caller's transaction."""
    if not runs:
        return
    await run(
        tx,
        "queries/consolidation/record_runs",
        {**owner.params(), "runs": [asdict(r) for r in runs]},
    )
    links = [
        {"run_id": r.id, "id": node_id, "label": label_of(node_id), "rel": rel}
        for r in runs
        for rel, ids in (("READ", r.read_ids), ("PRODUCED", r.produced_ids))
        for node_id in ids
    ]
    if links:
        await run(tx, "queries/consolidation/link_runs", {**owner.params(), "links": links})
