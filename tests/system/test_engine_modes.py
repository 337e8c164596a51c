"""Offline consolidation, background mode, conversation files and the ingest/recall commands."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
from collections.abc import Awaitable, Callable, Collection
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from consolidation.consolidating.consolidator import EpisodeDraft, EpisodeInput, LLMResult
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.llm.types import LLMUnavailable
from consolidation.settings import LLMSettings
from consolidation.types import Unit
from consolidation.wiring import build_consolidator
from consolidation.writing.conversation_files import parse_locomo_time, read_conversations
from graph.database import Database
from graph.errors import InvalidInput, StoreUnavailable
from graph.leases import LeaseStore
from graph.models import Owner
from graph.settings import Neo4jSettings
from graph.vocabulary import DEFAULT_MAX_TEXT_BYTES
from tests.support.conversations import SUSHI_WITH_NOISE as TEXTS
from tests.support.engines import DIMENSION, TEST_TEMPLATE, engine_settings, lease_of
from tests.support.graph_reads import owned_count

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2024, 2, 1, 9, 0, tzinfo=UTC)


def units() -> list[Unit]:
    return [
        Unit(text=t, speaker="Alice", occurred_at=T0 + timedelta(hours=i), source_ref=f"u{i}")
        for i, t in enumerate(TEXTS)
    ]


async def shape(db: Database, owner: Owner) -> dict[str, object]:
    """The graph's structure in caller terms (source_refs), independent of generated ids."""
    rows = await db.driver.execute_query(
        """MATCH (e:Episode {tenant: $t, current: true})-[:DERIVED_FROM]->(i:Interaction)
           WITH e, collect(i.source_ref) AS refs RETURN collect(refs) AS episodes""",
        t=owner.tenant,
        database_=db.name,
    )
    facts = await db.driver.execute_query(
        "MATCH (f:Fact {tenant: $t}) RETURN f.text AS text, f.status AS status ORDER BY text",
        t=owner.tenant,
        database_=db.name,
    )
    episodes = sorted(sorted(refs) for refs in rows.records[0]["episodes"])
    return {"episodes": episodes, "facts": [(r["text"], r["status"]) for r in facts.records]}


def offline_engine(db: Database, **overrides: object) -> MemoryEngine:
    return MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**overrides))


async def test_offline_consolidator_forms_the_whole_graph(db: Database, owner: Owner) -> None:
    engine = offline_engine(db, merge_threshold=0.99)
    for unit in units():
        await engine.remember(owner, unit)
    graph = await shape(db, owner)
    assert graph["episodes"] == [["u0", "u1", "u3"]]
    assert graph["facts"] == [("On 1 February 2024 Alice loves sushi dinner with salmon rolls.", "active")]
    runs = await db.driver.execute_query(
        "MATCH (r:ConsolidationRun {tenant: $t}) RETURN collect(DISTINCT r.provider) AS p, sum(r.prompt_tokens) AS tokens",
        t=owner.tenant,
        database_=db.name,
    )
    assert runs.records[0]["p"] == ["offline"] and runs.records[0]["tokens"] == 0


async def test_background_mode_produces_the_same_graph(db: Database, owner: Owner) -> None:
    inline_owner = owner
    background_owner = Owner(owner.tenant + "-bg", owner.user_id)
    inline = offline_engine(db, merge_threshold=0.5)
    for unit in units():
        await inline.remember(inline_owner, unit)
    background = offline_engine(db, merge_threshold=0.5, consolidation_mode="background", sweep_interval_s=0)
    background.start()
    try:
        for unit in units():
            remembered = await background.remember(background_owner, unit)
            assert remembered.consolidation is None  # acknowledged before consolidation
        await background.drain_queue()
    finally:
        await background.stop()
    assert await shape(db, background_owner) == await shape(db, inline_owner)


async def test_background_mode_gates_a_burst_of_writes_in_one_pass(db: Database, owner: Owner) -> None:
    """Writes that arrive within the delay share one lease, one read of the pending interactions,
    one candidate read each and one release that marks them gated: 3 + n statements, not 6n."""
    texts = [
        "The weather in Oslo is cold today",
        "My bicycle needs a new chain",
        "Quarterly taxes are due next week",
        "The violin lesson moved to Thursday",
        "Our cat learned to open the fridge",
        "I repainted the hallway blue",
    ]
    engine = offline_engine(
        db, consolidation_mode="background", consolidation_delay_s=0.5, sweep_interval_s=0
    )
    # The burst is written before the worker runs, so that it falls within the delay however
    # slowly a loaded machine writes it; the worker then takes the user once.
    for text in texts:
        await engine.remember(owner, Unit(text=text, speaker="Alice"))
    written = db.round_trips
    engine.start()
    try:
        await engine.drain_queue()
    finally:
        await engine.stop()
    assert db.round_trips - written <= 3 + len(texts)
    rows = await db.driver.execute_query(
        "MATCH (n:Interaction {tenant: $t}) RETURN collect(n.gate_checked) AS checked",
        t=owner.tenant,
        database_=db.name,
    )
    assert rows.records[0]["checked"] == [True] * len(texts)


