"""Every analytic in cypher/analytics runs against a graph seeded through the real repositories, and
its rows are checked against the numbers the seed implies. The same scenario is seeded into two
tenants, so a result that leaked across tenants would show doubled counts."""

from __future__ import annotations

import csv
import io
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from neo4j import RoutingControl
from typer.testing import CliRunner

from cli.analytics import (
    AnalyticsError,
    bind,
    catalog,
    convert,
    cypher_app,
    find,
    native,
    parse_assignments,
    run_analytic,
)
from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.backfill import backfill
from graph.consolidations import ConsolidationStore
from graph.database import Database
from graph.interactions import InteractionStore
from graph.leases import LeaseStore
from graph.models import (
    ConsolidationWrite,
    EpisodeWrite,
    FactWrite,
    NewInteraction,
    Owner,
    RunWrite,
    change_run,
    new_id,
)
from graph.settings import Neo4jSettings
from graph.vocabulary import CORRECTION_TRIGGER, PERSON_PROVIDER
from tests.support.engines import DIMENSION
from tests.support.misordered import OLD_SUPERSEDE, consolidate, old_replacement

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
GPT = ("openai", "gpt-4.1-mini")
OFFLINE = ("offline", "extractive")


def day(n: int) -> datetime:
    return T0 + timedelta(days=n)


def utc_date(n: int) -> date:
    return day(n).date()


# --- the seed ------------------------------------------------------------------------------------


@dataclass
class Seed:
    """Ids the checks need; `a` and `b` are alice's and bob's interaction ids in time order."""

    tenant: str
    a: list[str] = field(default_factory=list)
    b: list[str] = field(default_factory=list)
    episodes: dict[str, str] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Cost:
    prompt: int
    completion: int
    latency: float


def _vec(embedder: HashingEmbedder, text: str) -> list[float]:
    return [float(x) for x in embedder.embed_sync([text])[0]]


def _run(op: str, at: int, cost: Cost, provider: tuple[str, str], status: str = "ok") -> RunWrite:
    return RunWrite(
        id=new_id("run"),
        op=op,
        trigger="recurrence",
        provider=provider[0],
        model=provider[1],
        status=status,
        prompt_tokens=cost.prompt,
        completion_tokens=cost.completion,
        latency_ms=cost.latency,
        neighbor_count=3,
        threshold=0.7,
        at=day(at),
        error=None if status == "ok" else "LLMUnavailable",
    )


@dataclass(frozen=True)
class Step:
    """One consolidation: an episode (new, or a version of `previous`) and one fact, at day `at`."""

    key: str
    title: str
    sources: list[str]
    at: int
    fact_key: str
    fact_text: str
    kind: str
    episode_cost: Cost
    refine_cost: Cost
    provider: tuple[str, str] = GPT
    previous: str | None = None
    supersedes: tuple[str, str] | None = None


async def _commit(db: Database, owner: Owner, embedder: HashingEmbedder, seed: Seed, step: Step) -> None:
    episode_op = "merge_episode" if step.previous else "create_episode"
    episode_run = _run(episode_op, step.at, step.episode_cost, step.provider)
    refine_run = _run("refine_facts", step.at, step.refine_cost, step.provider)
    episode = EpisodeWrite(
        id=new_id("epi"),
        title=step.title,
        summary=f"{owner.user_id} talks about {step.title}.",
        embedding=_vec(embedder, step.title),
        first_at=day(0),
        last_at=day(step.at),
        sources=[(i, 0.8) for i in step.sources],
        run_id=episode_run.id,
        valid_from=day(step.at),
        previous_id=seed.episodes[step.previous] if step.previous else None,
    )
    old = step.supersedes
    fact = FactWrite(
        id=new_id("fact"),
        text=step.fact_text,
        kind=step.kind,
        embedding=_vec(embedder, step.fact_text),
        valid_from=day(step.at),
        source_interaction_ids=step.sources[-1:],
        supersedes=[(seed.facts[old[0]], old[1])] if old else [],
    )
    write = ConsolidationWrite(
        episode=episode,
        facts=[fact],
        runs=[
            RunWrite(**{**episode_run.__dict__, "read_ids": step.sources, "produced_ids": [episode.id]}),
            RunWrite(**{**refine_run.__dict__, "read_ids": [episode.id], "produced_ids": [fact.id]}),
        ],
        consolidated_ids=step.sources,
        at=day(step.at),
        facts_run_id=refine_run.id,
    )
    await ConsolidationStore(db, DIMENSION).commit(owner, write)
    seed.episodes[step.key] = episode.id
    seed.facts[step.fact_key] = fact.id


