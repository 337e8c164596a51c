"""Episodes, facts, supersession, provenance and leases against the real server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.browse import BrowseStore
from graph.consolidations import ConsolidationStore
from graph.database import Database
from graph.episodes import EpisodeStore
from graph.errors import InvalidInput, LeaseLost, NotFound
from graph.event_log import EventLog
from graph.facts import FactStore
from graph.interactions import InteractionStore
from graph.leases import LeaseStore
from graph.models import (
    ConsolidationWrite,
    EpisodeWrite,
    FactWrite,
    NewInteraction,
    Owner,
    RunWrite,
    new_id,
)
from graph.recall import RecallSearch
from tests.support.engines import DIMENSION
from tests.support.misordered import reversed_reason

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def vec(embedder: HashingEmbedder, text: str) -> list[float]:
    return [float(x) for x in embedder.embed_sync([text])[0]]


async def seed(db: Database, owner: Owner, embedder: HashingEmbedder, texts: list[str]) -> list[str]:
    items = [
        NewInteraction("alice", t, T0 + timedelta(days=i), vec(embedder, t), source_ref=f"r{i}")
        for i, t in enumerate(texts)
    ]
    return [s.id for s in await InteractionStore(db, DIMENSION).write_batch(owner, items)]


def run_write(op: str, read: list[str], produced: list[str], tokens: int = 10) -> RunWrite:
    return RunWrite(
        id=new_id("run"),
        op=op,
        trigger="recurrence",
        provider="test",
        model="m",
        status="ok",
        prompt_tokens=tokens,
        completion_tokens=tokens // 2,
        latency_ms=1.5,
        neighbor_count=len(read),
        threshold=0.7,
        at=T0 + timedelta(days=30),
        read_ids=read,
        produced_ids=produced,
    )


def episode_write(
    embedder: HashingEmbedder,
    ids: list[str],
    run_id: str,
    previous: str | None = None,
    valid_from: datetime = T0,
) -> EpisodeWrite:
    return EpisodeWrite(
        id=new_id("epi"),
        title="Sushi",
        summary="Alice talks about sushi.",
        embedding=vec(embedder, "alice sushi"),
        first_at=T0,
        last_at=T0 + timedelta(days=len(ids)),
        sources=[(i, 0.8) for i in ids],
        valid_from=valid_from,
        run_id=run_id,
        previous_id=previous,
    )


async def commit_episode_with_fact(
    db: Database,
    owner: Owner,
    embedder: HashingEmbedder,
    ids: list[str],
    fact_text: str,
    at: datetime,
    previous: str | None = None,
    supersedes: list[tuple[str, str]] | None = None,
) -> tuple[EpisodeWrite, FactWrite]:
    episode_run = run_write("create_episode", ids, [])
    episode = episode_write(embedder, ids, episode_run.id, previous, at)
    fact = FactWrite(
        id=new_id("fact"),
        text=fact_text,
        kind="preference",
        embedding=vec(embedder, fact_text),
        valid_from=at,
        source_interaction_ids=ids[-1:],
        supersedes=supersedes or [],
    )
    refine_run = run_write("refine_facts", [episode.id, *ids], [fact.id])
    episode_run = RunWrite(**{**episode_run.__dict__, "produced_ids": [episode.id]})
    write = ConsolidationWrite(
        episode=episode,
        facts=[fact],
        runs=[episode_run, refine_run],
        consolidated_ids=ids,
        at=at,
        facts_run_id=refine_run.id,
    )
    await ConsolidationStore(db, DIMENSION).commit(owner, write)
    return episode, fact


async def test_commit_writes_episode_facts_provenance_and_runs(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    ids = await seed(db, owner, embedder, ["I love sushi", "sushi again", "more sushi"])
    episode, fact = await commit_episode_with_fact(
        db, owner, embedder, ids, "Alice loves sushi.", T0 + timedelta(days=3)
    )
    provenance = await FactStore(db, DIMENSION).provenance(owner, fact.id)
    assert provenance.fact.text == "Alice loves sushi."
    assert [e.episode.id for e in provenance.episodes] == [episode.id]
    assert sorted(i.id for i, _ in provenance.episodes[0].sources) == sorted(ids)
    assert all(sim == pytest.approx(0.8) for _, sim in provenance.episodes[0].sources)
    assert [i.id for i in provenance.interactions] == [ids[-1]]
    assert sorted(r.op for r in provenance.runs) == ["create_episode", "refine_facts"]
    assert {r.prompt_tokens for r in provenance.runs} == {10}
    stored = await InteractionStore(db, DIMENSION).get(owner, ids)
    assert all(i.consolidated and i.consolidated_at is not None for i in stored)
    query = vec(embedder, "sushi")
    assert await InteractionStore(db, DIMENSION).search(owner, query, 10, include_consolidated=False) == []


async def test_new_episode_version_supersedes_and_inherits_sources(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    ids = await seed(db, owner, embedder, ["sushi one", "sushi two", "sushi three", "sushi four"])
    first, _ = await commit_episode_with_fact(
        db, owner, embedder, ids[:3], "Alice likes sushi.", T0 + timedelta(days=3)
    )
    second, _ = await commit_episode_with_fact(
        db, owner, embedder, ids[3:], "Alice eats sushi weekly.", T0 + timedelta(days=4), previous=first.id
    )
    store = EpisodeStore(db, DIMENSION)
    versions = (await BrowseStore(db).episode_versions(owner.tenant, [first.id]))[first.id]
    assert [(v.id, v.version, v.current) for v in versions] == [(second.id, 2, True), (first.id, 1, False)]
    assert versions[1].superseded_at is not None
    sources = await RecallSearch(db, DIMENSION).sources(owner, [second.id], [])
    assert sorted(i for i, _ in sources.episodes[second.id]) == sorted(ids)
    hits = await store.search(owner, vec(embedder, "alice sushi"), 5)
    assert [h.item.id for h in hits] == [second.id]
    before = await store.search(
        owner, vec(embedder, "alice sushi"), 5, as_of=versions[0].valid_from - timedelta(seconds=1)
    )
    assert [h.item.id for h in before] == [first.id]


async def test_supersession_closes_validity_and_as_of_reads_the_past(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    ids = await seed(db, owner, embedder, ["I love sushi", "I can't stand sushi any more"])
    t_love, t_hate = T0 + timedelta(days=1), T0 + timedelta(days=40)
    _, old = await commit_episode_with_fact(db, owner, embedder, ids[:1], "Alice loves sushi.", t_love)
    _, new = await commit_episode_with_fact(
        db,
        owner,
        embedder,
        ids[1:],
        "Alice dislikes sushi.",
        t_hate,
        supersedes=[(old.id, "preference shift")],
    )
    facts = FactStore(db, DIMENSION)
    stored_old = (await facts.get(owner, [old.id]))[0]
    assert stored_old.status == "superseded" and stored_old.valid_to == t_hate
    query = vec(embedder, "alice sushi")
    assert [h.item.id for h in await facts.search(owner, query, 10)] == [new.id]
    assert [h.item.id for h in await facts.search(owner, query, 10, as_of=T0 + timedelta(days=10))] == [
        old.id
    ]
    assert await facts.search(owner, query, 10, as_of=T0) == []
    provenance = await facts.provenance(owner, new.id)
    assert [(r.fact.id, r.reason) for r in provenance.supersedes] == [(old.id, "preference shift")]
    assert [r.fact.id for r in (await facts.provenance(owner, old.id)).superseded_by] == [new.id]


async def test_a_fact_said_before_the_one_it_replaces_ends_where_that_one_begins(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    """Turns consolidated out of time order: a new fact replaces the facts dated no later than it
    from its own start; one dated after it stays current and ends it instead, so no validity
    ends before it begins and the history reads in valid time (docs/design/graph-model.md#times)."""
    ids = await seed(db, owner, embedder, ["I love sushi", "I can't stand sushi", "sushi is fine"])
    t1, t20, t40 = (T0 + timedelta(days=d) for d in (1, 20, 40))
    _, first = await commit_episode_with_fact(db, owner, embedder, ids[:1], "Alice loves sushi.", t1)
    _, last = await commit_episode_with_fact(db, owner, embedder, ids[1:2], "Alice dislikes sushi.", t40)
    named = [(first.id, "taste changed"), (last.id, "taste changed again")]
    _, middle = await commit_episode_with_fact(
        db, owner, embedder, ids[2:], "Alice finds sushi fine.", t20, supersedes=named
    )
    facts = FactStore(db, DIMENSION)
    stored = {f.id: f for f in await facts.get(owner, [first.id, middle.id, last.id])}
    assert [
        (stored[f.id].status, stored[f.id].valid_from, stored[f.id].valid_to) for f in (first, middle, last)
    ] == [
        ("superseded", t1, t20),
        ("superseded", t20, t40),
        ("active", t40, None),
    ]
    query = vec(embedder, "alice sushi")
    for as_of, held in ((T0, []), (t1, first.id), (t40 - timedelta(seconds=1), middle.id), (t40, last.id)):
        found = [h.item.id for h in await facts.search(owner, query, 10, as_of=as_of)]
        assert found == ([held] if held else []), as_of
    assert [h.item.id for h in await facts.search(owner, query, 10)] == [last.id]
    # The audit keeps both replacements, each edge at the end of the fact it closes.
    chain = await facts.provenance(owner, middle.id)
    assert [(r.fact.id, r.reason, r.at) for r in chain.supersedes] == [(first.id, "taste changed", t20)]
    assert [(r.fact.id, r.reason, r.at) for r in chain.superseded_by] == [
        (last.id, reversed_reason(t20, t40, t40, "taste changed again"), t40)
    ]
    # The consolidation's event names the fact it replaced, not the one that stays current.
    events = (await EventLog(db).since(owner, 0)).events
    assert [e.superseded_fact_ids for e in events] == [[], [], [first.id]]


async def _graph_size(db: Database, owner: Owner) -> tuple[int, int]:
    result = await db.driver.execute_query(
        "MATCH (n {tenant: $t}) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r",
        t=owner.tenant,
        database_=db.name,
    )
    return int(result.records[0]["n"]), int(result.records[0]["r"])


async def test_failure_half_way_leaves_nothing_behind(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    ids = await seed(db, owner, embedder, ["sushi one", "sushi two"])
    size = await _graph_size(db, owner)
    episode_run = run_write("create_episode", ids, [])
    bad_fact = FactWrite(
        id=new_id("fact"),
        text="x",
        kind="preference",
        embedding=vec(embedder, "x"),
        valid_from=T0,
        source_interaction_ids=ids,
    )
    # The duplicate fact id violates the uniqueness constraint in the second statement of the transaction,
    # after the episode was already created in the first one.
    write = ConsolidationWrite(
        episode=episode_write(embedder, ids, episode_run.id),
        facts=[bad_fact, bad_fact],
        runs=[episode_run],
        consolidated_ids=ids,
        at=T0,
        facts_run_id=episode_run.id,
    )
    with pytest.raises(Exception, match="already exists"):
        await ConsolidationStore(db, DIMENSION).commit(owner, write)
    assert await _graph_size(db, owner) == size
    assert not any(i.consolidated for i in await InteractionStore(db, DIMENSION).get(owner, ids))


async def test_unknown_or_foreign_ids_are_refused(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    ids = await seed(db, owner, embedder, ["sushi"])
    foreign = await seed(db, Owner(owner.tenant, "mallory"), embedder, ["sushi"])
    size = await _graph_size(db, owner)
    store = ConsolidationStore(db, DIMENSION)
    for sources in ([*ids, foreign[0]], [*ids, "int_doesnotexist"]):
        run = run_write("create_episode", ids, [])
        write = ConsolidationWrite(
            episode=episode_write(embedder, sources, run.id),
            facts=[],
            runs=[run],
            consolidated_ids=ids,
            at=T0,
        )
        with pytest.raises(InvalidInput, match="unknown or foreign"):
            await store.commit(owner, write)
    with pytest.raises(InvalidInput, match="not a memory node id"):
        await store.commit(
            owner, ConsolidationWrite(None, [], [run_write("answer", ["bogus"], [])], [], at=T0)
        )
    assert await _graph_size(db, owner) == size
    with pytest.raises(NotFound):
        await FactStore(db, DIMENSION).provenance(owner, "fact_missing")
    assert "epi_missing" not in await BrowseStore(db).episode_versions(owner.tenant, ["epi_missing"])


async def test_lease_is_exclusive_and_guards_the_commit(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    ids = await seed(db, owner, embedder, ["sushi"])
    leases = LeaseStore(db)
    assert await leases.wait_acquire(owner, "proc-a", 30, 0)
    assert not await leases.wait_acquire(owner, "proc-b", 30, 0)
    assert await leases.wait_acquire(owner, "proc-a", 30, 0)  # re-entrant for its holder
    run = run_write("create_episode", ids, [])
    write = ConsolidationWrite(
        episode=episode_write(embedder, ids, run.id),
        facts=[],
        runs=[run],
        consolidated_ids=ids,
        at=T0,
        lease_holder="proc-b",
    )
    with pytest.raises(LeaseLost):
        await ConsolidationStore(db, DIMENSION).commit(owner, write)
    await leases.release(owner, "proc-a")
    assert await leases.wait_acquire(owner, "proc-b", 0.001, 0)
    assert await leases.wait_acquire(owner, "proc-c", 30, 0)  # proc-b's lease expired