async def test_inline_write_past_its_consolidation_budget_is_still_acknowledged(
    db: Database, owner: Owner
) -> None:
    """A backlog left by a bulk load must not turn a durable write into a timeout: the pass stops
    at its budget, what it decided stands, the write is acknowledged and its unit is pending."""
    engine = offline_engine(db, inline_consolidation_budget_s=0.05)
    backlog = [Unit(text=f"note {i} about topic {i % 7} and more", speaker="Alice") for i in range(300)]
    await engine.remember_batch(owner, backlog, consolidate=False)
    done = await engine.remember(owner, Unit(text="a brand new remark", speaker="Alice"))
    assert done.created and done.consolidation is not None
    assert done.consolidation.action == "deferred" and "budget" in (done.consolidation.error or "")
    rows = await db.driver.execute_query(
        """MATCH (n:Interaction {tenant: $t}) RETURN count(n) AS n,
           count(CASE WHEN NOT n.gate_checked THEN 1 END) AS pending""",
        t=owner.tenant,
        database_=db.name,
    )
    assert rows.records[0]["n"] == 301 and rows.records[0]["pending"] > 0
    # The lease was given back before the write was acknowledged: another holder takes it at once.
    assert await lease_of(db, owner) is None
    assert await LeaseStore(db).wait_acquire(owner, "another-process", 60.0, 0)


@pytest.mark.parametrize("budget", [0.001, 0.005, 0.02, 0.05, 0.2])
async def test_inline_budget_gives_the_lease_back_wherever_it_stops(
    db: Database, owner: Owner, budget: float
) -> None:
    """Whether the budget runs out while the lease is being taken, during a commit or while it is
    being given back, the acknowledged write leaves the lease free and nothing half-written."""
    engine = offline_engine(db, inline_consolidation_budget_s=budget)
    backlog = [Unit(text=f"note {i} about topic {i % 7} and more", speaker="Alice") for i in range(60)]
    await engine.remember_batch(owner, backlog, consolidate=False)
    for i in range(3):
        done = await engine.remember(owner, Unit(text=f"a brand new remark {i}", speaker="Alice"))
        assert done.created and done.consolidation is not None
        assert await lease_of(db, owner) is None
    assert await LeaseStore(db).wait_acquire(owner, "another-process", 60.0, 0)
    await LeaseStore(db).release(owner, "another-process")
    # What the stopped passes left is finished by the next one, each interaction in one episode.
    await offline_engine(db).consolidate(owner)
    rows = await db.driver.execute_query(
        """MATCH (n:Interaction {tenant: $t}) OPTIONAL MATCH (e:Episode {current: true})-[:DERIVED_FROM]->(n)
           WITH n, count(e) AS episodes
           RETURN count(CASE WHEN NOT n.gate_checked THEN 1 END) AS pending, max(episodes) AS most""",
        t=owner.tenant,
        database_=db.name,
    )
    assert rows.records[0]["pending"] == 0 and rows.records[0]["most"] <= 1


# -- the sweeper and retries: pending work is picked up without a new write ---------------------


async def pending_of(db: Database, owner: Owner) -> int:
    rows = await db.driver.execute_query(
        """MATCH (n:Interaction {tenant: $t, user_id: $u}) WHERE n.gate_checked = false
           RETURN count(n) AS pending""",
        t=owner.tenant,
        u=owner.user_id,
        database_=db.name,
    )
    return int(rows.records[0]["pending"])


async def until(check: Callable[[], Awaitable[bool]], deadline_s: float = 120.0) -> None:
    """Poll `check` until it holds; the deadline is generous so that a loaded machine passes."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline_s
    while not await check():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.05)


def only_tenant(engine: MemoryEngine, monkeypatch: pytest.MonkeyPatch, tenant: str) -> None:
    """Other tests leave pending users in the shared database: this engine's sweeper sees only
    the test's tenant (the query itself is tested on its own below)."""
    sweep = engine.leases.unattended

    async def scoped(limit: int, skip: Collection[Owner] = ()) -> list[Owner]:
        return [o for o in await sweep(100_000, skip) if o.tenant == tenant][:limit]

    monkeypatch.setattr(engine.leases, "unattended", scoped)