async def _interactions(
    db: Database, owner: Owner, embedder: HashingEmbedder, count: int, session: Callable[[int], str]
) -> list[str]:
    items = [
        NewInteraction(
            owner.user_id,
            f"{owner.user_id} turn {n}",
            day(n),
            _vec(embedder, f"{owner.user_id} turn {n}"),
            session_id=session(n),
            source_ref=f"{owner.user_id}-{n}",
        )
        for n in range(count)
    ]
    return [s.id for s in await InteractionStore(db, DIMENSION).write_batch(owner, items)]


async def seed_tenant(db: Database, embedder: HashingEmbedder, tenant: str) -> Seed:
    """alice: 10 turns (days 0-9, sessions s1/s2); a sushi topic merged twice whose preference fact
    is superseded twice; a hiking topic; one timed-out merge; a4 gate-rejected, a9 never gated.
    bob: 4 turns (days 0-3); a chess topic consolidated offline; one answer run on day 4."""
    seed = Seed(tenant)
    alice, bob = Owner(tenant, "alice"), Owner(tenant, "bob")
    seed.a = await _interactions(db, alice, embedder, 10, lambda n: "s1" if n < 5 else "s2")
    seed.b = await _interactions(db, bob, embedder, 4, lambda n: "chess")
    a, b = seed.a, seed.b
    steps = [
        Step("sushi1", "Sushi", a[0:3], 3, "loves", "Alice loves sushi.", "preference",
             Cost(100, 40, 200), Cost(80, 20, 100)),
        Step("sushi2", "Sushi", a[3:4], 5, "dislikes", "Alice dislikes sushi.", "preference",
             Cost(120, 50, 300), Cost(90, 30, 150), previous="sushi1", supersedes=("loves", "taste changed")),
        Step("hiking", "Hiking", a[5:8], 8, "plan", "Alice plans to hike Mont Blanc.", "plan",
             Cost(110, 45, 250), Cost(70, 25, 120)),
        Step("sushi3", "Sushi", a[8:9], 9, "fridays", "Alice eats sushi only on Fridays.", "preference",
             Cost(130, 55, 340), Cost(60, 15, 130), previous="sushi2",
             supersedes=("dislikes", "refined habit")),
    ]  # fmt: skip
    for step in steps:
        await _commit(db, alice, embedder, seed, step)
    consolidations = ConsolidationStore(db, DIMENSION)
    await consolidations.record_runs(alice, [_run("merge_episode", 9, Cost(0, 0, 5000), GPT, "timeout")])
    # The gate found no recurrence for a[4]: a pass records that as it releases the lease.
    await LeaseStore(db).release(alice, "seed", [a[4]])
    chess = Step("chess", "Chess", b[0:3], 3, "chess", "Bob plays chess every weekend.", "attribute",
                 Cost(0, 0, 2), Cost(0, 0, 1), provider=OFFLINE)  # fmt: skip
    await _commit(db, bob, embedder, seed, chess)
    await consolidations.record_runs(bob, [_run("answer", 4, Cost(300, 60, 400), GPT)])
    return seed


@pytest.fixture(scope="module")
async def seed(db: Database, embedder: HashingEmbedder) -> Seed:
    """The checked tenant, plus an identical twin tenant that must never show up in its results."""
    await seed_tenant(db, embedder, f"t-{uuid.uuid4().hex[:12]}")
    return await seed_tenant(db, embedder, f"t-{uuid.uuid4().hex[:12]}")


