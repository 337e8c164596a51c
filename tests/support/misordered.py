"""Replacements as versions before the in-order rule wrote them (before 7fda80b): a fact said
earlier but consolidated later closed the fact it named at its own start, whatever that one's
(create_facts.cypher then). For the tests of migration's repair (graph/backfill.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.consolidations import ConsolidationStore
from graph.database import Database
from graph.interactions import InteractionStore
from graph.models import ConsolidationWrite, EpisodeWrite, FactWrite, NewInteraction, Owner, RunWrite, new_id
from tests.support.api import T0
from tests.support.engines import DIMENSION

# What versions before the in-order rule wrote for a fact naming another it replaces: the named
# fact closed at the new fact's start, whatever its own (create_facts.cypher before 7fda80b).
OLD_SUPERSEDE = """
MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: $new})
MATCH (old:Fact {tenant: $tenant, user_id: $user_id, id: $old, status: 'active'})
SET old.status = 'superseded', old.valid_to = f.valid_from
CREATE (f)-[:SUPERSEDES {at: f.valid_from, reason: $reason, run_id: $run_id}]->(old)"""


def _vector(embedder: HashingEmbedder, text: str) -> list[float]:
    return [float(x) for x in embedder.embed_sync([text])[0]]


def _run(op: str, read: list[str], produced: list[str]) -> RunWrite:
    return RunWrite(
        id=new_id("run"), op=op, trigger="recurrence", provider="test", model="m", status="ok",
        prompt_tokens=10, completion_tokens=5, latency_ms=1.0, neighbor_count=len(read), threshold=0.7,
        at=T0, read_ids=read, produced_ids=produced,
    )  # fmt: skip


async def consolidate(
    db: Database,
    owner: Owner,
    embedder: HashingEmbedder,
    text: str,
    day: int,
    supersedes: list[tuple[str, str]] | None = None,
) -> tuple[str, str]:
    """One turn on `day` consolidated into an episode and one fact; (fact id, its run's id)."""
    at = T0 + timedelta(days=day)
    turn = NewInteraction("alice", text, at, _vector(embedder, text), source_ref=new_id("ref"))
    ids = [s.id for s in await InteractionStore(db, DIMENSION).write_batch(owner, [turn])]
    episode_run = _run("create_episode", ids, [])
    episode = EpisodeWrite(
        id=new_id("epi"), title=text, summary=text, embedding=_vector(embedder, text), first_at=at,
        last_at=at, sources=[(i, 0.9) for i in ids], run_id=episode_run.id, valid_from=at,
    )  # fmt: skip
    fact = FactWrite(new_id("fact"), text, "preference", _vector(embedder, text), at, ids, supersedes or [])
    refine = _run("refine_facts", [episode.id, *ids], [fact.id])
    runs = [RunWrite(**{**episode_run.__dict__, "produced_ids": [episode.id]}), refine]
    await ConsolidationStore(db, DIMENSION).commit(
        owner, ConsolidationWrite(episode, [fact], runs, ids, at, refine.id)
    )
    return fact.id, refine.id


async def old_replacement(
    db: Database,
    owner: Owner,
    embedder: HashingEmbedder,
    later: str,
    earlier: str,
    earlier_day: int,
    reason: str,
) -> str:
    """`earlier` said on `earlier_day`, consolidated after `later` and replacing it as older
    versions wrote it; returns its fact id."""
    new, run_id = await consolidate(db, owner, embedder, earlier, earlier_day)
    await db.driver.execute_query(
        OLD_SUPERSEDE, owner.params(), new=new, old=later, reason=reason, run_id=run_id, database_=db.name
    )
    return new


def reversed_reason(said: datetime, replacing: datetime, ends: datetime, given: str) -> str:
    """The reason the in-order rule writes on an edge turned by time order: the replaced fact
    `said` before the `replacing` one it named, with refinement's reason `given`."""
    return (
        f"Reversed by time order: the replaced fact, said {_stamp(said)}, was consolidated after the "
        f"replacing fact, said {_stamp(replacing)}, and named it as the fact it replaced; the one said "
        f"first ends at {_stamp(ends)}. Reason given for the opposite direction: {given}"
    )


def _stamp(at: datetime) -> str:
    return f"{at.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"