async def test_the_sweeper_consolidates_pending_work_nobody_writes_to(
    db: Database, owner: Owner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bulk load by an earlier process, and a crashed holder's expired lease: a service started
    afterwards consolidates both users without another write. A live lease is left alone."""
    loader = offline_engine(db, merge_threshold=0.5)
    crashed = Owner(owner.tenant, "bob")
    busy = Owner(owner.tenant, "carol")
    for user in (owner, crashed, busy):
        await loader.remember_batch(user, units(), consolidate=False)
    assert await LeaseStore(db).wait_acquire(crashed, "crashed-process", 0.001, 0)
    assert await LeaseStore(db).wait_acquire(busy, "working-elsewhere", 600.0, 0)
    engine = offline_engine(
        db,
        merge_threshold=0.5,
        consolidation_mode="background",
        sweep_interval_s=0.1,
        consolidation_delay_s=0,
    )
    only_tenant(engine, monkeypatch, owner.tenant)
    engine.start()
    try:

        async def swept() -> bool:
            return await pending_of(db, owner) == 0 and await pending_of(db, crashed) == 0

        await until(swept)
    finally:
        await engine.stop()
    assert await owned_count(db, owner, "Episode") >= 1 and await owned_count(db, crashed, "Episode") >= 1
    assert await lease_of(db, owner) is None and await lease_of(db, crashed) is None
    assert await pending_of(db, busy) == len(TEXTS) and await lease_of(db, busy) == "working-elsewhere"
    await LeaseStore(db).release(busy, "working-elsewhere")


async def test_the_sweep_query_is_bounded_and_skips_live_leases(db: Database, owner: Owner) -> None:
    leases = LeaseStore(db)
    engine = offline_engine(db)
    users = {name: Owner(owner.tenant, name) for name in ("idle", "leased", "expired", "done")}
    for user in users.values():
        await engine.remember(
            user, Unit(text="a remark about nothing much", speaker="Alice"), consolidate=False
        )
    await engine.consolidate(users["done"])
    assert await leases.wait_acquire(users["leased"], "someone", 600.0, 0)
    assert await leases.wait_acquire(users["expired"], "crashed", 0.001, 0)
    await asyncio.sleep(0.01)

    async def mine(skip: list[Owner]) -> set[str]:
        return {o.user_id for o in await leases.unattended(100_000, skip) if o.tenant == owner.tenant}

    assert await mine([]) == {"idle", "expired"}
    assert await mine([users["idle"]]) == {"expired"}
    assert len(await leases.unattended(1)) <= 1
    await leases.release(users["leased"], "someone")


class FailsFirst(OfflineConsolidator):
    """The first episode write fails as an LLM outage would; later ones succeed."""

    def __init__(self) -> None:
        super().__init__()
        self.failures = 0

    async def create_episode(self, inp: EpisodeInput) -> LLMResult[EpisodeDraft]:
        if self.failures == 0:
            self.failures += 1
            raise LLMUnavailable("the endpoint is down", status="unavailable")
        return await super().create_episode(inp)


class UnavailableOnce(Database):
    """The session's driver; the first read of a user's pending interactions meets Neo4j down."""

    def __init__(self, db: Database) -> None:
        super().__init__(db.driver, db.name)
        self.failed = False

    async def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        if name == "queries/interactions/pending" and not self.failed:
            self.failed = True
            raise StoreUnavailable("Neo4j is not reachable: restarting")
        return await super().read(name, **params)


@pytest.mark.parametrize("fault", ["llm", "neo4j"])
async def test_a_failed_background_pass_is_retried_without_a_new_write(
    db: Database, owner: Owner, fault: str
) -> None:
    consolidator = FailsFirst() if fault == "llm" else OfflineConsolidator()
    store = UnavailableOnce(db) if fault == "neo4j" else db
    settings = engine_settings(
        merge_threshold=0.5,
        consolidation_mode="background",
        consolidation_delay_s=0,
        sweep_interval_s=0,
        consolidation_retry_s=0.2,
    )
    engine = MemoryEngine(store, HashingEmbedder(DIMENSION), consolidator, settings)
    engine.start()
    try:
        await engine.remember_batch(owner, units())  # one write, one queued pass, which fails

        async def recovered() -> bool:
            return await pending_of(db, owner) == 0

        await until(recovered)
    finally:
        await engine.stop()
    assert await owned_count(db, owner, "Episode") >= 1 and await lease_of(db, owner) is None
    if fault == "llm":
        runs = await db.driver.execute_query(
            "MATCH (r:ConsolidationRun {tenant: $t}) WHERE r.status <> 'ok' RETURN count(r) AS failed",
            t=owner.tenant,
            database_=db.name,
        )
        assert runs.records[0]["failed"] == 1
    else:
        assert isinstance(store, UnavailableOnce) and store.failed


def test_no_endpoint_means_offline_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        consolidator = build_consolidator(LLMSettings(base_url=None, api_key=None))
    assert consolidator.name == "offline"
    assert "offline extractive consolidator" in caplog.text


async def test_bad_units_are_refused_before_any_write(db: Database, owner: Owner) -> None:
    engine = offline_engine(db)
    with pytest.raises(ValueError):
        Unit(text="x", occurred_at=datetime(2024, 1, 1))
    with pytest.raises(InvalidInput):
        await engine.remember_batch(owner, [Unit(text="fine"), Unit(text="y" * (DEFAULT_MAX_TEXT_BYTES + 1))])
    with pytest.raises(InvalidInput):
        await engine.remember_batch(owner, [])
    rows = await db.driver.execute_query(
        "MATCH (n {tenant: $t}) RETURN count(n) AS n", t=owner.tenant, database_=db.name
    )
    assert rows.records[0]["n"] == 0


LOCOMO = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I love sushi dinner with salmon rolls"},
                {
                    "speaker": "Ben",
                    "dia_id": "D1:2",
                    "text": "Look at this",
                    "blip_caption": "a photo of a dog",
                },
            ],
            "session_2_date_time": "10:05 am on 12 June, 2023",
            "session_2": [
                {"speaker": "Ann", "dia_id": "D2:1", "text": "Sushi dinner with salmon rolls again"}
            ],
        },
        "qa": [],
    }
]


def test_locomo_and_jsonl_files_are_read(tmp_path: Path) -> None:
    assert parse_locomo_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_locomo_time("12:05 am on 1 January, 2024") == datetime(2024, 1, 1, 0, 5, tzinfo=UTC)
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO))
    (conversation,) = read_conversations(path)
    assert [u.source_ref for u in conversation.units] == ["D1:1", "D1:2", "D2:1"]
    assert conversation.units[1].text == "Look at this [shares a photo: a photo of a dog]"
    assert conversation.units[2].occurred_at == datetime(2023, 6, 12, 10, 5, tzinfo=UTC)
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"text": "hi", "occurred_at": "2024-01-01T00:00:00Z"}\n\n{"text": ""}\n')
    with pytest.raises(InvalidInput, match="line 3"):
        read_conversations(jsonl)


def test_ingest_and_recall_commands(tmp_path: Path, neo4j_settings: Neo4jSettings) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO))
    env = {
        **os.environ,
        "RECMEM_NEO4J_URI": neo4j_settings.uri,
        "RECMEM_EMBEDDER_KIND": "hashing",
        "RECMEM_EMBEDDING_TEMPLATE": TEST_TEMPLATE,
    }
    env.pop("RECMEM_LLM_BASE_URL", None)
    password = neo4j_settings.resolved_password()
    if password:
        env["RECMEM_NEO4J_PASSWORD"] = password
    tenant = f"cli-{os.getpid()}-{id(path)}"
    recmem = str(ROOT / ".venv" / "bin" / "recmem")
    ingest = subprocess.run(
        [recmem, "ingest", str(path), "--tenant", tenant],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ingest.returncode == 0, ingest.stderr
    assert "ingested 3 units" in ingest.stdout
    recall = subprocess.run(
        [recmem, "recall", "sushi salmon", "--user", "conv-x", "--tenant", tenant],
        env={**env, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert recall.returncode == 0, recall.stderr
    assert "subconscious" in recall.stdout and "salmon rolls" in recall.stdout
    assert "dog" not in recall.stdout.split("recall:")[0]
    context = subprocess.run(
        [recmem, "recall", "sushi salmon", "--user", "conv-x", "--tenant", tenant, "--tokens", "40"],
        env={**env, "COLUMNS": "40"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert context.returncode == 0, context.stderr
    lines = context.stdout.splitlines()
    assert lines[0] in ("Facts:", "Episodes:", "Conversation:")
    assert any("salmon rolls" in line for line in lines)  # one line per item, however narrow
    used, budget = lines[-1].split(" of ")
    assert 0 < int(used) <= 40 and budget == "40 tokens"