async def rows(db: Database, seed: Seed, name: str, **params: Any) -> list[dict[str, Any]]:
    return [native(row) for row in await run_analytic(db, name, {"tenant": seed.tenant, **params})]


# --- headers and safety --------------------------------------------------------------------------

EXPECTED = {
    "consolidation_cost",
    "consolidation_latency",
    "episode_churn",
    "fact_lineage_depth",
    "facts_by_kind_status",
    "facts_valid_at_no_instant",
    "failed_runs",
    "memory_growth",
    "preference_shifts",
    "recurrence_rate",
    "recurring_topics",
    "unconsolidated_interactions",
}


def test_every_analytic_has_a_header_matching_its_parameters() -> None:
    analytics = catalog()
    assert {a.name for a in analytics} == EXPECTED
    for analytic in analytics:
        assert analytic.title and analytic.question.endswith("?"), analytic.name
        assert analytic.params[0].name == "tenant" and analytic.params[0].required, analytic.name
        user = analytic.param("user_id")
        assert user is not None and not user.required and user.default == "null", analytic.name
        body = "\n".join(line for line in analytic.text.splitlines() if not line.lstrip().startswith("//"))
        assert set(re.findall(r"\$(\w+)", body)) == {p.name for p in analytic.params}, analytic.name
        for param in analytic.params:
            if param.default not in (None, "null"):
                # The documented default is the one the query applies.
                assert f"coalesce(${param.name}, {param.default})" in body, (analytic.name, param.name)


async def test_every_analytic_is_read_only(db: Database, seed: Seed) -> None:
    for analytic in catalog():
        params = bind(analytic, {"tenant": seed.tenant})
        result = await db.driver.execute_query(
            analytic.text, params, database_=db.name, routing_=RoutingControl.READ
        )
        assert result.summary.query_type == "r", analytic.name


async def test_an_unknown_tenant_sees_nothing(db: Database, seed: Seed) -> None:
    for analytic in catalog():
        assert await run_analytic(db, analytic.name, {"tenant": f"nobody-{seed.tenant}"}) == [], analytic.name


# --- each analytic against the seed --------------------------------------------------------------


async def test_recurring_topics(db: Database, seed: Seed) -> None:
    got = await rows(db, seed, "recurring_topics")
    assert got == [
        {"user_id": "alice", "episode_id": seed.episodes["sushi3"], "title": "Sushi", "version": 3,
         "sources": 5, "sessions": 2, "first_at": day(0), "last_at": day(8), "span_days": 8},
        {"user_id": "alice", "episode_id": seed.episodes["hiking"], "title": "Hiking", "version": 1,
         "sources": 3, "sessions": 1, "first_at": day(5), "last_at": day(7), "span_days": 2},
        {"user_id": "bob", "episode_id": seed.episodes["chess"], "title": "Chess", "version": 1,
         "sources": 3, "sessions": 1, "first_at": day(0), "last_at": day(2), "span_days": 2},
    ]  # fmt: skip
    assert [r["title"] for r in await rows(db, seed, "recurring_topics", min_sources=4)] == ["Sushi"]
    assert [r["title"] for r in await rows(db, seed, "recurring_topics", limit=2)] == ["Sushi", "Hiking"]
    assert [r["title"] for r in await rows(db, seed, "recurring_topics", user_id="bob")] == ["Chess"]


async def test_preference_shifts(db: Database, seed: Seed) -> None:
    f = seed.facts
    got = await rows(db, seed, "preference_shifts")
    common = {"user_id": "alice", "chain": f["loves"], "kind": "preference"}
    assert got == [
        {**common, "step": 0, "fact_id": f["loves"], "text": "Alice loves sushi.", "status": "superseded",
         "valid_from": day(3), "valid_to": day(5), "reason": None, "shifted_at": None},
        {**common, "step": 1, "fact_id": f["dislikes"], "text": "Alice dislikes sushi.",
         "status": "superseded", "valid_from": day(5), "valid_to": day(9), "reason": "taste changed",
         "shifted_at": day(5)},
        {**common, "step": 2, "fact_id": f["fridays"], "text": "Alice eats sushi only on Fridays.",
         "status": "active", "valid_from": day(9), "valid_to": None, "reason": "refined habit",
         "shifted_at": day(9)},
    ]  # fmt: skip
    assert await rows(db, seed, "preference_shifts", kind="plan") == []
    assert await rows(db, seed, "preference_shifts", user_id="bob") == []


def _cost(
    d: int, op: str, provider: tuple[str, str], calls: int, failed: int, p: int, c: int
) -> dict[str, Any]:
    return {"day": utc_date(d), "op": op, "provider": provider[0], "model": provider[1], "calls": calls,
            "failed": failed, "prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}  # fmt: skip


async def test_consolidation_cost(db: Database, seed: Seed) -> None:
    expected = [
        _cost(3, "create_episode", OFFLINE, 1, 0, 0, 0),
        _cost(3, "create_episode", GPT, 1, 0, 100, 40),
        _cost(3, "refine_facts", OFFLINE, 1, 0, 0, 0),
        _cost(3, "refine_facts", GPT, 1, 0, 80, 20),
        _cost(4, "answer", GPT, 1, 0, 300, 60),
        _cost(5, "merge_episode", GPT, 1, 0, 120, 50),
        _cost(5, "refine_facts", GPT, 1, 0, 90, 30),
        _cost(8, "create_episode", GPT, 1, 0, 110, 45),
        _cost(8, "refine_facts", GPT, 1, 0, 70, 25),
        _cost(9, "merge_episode", GPT, 2, 1, 130, 55),
        _cost(9, "refine_facts", GPT, 1, 0, 60, 15),
    ]
    assert await rows(db, seed, "consolidation_cost") == expected
    window = await rows(db, seed, "consolidation_cost", since=day(5), until=day(9))
    assert window == expected[5:9]
    assert await rows(db, seed, "consolidation_cost", op="answer", user_id="bob") == [expected[4]]
    assert await rows(db, seed, "consolidation_cost", op="answer", user_id="alice") == []


async def test_unconsolidated_interactions(db: Database, seed: Seed) -> None:
    def sample(ids: list[str], n: int, user: str) -> dict[str, Any]:
        return {"id": ids[n], "source_ref": f"{user}-{n}", "occurred_at": day(n), "text": f"{user} turn {n}"}

    got = await rows(db, seed, "unconsolidated_interactions")
    assert got == [
        {"user_id": "alice", "unconsolidated": 2, "gate_rejected": 1, "awaiting_gate": 1,
         "oldest_at": day(4), "oldest": [sample(seed.a, 4, "alice"), sample(seed.a, 9, "alice")]},
        {"user_id": "bob", "unconsolidated": 1, "gate_rejected": 0, "awaiting_gate": 1,
         "oldest_at": day(3), "oldest": [sample(seed.b, 3, "bob")]},
    ]  # fmt: skip
    one = await rows(db, seed, "unconsolidated_interactions", user_id="alice", sample=1)
    assert [r["oldest"] for r in one] == [[sample(seed.a, 4, "alice")]]


async def test_fact_lineage_depth(db: Database, seed: Seed) -> None:
    f = seed.facts
    got = await rows(db, seed, "fact_lineage_depth")
    assert got == [
        {"user_id": "alice", "fact_id": f["fridays"], "kind": "preference", "status": "active",
         "text": "Alice eats sushi only on Fridays.", "depth": 2, "replaced": 2, "lineage_from": day(3),
         "valid_from": day(9)},
    ]  # fmt: skip
    every = await rows(db, seed, "fact_lineage_depth", min_depth=0)
    assert [(r["fact_id"], r["depth"]) for r in every[:1]] == [(f["fridays"], 2)]
    assert {(r["fact_id"], r["depth"], r["lineage_from"]) for r in every[1:]} == {
        (f["plan"], 0, day(8)),
        (f["chess"], 0, day(3)),
    }
    superseded = await rows(db, seed, "fact_lineage_depth", include_superseded=True)
    assert [(r["fact_id"], r["depth"], r["replaced"]) for r in superseded] == [
        (f["fridays"], 2, 2),
        (f["dislikes"], 1, 1),
    ]


def _latency(
    op: str, provider: tuple[str, str], values: list[float], p50: float, p90: float, p99: float
) -> Any:
    return {"op": op, "provider": provider[0], "model": provider[1], "calls": len(values),
            "p50_ms": pytest.approx(p50), "p90_ms": pytest.approx(p90), "p99_ms": pytest.approx(p99),
            "mean_ms": pytest.approx(sum(values) / len(values)), "max_ms": max(values)}  # fmt: skip


async def test_consolidation_latency(db: Database, seed: Seed) -> None:
    # percentileCont interpolates linearly: p90 of [200, 250] is 200 + 0.9 * 50.
    got = await rows(db, seed, "consolidation_latency")
    assert got == [
        _latency("answer", GPT, [400], 400, 400, 400),
        _latency("create_episode", OFFLINE, [2], 2, 2, 2),
        _latency("create_episode", GPT, [200, 250], 225, 245, 249.5),
        _latency("merge_episode", GPT, [300, 340], 320, 336, 339.6),
        _latency("refine_facts", OFFLINE, [1], 1, 1, 1),
        _latency("refine_facts", GPT, [100, 150, 120, 130], 125, 144, 149.4),
    ]
    with_failed = await rows(db, seed, "consolidation_latency", include_failed=True, user_id="alice")
    merges = [r for r in with_failed if r["op"] == "merge_episode"]
    assert merges == [_latency("merge_episode", GPT, [300, 340, 5000], 340, 4068, 4906.8)]
    assert await rows(db, seed, "consolidation_latency", since=day(10)) == []


async def test_recurrence_rate(db: Database, seed: Seed) -> None:
    # alice's construction tokens: 140 + 100 + 170 + 120 + 155 + 95 + 185 + 75 + 0 (the timeout).
    assert await rows(db, seed, "recurrence_rate") == [
        {"user_id": "alice", "interactions": 10, "consolidated": 8, "consolidated_share": 0.8,
         "construction_calls": 9, "construction_tokens": 1040, "tokens_per_consolidated": 130.0},
        {"user_id": "bob", "interactions": 4, "consolidated": 3, "consolidated_share": 0.75,
         "construction_calls": 2, "construction_tokens": 0, "tokens_per_consolidated": 0.0},
    ]  # fmt: skip


async def test_episode_churn(db: Database, seed: Seed) -> None:
    e = seed.episodes
    assert await rows(db, seed, "episode_churn") == [
        {"user_id": "alice", "episode_id": e["sushi3"], "title": "Sushi", "versions": 3, "merges": 2,
         "first_version_at": day(3), "current_since": day(9)},
        {"user_id": "alice", "episode_id": e["hiking"], "title": "Hiking", "versions": 1, "merges": 0,
         "first_version_at": day(8), "current_since": day(8)},
        {"user_id": "bob", "episode_id": e["chess"], "title": "Chess", "versions": 1, "merges": 0,
         "first_version_at": day(3), "current_since": day(3)},
    ]  # fmt: skip
    assert [r["title"] for r in await rows(db, seed, "episode_churn", min_versions=2)] == ["Sushi"]


async def test_facts_by_kind_status(db: Database, seed: Seed) -> None:
    assert await rows(db, seed, "facts_by_kind_status") == [
        {"kind": "attribute", "status": "active", "facts": 1, "users": 1},
        {"kind": "plan", "status": "active", "facts": 1, "users": 1},
        {"kind": "preference", "status": "active", "facts": 1, "users": 1},
        {"kind": "preference", "status": "superseded", "facts": 2, "users": 1},
    ]
    assert await rows(db, seed, "facts_by_kind_status", user_id="bob") == [
        {"kind": "attribute", "status": "active", "facts": 1, "users": 1},
    ]


async def test_failed_runs(db: Database, seed: Seed) -> None:
    got = await rows(db, seed, "failed_runs")
    assert [{k: v for k, v in r.items() if k != "run_id"} for r in got] == [
        {"at": day(9), "user_id": "alice", "op": "merge_episode", "status": "timeout",
         "error": "LLMUnavailable", "provider": "openai", "model": "gpt-4.1-mini", "trigger": "recurrence",
         "latency_ms": 5000.0, "prompt_tokens": 0, "completion_tokens": 0},
    ]  # fmt: skip
    assert got[0]["run_id"].startswith("run_")
    assert await rows(db, seed, "failed_runs", user_id="bob") == []
    assert await rows(db, seed, "failed_runs", until=day(9)) == []


async def _misordered(db: Database, embedder: HashingEmbedder, owner: Owner) -> dict[str, str]:
    """Facts as versions before the in-order rule left them (tests/support/misordered.py): a single
    replacement out of time order (migration reverses it), a chain (Rome, day 5, closed Oslo, day 80;
    then Paris replaced Rome) and a person's correction on day 20 of a move dated day 70 (both left)."""
    f: dict[str, str] = {}
    f["dislikes"], _ = await consolidate(db, owner, embedder, "Alice dislikes sushi.", 60)
    f["loves"] = await old_replacement(db, owner, embedder, f["dislikes"], "Alice loves sushi.", 1, "shift")
    f["oslo"], _ = await consolidate(db, owner, embedder, "Alice lives in Oslo.", 80)
    f["rome"] = await old_replacement(db, owner, embedder, f["oslo"], "Alice lives in Rome.", 5, "moved")
    f["paris"], _ = await consolidate(
        db, owner, embedder, "Alice lives in Paris.", 90, [(f["rome"], "again")]
    )
    f["lisbon"], _ = await consolidate(db, owner, embedder, "Alice moves to Lisbon.", 70)
    f["stays"], _ = await consolidate(db, owner, embedder, "Alice stays in Oslo.", 20)
    person = change_run("correct_fact", CORRECTION_TRIGGER, PERSON_PROVIDER, "desk", "she stays", day(20),
                        [f["lisbon"]], [f["stays"]])  # fmt: skip
    f["person_run"] = person.id
    await ConsolidationStore(db, DIMENSION).record_runs(owner, [person])
    await db.driver.execute_query(
        OLD_SUPERSEDE, owner.params(), new=f["stays"], old=f["lisbon"], reason="she stays", run_id=person.id,
        database_=db.name,
    )  # fmt: skip
    return f


async def test_facts_valid_at_no_instant(db: Database, embedder: HashingEmbedder) -> None:
    seed = Seed(f"t-{uuid.uuid4().hex[:12]}")
    f = await _misordered(db, embedder, Owner(seed.tenant, "alice"))
    await _misordered(db, embedder, Owner(f"t-{uuid.uuid4().hex[:12]}", "alice"))  # a twin: never listed

    def listed(fact: str, since: int, until: int, by: str, reason: str, person: bool) -> Any:
        closed = {"fact_id": f[by], "at": day(until), "reason": reason, "by_person": person}
        return {"user_id": "alice", "fact_id": f[fact], "status": "superseded", "valid_from": day(since),
                "valid_to": day(until), "closed_by": [closed]}  # fmt: skip

    def strip(got: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Rows without the texts and run ids, which are checked once below."""
        return [
            {**{k: v for k, v in r.items() if k != "text"},
             "closed_by": [{k: v for k, v in c.items() if k not in ("text", "run_id")} for c in r["closed_by"]]}
            for r in got
        ]  # fmt: skip

    sushi = listed("dislikes", 60, 1, "loves", "shift", False)
    lisbon = listed("lisbon", 70, 20, "stays", "she stays", True)
    oslo = listed("oslo", 80, 5, "rome", "moved", False)
    assert strip(await rows(db, seed, "facts_valid_at_no_instant")) == [sushi, lisbon, oslo]
    await backfill(
        db, recheck=True
    )  # reverses the single replacement, leaves the chain and the person's change
    got = await rows(db, seed, "facts_valid_at_no_instant")
    assert strip(got) == [lisbon, oslo]
    assert [r["text"] for r in got] == ["Alice moves to Lisbon.", "Alice lives in Oslo."]
    assert [c["text"] for r in got for c in r["closed_by"]] == [
        "Alice stays in Oslo.",
        "Alice lives in Rome.",
    ]
    assert got[0]["closed_by"][0]["run_id"] == f["person_run"]
    assert got[1]["closed_by"][0]["run_id"].startswith("run_")
    assert strip(await rows(db, seed, "facts_valid_at_no_instant", limit=1)) == [lisbon]
    assert await rows(db, seed, "facts_valid_at_no_instant", user_id="alice") == got
    assert await rows(db, seed, "facts_valid_at_no_instant", user_id="bob") == []


async def test_memory_growth_in_valid_time(db: Database, seed: Seed) -> None:
    # Interactions: two a day on days 0-3 (alice and bob), one a day after. Episode versions and facts:
    # two on day 3 (sushi, chess), then one on days 5, 8 and 9.
    expected = []
    totals = {"episode": 0, "fact": 0, "interaction": 0}
    for n in range(10):
        added = {"episode": int(n in (5, 8, 9)) + 2 * (n == 3), "interaction": 2 if n < 4 else 1}
        added["fact"] = added["episode"]
        for layer in sorted(added):
            if added[layer]:
                totals[layer] += added[layer]
                expected.append(
                    {"day": utc_date(n), "layer": layer, "added": added[layer], "total": totals[layer]}
                )
    assert await rows(db, seed, "memory_growth") == expected
    bob = await rows(db, seed, "memory_growth", user_id="bob")
    assert [(r["layer"], r["total"]) for r in bob if r["day"] == utc_date(3)] == [
        ("episode", 1),
        ("fact", 1),
        ("interaction", 4),
    ]


async def test_memory_growth_in_recorded_time(db: Database, seed: Seed) -> None:
    got = await rows(db, seed, "memory_growth", recorded_time=True)
    # Everything was stored by this test run, so the days are today's (or yesterday's across midnight).
    today = datetime.now(UTC).date()
    assert {r["day"] for r in got} <= {today, today - timedelta(days=1)}
    added: dict[str, int] = {}
    for r in got:
        added[r["layer"]] = added.get(r["layer"], 0) + r["added"]
    assert added == {"interaction": 14, "episode": 5, "fact": 5}


# --- parameter typing ----------------------------------------------------------------------------


def test_parameters_are_typed_by_the_header() -> None:
    cost, lineage = find("consolidation_cost"), find("fact_lineage_depth")
    given = ["tenant=42", "user_id=007", "min_depth=2", "include_superseded=Yes"]
    assert parse_assignments(lineage, given) == {
        "tenant": "42",
        "user_id": "007",
        "min_depth": 2,
        "include_superseded": True,
    }
    assert parse_assignments(cost, ["since=2024-05-01", "until=2024-05-02T11:00:00+02:00", "op=null"]) == {
        "since": datetime(2024, 5, 1, tzinfo=UTC),
        "until": datetime(2024, 5, 2, 9, tzinfo=UTC),
        "op": None,
    }
    assert convert(find("recurring_topics").params[2], "3") == 3
    for bad in (["limit=abc"], ["nonsense=1"], ["tenant"]):
        with pytest.raises(AnalyticsError):
            parse_assignments(find("recurring_topics"), bad)
    with pytest.raises(AnalyticsError, match="needs tenant"):
        bind(cost, {})
    with pytest.raises(AnalyticsError, match="unknown analytic"):
        find("drop_everything")


# --- the command line ----------------------------------------------------------------------------


@pytest.fixture
def cli_env(neo4j_settings: Neo4jSettings) -> dict[str, str]:
    """Points the CLI's own settings at the test server."""
    env = {"RECMEM_NEO4J_URI": neo4j_settings.uri, "RECMEM_NEO4J_HOME": str(neo4j_settings.home)}
    if neo4j_settings.password is not None:
        env["RECMEM_NEO4J_PASSWORD"] = neo4j_settings.password.get_secret_value()
    return env


def test_cli_lists_every_analytic() -> None:
    result = CliRunner().invoke(cypher_app, ["list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for name in EXPECTED:
        assert name in result.output


def test_cli_shows_an_analytic() -> None:
    result = CliRunner().invoke(cypher_app, ["show", "recurring_topics"])
    assert result.exit_code == 0 and "$min_sources (integer, default 1)" in result.output


def test_cli_runs_as_json_csv_and_table(seed: Seed, cli_env: dict[str, str]) -> None:
    runner = CliRunner()
    base = ["run", "recurring_topics", "--param", f"tenant={seed.tenant}", "-p", "min_sources=3"]
    result = runner.invoke(cypher_app, [*base, "--format", "json"], env=cli_env)
    assert result.exit_code == 0, result.output
    parsed = json.loads(result.stdout)
    assert [(r["title"], r["sources"], r["first_at"]) for r in parsed] == [
        ("Sushi", 5, day(0).isoformat()),
        ("Hiking", 3, day(5).isoformat()),
        ("Chess", 3, day(0).isoformat()),
    ]
    result = runner.invoke(cypher_app, [*base, "-p", "user_id=bob", "--format", "csv"], env=cli_env)
    assert result.exit_code == 0, result.output
    table = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [(r["title"], r["sources"], r["span_days"]) for r in table] == [("Chess", "3", "2")]
    result = runner.invoke(cypher_app, base, env={**cli_env, "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Sushi" in result.stdout and "3 row(s)" in result.stdout


def test_cli_datetime_and_boolean_params(seed: Seed, cli_env: dict[str, str]) -> None:
    args = ["run", "consolidation_cost", "-p", f"tenant={seed.tenant}", "-p", "since=2024-05-06",
            "-p", "until=2024-05-10T09:00:00Z", "-f", "json"]  # fmt: skip
    result = CliRunner().invoke(cypher_app, args, env=cli_env)
    assert result.exit_code == 0, result.output
    assert [(r["day"], r["op"]) for r in json.loads(result.stdout)] == [
        ("2024-05-06", "merge_episode"),
        ("2024-05-06", "refine_facts"),
        ("2024-05-09", "create_episode"),
        ("2024-05-09", "refine_facts"),
    ]
    args = [
        "run",
        "fact_lineage_depth",
        "-p",
        f"tenant={seed.tenant}",
        "-p",
        "include_superseded=true",
        "-f",
        "json",
    ]
    result = CliRunner().invoke(cypher_app, args, env=cli_env)
    assert result.exit_code == 0, result.output
    assert [r["depth"] for r in json.loads(result.stdout)] == [2, 1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "recurring_topics", "-p", "tenant=null"], "needs tenant"),
        (["run", "recurring_topics", "-p", "tenant=x", "-p", "limit=many"], "expects integer"),
        (["run", "recurring_topics", "-p", "tenant=x", "-p", "colour=red"], "has no parameter 'colour'"),
        (["run", "no_such_analytic", "-p", "tenant=x"], "unknown analytic"),
        (["run", "recurring_topics", "-p", "tenant=x", "-f", "xml"], "xml"),
    ],
)
def test_cli_refuses_bad_input_clearly(args: list[str], message: str) -> None:
    # No env: every refusal happens before any connection is attempted.
    result = CliRunner().invoke(cypher_app, args)
    assert result.exit_code != 0
    assert message in result.output
