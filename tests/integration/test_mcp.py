"""The MCP server at /mcp, driven by the official SDK's client over Streamable HTTP against a real
uvicorn and the session's Neo4j: the tools end to end, typed errors, keys and tenant isolation."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta, timezone
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver.exceptions import UnexpectedToolError
from mcp.types import CallToolResult, TextContent

from api.app import create_app
from api.mcp.errors import tool_error
from consolidation.forgetting.keys import AccessKeys
from consolidation.wiring import AppSettings
from graph.database import Database
from graph.errors import StoreUnavailable
from tests.support.api import STORY, T0, count_nodes, make_api_settings, make_engine, serve_app

TIMEOUT_S = 60.0
TOOLS = {
    "remember": {"user_id", "text"},
    "recall": {"user_id", "query"},
    "answer": {"user_id", "question"},
    "audit_fact": {"fact_id"},
    "forget_interaction": {"interaction_id"},
    "user_stats": {"user_id"},
    "correct_fact": {"fact_id", "text", "reason"},
    "retract_fact": {"fact_id", "reason"},
    "add_fact": {"user_id", "text", "kind"},
    "export_user": {"user_id"},
}


@pytest.fixture(scope="module")
async def live(db: Database) -> AsyncIterator[str]:
    """The app served by a real uvicorn in the test's event loop; yields the MCP endpoint's URL."""
    app = create_app(AppSettings(), make_api_settings(), engine=make_engine(db))
    async with serve_app(app) as url:
        yield f"{url}/mcp"


async def new_key(db: Database, tenant: str | None = None) -> str:
    issued = await AccessKeys(db).create(tenant or f"t-{uuid.uuid4().hex[:12]}", "mcp-test")
    return issued.secret


@asynccontextmanager
async def connect(url: str, key: str | None) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session sending `key` as a Bearer credential."""
    headers = {"authorization": f"Bearer {key}"} if key is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=TIMEOUT_S) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write, read_timeout_seconds=TIMEOUT_S) as session,
    ):
        await session.initialize()
        yield session


@pytest.fixture
def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
async def key(db: Database, tenant: str) -> str:
    return await new_key(db, tenant)


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The structured result of a successful tool call; fails the test on an error result."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, _text(result)
    assert isinstance(result.structured_content, dict)
    # The text block carries the same JSON, for clients that read only text.
    assert json.loads(_text(result)) == result.structured_content
    return result.structured_content


async def error(session: ClientSession, tool: str, **arguments: Any) -> str:
    """The one-line message of a tool call that must fail."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    text = _text(result)
    assert "\n" not in text
    return text


def _leaf(error: BaseException) -> BaseException:
    """The one exception anyio's task groups wrapped."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _text(result: CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


def at(day: int) -> str:
    return (T0 + timedelta(days=day)).isoformat()


async def tell_story(session: ClientSession, user: str = "alice") -> list[dict[str, Any]]:
    """STORY, one remember per turn (the test engine consolidates inline)."""
    return [
        await call(session, "remember", user_id=user, text=text, speaker="alice", occurred_at=at(day))
        for day, text in enumerate(STORY)
    ]


# -- the tools ------------------------------------------------------------------------------------


async def test_tools_are_listed_with_their_arguments_and_descriptions(live: str, key: str) -> None:
    async with connect(live, key) as mcp:
        tools = {t.name: t for t in (await mcp.list_tools()).tools}
        assert set(tools) == set(TOOLS)
        for name, tool in tools.items():
            assert set(tool.input_schema["required"]) == TOOLS[name], name
            assert tool.description and "Use it" in tool.description, name
            assert tool.output_schema is not None and tool.output_schema["properties"], name
            for argument in tool.input_schema["properties"].values():
                assert argument.get("description"), name
        recall = tools["recall"].input_schema["properties"]
        assert recall["tokens"]["default"] == 1000 and recall["layers"]["default"] is False
        assert recall["tokens"]["minimum"] == 1
        assert set(tools["remember"].input_schema["properties"]) == {
            "user_id", "text", "speaker", "occurred_at", "session_id", "source_ref", "agent_id", "metadata"
        }  # fmt: skip
        assert all(
            "filter" in tools[t].input_schema["properties"] for t in ("recall", "answer", "user_stats")
        )
        assert tools["recall"].annotations is not None and tools["recall"].annotations.read_only_hint
        assert tools["forget_interaction"].annotations is not None
        assert tools["forget_interaction"].annotations.destructive_hint


async def test_remember_then_recall_finds_it(live: str, key: str) -> None:
    async with connect(live, key) as mcp:
        first = await call(
            mcp, "remember", user_id="bob", text="My sister Ana lives in Lisbon.", occurred_at=at(0),
            session_id="s1", source_ref="turn-1",
        )  # fmt: skip
        assert first["created"] is True and first["interaction_id"].startswith("int_") and first["seq"] == 1
        again = await call(
            mcp, "remember", user_id="bob", text="My sister Ana lives in Lisbon.", source_ref="turn-1"
        )
        assert again["interaction_id"] == first["interaction_id"] and again["created"] is False
        await call(mcp, "remember", user_id="bob", text="I play the cello on Sundays.", occurred_at=at(1))

        found = await call(mcp, "recall", user_id="bob", query="Where does Ana live?", tokens=200)
        assert "Lisbon" in found["context"]
        assert 0 < found["tokens"] <= found["budget"] == 200
        by_id = {i["id"]: i for i in found["items"]}
        assert by_id[first["interaction_id"]]["layer"] == "subconscious"
        assert by_id[first["interaction_id"]]["source_ids"] == [first["interaction_id"]]
        assert found["layers"] is None
        # The plan carries what GraphQL's RecallPlan does (the rules make no LLM call).
        assert found["plan"]["llm_calls"] == 0 and found["plan"]["prompt_tokens"] == 0

        layered = await call(mcp, "recall", user_id="bob", query="Where does Ana live?", layers=True)
        assert layered["budget"] == 1000
        hits = layered["layers"]["subconscious"]
        assert first["interaction_id"] in [h["id"] for h in hits]
        assert any("Lisbon" in h["text"] for h in hits)
        assert layered["layers"]["semantic"] == [] and layered["layers"]["episodic"] == []


async def test_story_facts_answer_audit_stats_and_forget(live: str, key: str) -> None:
    async with connect(live, key) as mcp:
        payloads = await tell_story(mcp)
        ids = [p["interaction_id"] for p in payloads]
        created, merged = payloads[2]["consolidation"], payloads[3]["consolidation"]
        assert created["action"] == "created" and created["fact_ids"]
        assert merged["action"] == "merged" and merged["fact_ids"]

        stats = await call(mcp, "user_stats", user_id="alice")
        assert stats["interactions"] == 5 and stats["consolidated"] == 4 and stats["unconsolidated"] == 1
        assert stats["pending"] == 0  # every turn has been through the gate
        assert stats["episodes"] == 1 and stats["episode_versions"] == 2
        assert stats["active_facts"] >= 1 and stats["superseded_facts"] >= 1
        assert stats["runs"] >= 4 and stats["prompt_tokens"] == 0  # the offline consolidator is free

        # The audit of the fact that reversed the preference: the GraphQL audit's chain.
        audit = await call(mcp, "audit_fact", fact_id=merged["fact_ids"][0])
        assert audit["fact"]["id"] == merged["fact_ids"][0] and audit["fact"]["status"] == "active"
        assert [e["id"] for e in audit["episodes"]] == [merged["episode_id"]]
        sources = audit["episodes"][0]["sources"]
        assert {s["interaction"]["id"] for s in sources} == set(ids[:4])
        assert all(s["similarity"] is not None for s in sources)
        assert [i["id"] for i in audit["interactions"]] == [ids[3]]
        assert {c["fact"]["id"] for c in audit["supersedes"]} == set(created["fact_ids"])
        assert all(c["reason"] for c in audit["supersedes"]) and audit["superseded_by"] == []
        assert sorted(r["op"] for r in audit["runs"]) == ["merge_episode", "refine_facts"]
        older = await call(mcp, "audit_fact", fact_id=created["fact_ids"][0])
        assert older["fact"]["status"] == "superseded"
        assert [c["fact"]["id"] for c in older["superseded_by"]] == [merged["fact_ids"][0]]

        # Recall reaches the semantic layer, and says which facts its lines show.
        found = await call(mcp, "recall", user_id="alice", query="sushi with salmon", tokens=400, layers=True)
        assert "semantic" in {i["layer"] for i in found["items"]}
        assert set(merged["fact_ids"]) & {h["id"] for h in found["layers"]["semantic"]}
        assert merged["episode_id"] in {h["id"] for h in found["layers"]["episodic"]}

        answered = await call(mcp, "answer", user_id="alice", question="What is the dog called?")
        assert answered["answer"] and answered["run_id"].startswith("run_")
        evidence = {e["id"]: e for e in answered["evidence"]}
        assert evidence, answered
        assert all(
            e["layer"] in ("subconscious", "episodic", "semantic") and e["text"] for e in evidence.values()
        )
        budgeted = await call(mcp, "answer", user_id="alice", question="What is the dog called?", tokens=300)
        assert budgeted["answer"]
        assert (await call(mcp, "user_stats", user_id="alice"))["runs"] == stats["runs"] + 2

        # Forget the unconsolidated turn: only it goes.
        forgotten = await call(mcp, "forget_interaction", interaction_id=ids[4])
        assert forgotten["interaction_ids"] == [ids[4]]
        assert forgotten["fact_ids"] == [] and forgotten["episode_ids"] == []
        assert forgotten["record_run_id"] is None  # nothing surviving changed: no record
        after = await call(mcp, "user_stats", user_id="alice")
        assert after["interactions"] == 4 and after["unconsolidated"] == 0
        assert after["runs"] == stats["runs"] + 2  # no surviving belief changed: nothing records it
        assert await error(mcp, "forget_interaction", interaction_id=ids[4]) == (
            f"NOT_FOUND: interaction {ids[4]!r} not found"
        )
        # Forget the merge turn: the facts it replaced hold again, and their audit says who forgot.
        undone = await call(mcp, "forget_interaction", interaction_id=ids[3])
        assert set(undone["restored_fact_ids"]) == set(created["fact_ids"])
        restored = await call(mcp, "audit_fact", fact_id=created["fact_ids"][0])
        assert restored["fact"]["status"] == "active"
        (record,) = restored["corrections"]
        assert (record["op"], record["trigger"], record["provider"]) == (
            "forget_interaction",
            "erasure",
            "person",
        )
        assert record["by"] and record["reason"] is None
        assert undone["record_run_id"] == record["id"]  # the answer leads to the audit


async def test_a_turns_time_is_answered_in_the_offset_it_was_said_in(live: str, key: str) -> None:
    """As GraphQL's occurredAt: an interaction's occurred_at, and a recalled turn's `at`, come back
    in the offset the turn was sent in, the same instant (docs/mcp.md#times)."""
    zones = [
        timedelta(hours=5, minutes=30),
        timedelta(hours=-8),
        timedelta(0),
        timedelta(hours=9),
        -timedelta(hours=3, minutes=30),
    ]
    sent = [(T0 + timedelta(days=day)).astimezone(timezone(z)) for day, z in enumerate(zones)]
    async with connect(live, key) as mcp:
        payloads = [
            await call(mcp, "remember", user_id="ivy", text=text, speaker="ivy", occurred_at=when.isoformat())
            for text, when in zip(STORY, sent, strict=True)
        ]
        ids = [p["interaction_id"] for p in payloads]
        said = {i: when.isoformat().replace("+00:00", "Z") for i, when in zip(ids, sent, strict=True)}
        merged = payloads[3]["consolidation"]
        assert merged["action"] == "merged" and merged["fact_ids"]

        audit = await call(mcp, "audit_fact", fact_id=merged["fact_ids"][0])
        sources = [s["interaction"] for s in audit["episodes"][0]["sources"]]
        assert {i["id"]: i["occurred_at"] for i in sources + audit["interactions"]} == {
            i: said[i] for i in ids[:4]
        }
        found = await call(mcp, "recall", user_id="ivy", query="sushi with salmon", layers=True)
        turns = found["layers"]["subconscious"]
        assert turns and {h["id"]: h["at"] for h in turns} == {h["id"]: said[h["id"]] for h in turns}
        answered = await call(mcp, "answer", user_id="ivy", question="What is the dog called?")
        cited = [e for e in answered["evidence"] if e["layer"] == "subconscious"]
        assert cited and {e["id"]: e["at"] for e in cited} == {e["id"]: said[e["id"]] for e in cited}


# -- errors ---------------------------------------------------------------------------------------


async def test_remember_scoped_turns_and_recall_them_by_filter(live: str, key: str) -> None:
    async with connect(live, key) as mcp:
        notes = ["I bought a red bicycle.", "The dentist is on Friday.", "My favourite tea is jasmine."]
        for day, (agent, topic) in enumerate([("a1", "work"), ("a2", "home"), ("a1", "home")]):
            await call(
                mcp, "remember", user_id="dan", text=notes[day], occurred_at=at(day),
                agent_id=agent, metadata={"topic": topic, "tags": ["x"]},
            )  # fmt: skip
        scoped = {"agent_ids": ["a1"], "metadata": [{"key": "topic", "equals": "home"}]}
        found = await call(mcp, "recall", user_id="dan", query="tea bicycle", layers=True, filter=scoped)
        hits = found["layers"]["subconscious"]
        assert [h["text"] for h in hits] == [notes[2]]
        either = {"metadata": [{"key": "topic", "any_of": ["home", "work"]}]}
        found = await call(mcp, "recall", user_id="dan", query="tea bicycle", layers=True, filter=either)
        assert len(found["layers"]["subconscious"]) == 3
        refused = await error(mcp, "remember", user_id="dan", text="Bad.", metadata={"tags": ["x", 1]})
        assert refused.startswith("BAD_USER_INPUT: ") and "'tags'" in refused, refused
        # A refusal names the filter's fields as the tool takes them (GraphQL's say agentIds).
        refused = await error(mcp, "recall", user_id="dan", query="tea", filter={"agent_ids": []})
        assert refused.startswith("BAD_USER_INPUT: filter.agent_ids must name at least one value"), refused
        window = {"valid_from_after": "2024-05-02T00:00:00Z", "valid_from_before": "2024-05-01T00:00:00Z"}
        refused = await error(mcp, "answer", user_id="dan", question="tea?", filter=window)
        assert refused == (
            "BAD_USER_INPUT: filter.valid_from_before must be later than filter.valid_from_after"
        ), refused
        assert (await call(mcp, "user_stats", user_id="dan"))["interactions"] == 3


STATS = """query($user: ID!, $filter: RecallFilter) { user(id: $user) { stats(filter: $filter) {
  interactions consolidated pending episodes episodeVersions activeFacts supersededFacts
  retractedFacts runs promptTokens completionTokens } } }"""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


async def test_user_stats_counts_within_a_filter_as_graphql_does(live: str, key: str) -> None:
    async with connect(live, key) as mcp, httpx.AsyncClient(timeout=TIMEOUT_S) as http:
        for day, (agent, topic) in enumerate(
            [("a1", "work"), ("a2", "home"), ("a1", "home"), ("a2", "work")]
        ):
            await call(
                mcp, "remember", user_id="gil", text=f"{STORY[day % 3]} ({topic})", occurred_at=at(day),
                agent_id=agent, session_id=f"s{day % 2}", metadata={"topic": topic},
            )  # fmt: skip
        added = await call(
            mcp, "add_fact", user_id="gil", text="Gil is tall.", kind="attribute", agent_id="a1"
        )
        await call(mcp, "retract_fact", fact_id=added["fact"]["id"], reason="not so")
        await call(mcp, "remember", user_id="gil-other", text="Other.", agent_id="a1")  # the same scope
        whole = await call(mcp, "user_stats", user_id="gil")
        assert whole["interactions"] == 4 and whole["retracted_facts"] == 1, whole

        async def graphql(filter: dict[str, Any] | None) -> dict[str, Any]:
            camel = None if filter is None else {_camel(k): v for k, v in filter.items()}
            if camel and "metadata" in camel:
                camel["metadata"] = [{_camel(k): v for k, v in m.items()} for m in camel["metadata"]]
            if camel and "kinds" in camel:
                camel["kinds"] = [k.upper() for k in camel["kinds"]]  # GraphQL's FactKind enum
            response = await http.post(
                live.removesuffix("/mcp") + "/graphql",
                json={"query": STATS, "variables": {"user": "gil", "filter": camel}},
                headers={"authorization": f"Bearer {key}"},
            )
            body = response.json()
            assert "errors" not in body, body
            return {_camel(k): v for k, v in body["data"]["user"]["stats"].items()}

        counted = []
        for given in (
            None,
            {"agent_ids": ["a1"]},
            {"session_ids": ["s1"]},
            {"metadata": [{"key": "topic", "any_of": ["home"]}]},
            {"agent_ids": ["a1"], "metadata": [{"key": "topic", "equals": "work"}]},
            {"agent_ids": ["nobody"]},
            {"kinds": ["attribute"]},
            {"occurred_after": at(2)},
        ):
            stats = await call(mcp, "user_stats", user_id="gil", filter=given)
            unconsolidated = stats.pop("unconsolidated")
            assert unconsolidated == stats["interactions"] - stats["consolidated"], given
            assert {_camel(k): v for k, v in stats.items()} == await graphql(given), given
            counted.append(stats["interactions"])
        assert counted[:6] == [4, 2, 2, 2, 1, 0], counted
        # A bad filter is refused as recall refuses it, naming the field as the tool takes it.
        refused = await error(mcp, "user_stats", user_id="gil", filter={"agent_ids": []})
        assert refused.startswith("BAD_USER_INPUT: filter.agent_ids must name at least one value"), refused
        window = {"occurred_after": at(2), "occurred_before": at(1)}
        refused = await error(mcp, "user_stats", user_id="gil", filter=window)
        assert refused == "BAD_USER_INPUT: filter.occurred_before must be later than filter.occurred_after"
        refused = await error(mcp, "user_stats", user_id="gil", filter={"metadata": [{"key": "topic"}]})
        assert refused.startswith("BAD_USER_INPUT: filter.metadata 'topic': give exactly one of"), refused
        assert (await error(mcp, "user_stats", user_id="nobody", filter={"agent_ids": ["a1"]})).startswith(
            "NOT_FOUND: "
        )


async def test_add_a_scoped_fact_and_recall_it_by_filter(
    db: Database, live: str, tenant: str, key: str
) -> None:
    async with connect(live, key) as mcp:
        await call(mcp, "remember", user_id="eve", text="Hello there.", occurred_at=at(0), agent_id="a1")
        added = await call(
            mcp, "add_fact", user_id="eve", text="Eve is allergic to penicillin.", kind="attribute",
            agent_id="ag1", session_id="support-7", metadata={"topic": "health", "tags": ["medical"]},
        )  # fmt: skip
        plain = await call(
            mcp, "add_fact", user_id="eve", text="Eve is allergic to pollen.", kind="attribute"
        )
        fact_id, unscoped_id = added["fact"]["id"], plain["fact"]["id"]

        async def found(scope: dict[str, Any] | None) -> set[str]:
            hits = await call(mcp, "recall", user_id="eve", query="allergic", layers=True, filter=scope)
            return {h["id"] for h in hits["layers"]["semantic"]}

        assert {fact_id, unscoped_id} <= await found(None)
        for scope in (
            {"agent_ids": ["ag1"]},
            {"session_ids": ["support-7"]},
            {"metadata": [{"key": "tags", "equals": "medical"}]},
        ):
            assert await found(scope) == {fact_id}, scope
        assert await found({"agent_ids": ["a1"]}) == set()
        before = await count_nodes(db, tenant)
        for scoped, words in (
            ({"agent_id": " "}, "agent_id must not be empty"),
            ({"metadata": {"tags": ["x", 1]}}, "'tags'"),
        ):
            refused = await error(
                mcp, "add_fact", user_id="eve", text="Eve runs.", kind="attribute", **scoped
            )
            assert refused.startswith("BAD_USER_INPUT: ") and words in refused, refused
        assert await count_nodes(db, tenant) == before


async def test_a_filter_time_with_an_offset_is_the_instant_it_names(live: str, key: str) -> None:
    """A window's bounds are instants: 14:00+05:00 is 09:00Z, whatever the offset it is written in
    (the start is inside the window, the end outside), as in GraphQL."""
    async with connect(live, key) as mcp:
        turn = await call(
            mcp, "remember", user_id="fay", text="The kiln reached cone six.",
            occurred_at="2023-06-01T09:00:00Z",
        )  # fmt: skip
        for same in (
            "2023-06-01T09:00:00Z", "2023-06-01T14:00:00+05:00", "2023-06-01T14:30:00+05:30",
            "2023-06-01T10:00:00+01:00", "2023-06-01T04:00:00-05:00",
        ):  # fmt: skip
            inside = await call(
                mcp, "recall", user_id="fay", query="kiln", layers=True, filter={"occurred_after": same}
            )
            assert [h["id"] for h in inside["layers"]["subconscious"]] == [turn["interaction_id"]], same
            outside = await call(
                mcp, "recall", user_id="fay", query="kiln", layers=True, filter={"occurred_before": same}
            )
            assert outside["layers"]["subconscious"] == [], same


async def test_asked_at_with_an_offset_reads_the_askers_calendar(live: str, key: str) -> None:
    """01:30 on 6 December in +05:00 is still the 5th in UTC: "yesterday" is the asker's 5
    December, from 19:00 UTC on the 4th; the plan answers its times in UTC, as GraphQL does."""
    async with connect(live, key) as mcp:
        await call(
            mcp, "remember", user_id="gus", text="I went climbing.", occurred_at="2026-12-05T10:00:00+05:00"
        )
        found = await call(
            mcp,
            "recall",
            user_id="gus",
            query="Where did I go yesterday?",
            asked_at="2026-12-06T01:30:00+05:00",
        )
        plan = found["plan"]
        assert (plan["window"]["start"], plan["window"]["end"]) == (
            "2026-12-04T19:00:00Z",
            "2026-12-05T19:00:00Z",
        )
        assert plan["asked_at"] == "2026-12-05T20:30:00Z"


async def test_as_of_before_a_correction_answers_with_the_old_fact(live: str, key: str) -> None:
    """`as_of` reads memory as it stood then, as GraphQL's asOf does: before a correction, recall
    and answer rest on the old fact; without it, on the correction."""
    async with connect(live, key) as mcp:
        await call(mcp, "remember", user_id="hana", text="Hello there.", occurred_at=at(0))
        old = await call(
            mcp, "add_fact", user_id="hana", text="Hana lives in Paris.", kind="attribute", valid_from=at(30)
        )
        new = await call(
            mcp, "correct_fact", fact_id=old["fact"]["id"], text="Hana lives in Lyon.", reason="moved"
        )
        old_id, new_id = old["fact"]["id"], new["fact"]["id"]
        question = "Where does Hana live?"

        def ids(found: dict[str, Any]) -> set[str]:
            return {i["id"] for i in found.get("items", found.get("evidence", []))}

        then = await call(mcp, "recall", user_id="hana", query=question, as_of=at(31))
        now = await call(mcp, "recall", user_id="hana", query=question)
        assert old_id in ids(then) and new_id not in ids(then), then
        assert new_id in ids(now) and old_id not in ids(now), now
        answered = await call(mcp, "answer", user_id="hana", question=question, as_of=at(31))
        assert old_id in ids(answered) and new_id not in ids(answered), answered
        # Before the fact held, neither.
        before = await call(mcp, "recall", user_id="hana", query=question, as_of=at(29))
        assert not {old_id, new_id} & ids(before), before


async def test_bad_input_is_a_typed_one_line_tool_error_that_changes_nothing(
    db: Database, live: str, key: str
) -> None:
    async with connect(live, key) as mcp:
        await call(mcp, "remember", user_id="carol", text="Hello.", occurred_at=at(0))
        stats = await call(mcp, "user_stats", user_id="carol")

        refused = {
            "empty text": await error(mcp, "remember", user_id="carol", text=""),
            "huge text": await error(mcp, "remember", user_id="carol", text="é" * 150_000),
            "naive time": await error(
                mcp, "remember", user_id="carol", text="Hi.", occurred_at="2024-05-01T09:00:00"
            ),
            "not a time": await error(mcp, "remember", user_id="carol", text="Hi.", occurred_at="yesterday"),
            "blank user": await error(mcp, "remember", user_id="  ", text="Hi."),
            "blank session": await error(mcp, "remember", user_id="carol", text="Hi.", session_id=""),
            "long user": await error(mcp, "remember", user_id="u" * 300, text="Hi."),
            "missing text": await error(mcp, "remember", user_id="carol"),
            "zero tokens": await error(mcp, "recall", user_id="carol", query="hello", tokens=0),
            "huge tokens": await error(mcp, "recall", user_id="carol", query="hello", tokens=10**9),
            "bad type": await error(mcp, "recall", user_id="carol", query="hello", tokens="many"),
            "empty query": await error(mcp, "recall", user_id="carol", query=""),
            "empty fact id": await error(mcp, "audit_fact", fact_id=""),
            "naive asked_at": await error(
                mcp, "recall", user_id="carol", query="hello", asked_at="2023-06-14T12:00:00"
            ),
            "a day as asked_at": await error(
                mcp, "recall", user_id="carol", query="hello", asked_at="2023-06-14"
            ),
            "naive answer asked_at": await error(
                mcp, "answer", user_id="carol", question="hello?", asked_at="2023-06-14T12:00:00"
            ),
            "naive as_of": await error(
                mcp, "recall", user_id="carol", query="hello", as_of="2023-06-14T12:00:00"
            ),
            "a day as as_of": await error(
                mcp, "answer", user_id="carol", question="hello?", as_of="2023-06-14"
            ),
            "as_of off the calendar": await error(
                mcp, "answer", user_id="carol", question="hello?", as_of="0001-01-01T00:00:00+01:00"
            ),
            # An offset that puts the instant outside the years 1 to 9999 in UTC.
            "asked_at off the calendar": await error(
                mcp, "recall", user_id="carol", query="hello", asked_at="0001-01-01T00:00:00+01:00"
            ),
            "valid_from off the calendar": await error(
                mcp,
                "add_fact",
                user_id="carol",
                text="Carol was born.",
                kind="event",
                valid_from="9999-12-31T23:30:00-01:00",
            ),
        }
        for case, message in refused.items():
            assert message.startswith("BAD_USER_INPUT: "), (case, message)
            assert "Error executing tool" not in message and "Traceback" not in message, (case, message)
        assert "occurred_at" in refused["naive time"] and "timezone" in refused["naive time"]
        assert "text" in refused["missing text"]
        for case in ("naive asked_at", "a day as asked_at", "naive answer asked_at"):
            assert "asked_at" in refused[case] and "needs a timezone offset" in refused[case], refused[case]
        for case in ("naive as_of", "a day as as_of"):
            assert "as_of" in refused[case] and "needs a timezone offset" in refused[case], refused[case]
        for case in ("asked_at off the calendar", "valid_from off the calendar", "as_of off the calendar"):
            assert "years 1 to 9999" in refused[case], refused[case]
        assert "tokens" in refused["zero tokens"]
        assert refused["blank user"] == "BAD_USER_INPUT: user_id must not be empty"
        assert refused["blank session"] == "BAD_USER_INPUT: session_id must not be empty"
        assert refused["huge text"] == (
            "BAD_USER_INPUT: text is 300000 bytes; the limit is 262144 bytes (RECMEM_MAX_TEXT_BYTES)"
        )
        assert refused["empty fact id"] == "BAD_USER_INPUT: fact_id must not be empty"
        assert await call(mcp, "user_stats", user_id="carol") == stats

        assert await error(mcp, "recall", user_id="nobody", query="x") == "NOT_FOUND: user 'nobody' not found"
        assert await error(mcp, "user_stats", user_id="nobody") == "NOT_FOUND: user 'nobody' not found"
        assert (
            await error(mcp, "answer", user_id="nobody", question="x?")
            == "NOT_FOUND: user 'nobody' not found"
        )
        missing = "fact_" + "0" * 32
        assert await error(mcp, "audit_fact", fact_id=missing) == f"NOT_FOUND: fact {missing!r} not found"


def test_unexpected_errors_are_masked_and_outages_are_unavailable() -> None:
    crash = UnexpectedToolError("Error executing tool recall")
    crash.__cause__ = RuntimeError("secret internals")
    (block,) = tool_error("recall", crash, "req-1").content
    assert isinstance(block, TextContent) and block.text == "INTERNAL: internal error (request id req-1)"
    for outage in (StoreUnavailable("Neo4j is not reachable: boom"), TimeoutError()):
        result = tool_error("recall", outage, "req-2")
        assert result.is_error and _text(result).startswith("UNAVAILABLE: "), _text(result)
        assert "boom" not in _text(result)


async def test_an_unknown_argument_is_refused_and_changes_nothing(
    db: Database, live: str, tenant: str, key: str
) -> None:
    """An argument a tool does not take (GraphQL's include_consolidated on recall, a misspelt
    source) would otherwise be dropped: the call would answer as if it had not been sent."""
    async with connect(live, key) as mcp:
        payloads = await tell_story(mcp)
        active = payloads[3]["consolidation"]["fact_ids"][0]
        before = await count_nodes(db, tenant)
        unknown = await error(mcp, "recall", user_id="alice", query="sushi", include_consolidated=True)
        assert unknown.startswith("BAD_USER_INPUT: ") and "include_consolidated" in unknown, unknown
        typo = await error(
            mcp, "correct_fact", fact_id=active, text="Alice prefers eel.", reason="r",
            source_interaction=payloads[0]["interaction_id"],
        )  # fmt: skip
        assert typo.startswith("BAD_USER_INPUT: ") and "source_interaction" in typo, typo
        assert await count_nodes(db, tenant) == before
        assert (await call(mcp, "audit_fact", fact_id=active))["fact"]["status"] == "active"


async def test_an_unknown_tool_is_a_tool_error(live: str, key: str) -> None:
    async with connect(live, key) as mcp:
        assert await error(mcp, "drop_everything") == "BAD_USER_INPUT: Unknown tool: drop_everything"


async def test_a_missing_or_bad_key_is_refused_with_401(db: Database, live: str) -> None:
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }  # fmt: skip
    accept = {"accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=TIMEOUT_S) as http:
        for headers in ({}, {"authorization": "Bearer rmk_not-a-key"}, {"authorization": "Basic abc"}):
            response = await http.post(live, json=initialize, headers=accept | headers)
            assert response.status_code == 401, response.text
            assert response.headers["www-authenticate"].startswith("Bearer")
            body = response.json()
            assert body["error"]["data"]["code"] == "UNAUTHENTICATED"
            assert "Authorization: Bearer <key>" in body["error"]["message"]
        for method in ("GET", "DELETE", "PUT"):
            response = await http.request(method, live, headers=accept)
            assert response.status_code == 405 and response.headers["allow"] == "POST", method
            assert response.json()["error"]["data"]["code"] == "BAD_USER_INPUT"
        ok = await http.post(
            live, json=initialize, headers=accept | {"authorization": f"Bearer {await new_key(db)}"}
        )
        assert ok.status_code == 200, ok.text
        assert ok.json()["result"]["serverInfo"]["name"] == "recmem"

    # The SDK's client: initialize fails with the server's message (inside its task groups).
    for key in (None, "rmk_not-a-key"):
        with pytest.raises(BaseException) as refused:
            async with connect(live, key):
                pass
        leaf = _leaf(refused.value)
        assert isinstance(leaf, MCPError), refused.value
        assert str(leaf) == "UNAUTHENTICATED: a valid API key is required: Authorization: Bearer <key>"


async def test_malformed_messages_are_refused_and_store_nothing(live: str, key: str) -> None:
    headers = {
        "authorization": f"Bearer {key}",
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2025-06-18",
    }
    remember = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":%s}}'
    async with httpx.AsyncClient(timeout=TIMEOUT_S) as http:
        for body in (
            remember % '{"user_id":"erin","text":"\\ud800"}',  # a lone surrogate
            remember % '{"user_id":"erin","text":"hi"',
            "not json",
        ):
            response = await http.post(live, content=body.encode(), headers=headers)
            assert response.status_code == 400, response.text
            assert response.json()["error"]["code"] == -32700  # JSON-RPC parse error
        response = await http.post(live, content=(remember % '"not an object"').encode(), headers=headers)
        assert response.status_code < 500 and "error" in response.json(), response.text
    async with connect(live, key) as mcp:
        assert await error(mcp, "user_stats", user_id="erin") == "NOT_FOUND: user 'erin' not found"


async def test_a_revoked_key_is_refused_at_once(db: Database, live: str) -> None:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    issued = await AccessKeys(db).create(tenant, "mcp-revoked")
    async with connect(live, issued.secret) as session:
        await call(session, "remember", user_id="dave", text="Before the revocation.")
        await AccessKeys(db).revoke(issued.key.id)
        with pytest.raises(MCPError, match="UNAUTHENTICATED"):
            await session.call_tool("user_stats", {"user_id": "dave"})


async def test_export_user_pages_through_the_users_lines(live: str, key: str) -> None:
    async with connect(live, key) as mcp:
        payloads = await tell_story(mcp, user="exported")
        whole = await call(mcp, "export_user", user_id="exported", limit=2000)
        header, lines = whole["header"], whole["lines"]
        assert whole["next_offset"] is None and whole["download_path"] == "/export?user=exported"
        assert header["schema_version"] == 1 and header["counts"]["nodes"]["Interaction"] == len(payloads)
        assert len(lines) == sum(header["counts"]["nodes"].values()) + sum(header["counts"]["edges"].values())
        paged, offset = [], 0
        while offset is not None:
            page = await call(mcp, "export_user", user_id="exported", offset=offset, limit=7)
            assert page["header"]["counts"] == header["counts"] and len(page["lines"]) <= 7
            paged += page["lines"]
            offset = page["next_offset"]
        assert paged == lines
        assert (await error(mcp, "export_user", user_id="exported", limit=0)).startswith("BAD_USER_INPUT")


async def test_export_user_of_a_user_whose_turns_were_all_forgotten(live: str, key: str) -> None:
    async with connect(live, key) as mcp:
        said = await call(mcp, "remember", user_id="erin", text="Hello there.", occurred_at=at(0))
        await call(mcp, "forget_interaction", interaction_id=said["interaction_id"])
        assert (await call(mcp, "user_stats", user_id="erin"))["interactions"] == 0
        page = await call(mcp, "export_user", user_id="erin")
        assert page["lines"] == [] and page["next_offset"] is None
        assert page["header"]["owner"]["user_id"] == "erin"


async def test_another_tenants_ids_are_not_found(db: Database, live: str, tenant: str, key: str) -> None:
    async with connect(live, key) as mcp:
        payloads = await tell_story(mcp)
        merged = payloads[3]["consolidation"]
        fact_id, interaction_id = merged["fact_ids"][0], payloads[0]["interaction_id"]
        audit = await call(mcp, "audit_fact", fact_id=fact_id)
        before = await count_nodes(db, tenant)
        assert before["Interaction"] == len(STORY)

        async with connect(live, await new_key(db)) as intruder:
            for tool, arguments, node_id in (
                ("audit_fact", {"fact_id": fact_id}, fact_id),
                ("forget_interaction", {"interaction_id": interaction_id}, interaction_id),
            ):
                seen = await error(intruder, tool, **arguments)
                missing_id = node_id[: node_id.index("_") + 1] + "0" * 32
                unknown = await error(intruder, tool, **{next(iter(arguments)): missing_id})
                assert seen.startswith("NOT_FOUND: ")
                assert seen.replace(node_id, "<id>") == unknown.replace(missing_id, "<id>")
            # The intruder's "alice" is another user, who does not exist in its tenant.
            for tool, arguments in (
                ("user_stats", {"user_id": "alice"}),
                ("export_user", {"user_id": "alice"}),
                ("recall", {"user_id": "alice", "query": "sushi"}),
                ("answer", {"user_id": "alice", "question": "What is the dog called?"}),
            ):
                assert await error(intruder, tool, **arguments) == "NOT_FOUND: user 'alice' not found"

        # The owner's memory is untouched, and its audit reads the same.
        assert await count_nodes(db, tenant) == before
        assert await call(mcp, "audit_fact", fact_id=fact_id) == audit


async def test_correct_retract_and_add_facts(db: Database, live: str, tenant: str, key: str) -> None:
    async with connect(live, key) as mcp:
        payloads = await tell_story(mcp)
        created, merged = payloads[2]["consolidation"], payloads[3]["consolidation"]
        active = merged["fact_ids"][0]
        intruder_key = await new_key(db)
        before = await count_nodes(db, tenant)
        async with connect(live, intruder_key) as intruder:
            for tool, arguments in (
                ("correct_fact", {"fact_id": active, "text": "x", "reason": "r"}),
                ("retract_fact", {"fact_id": active, "reason": "r"}),
            ):
                assert await error(intruder, tool, **arguments) == f"NOT_FOUND: fact {active!r} not found"
        assert (await error(mcp, "correct_fact", fact_id=active, text=" ", reason="r")).startswith(
            "BAD_USER_INPUT: "
        )
        # The refusal names the argument as the tool takes it, not as GraphQL does.
        assert (
            await error(mcp, "correct_fact", fact_id=active, text="x", reason="r", source_interaction_id=" ")
            == "BAD_USER_INPUT: source_interaction_id must not be empty"
        )
        superseded = created["fact_ids"][0]
        assert "superseded" in await error(mcp, "retract_fact", fact_id=superseded, reason="r")
        assert await count_nodes(db, tenant) == before

        corrected = await call(
            mcp, "correct_fact", fact_id=active, text="Alice can't stand salmon sushi.", reason="wording"
        )
        assert corrected["written"] and corrected["changed_fact"]["status"] == "superseded"
        assert corrected["trigger"] == "correction" and corrected["by"].startswith("mcp-test (key_")
        new_id = corrected["fact"]["id"]
        audit = await call(mcp, "audit_fact", fact_id=active)
        assert [c["fact"]["id"] for c in audit["superseded_by"]] == [new_id]
        assert [(c["trigger"], c["reason"]) for c in audit["corrections"]] == [("correction", "wording")]

        retracted = await call(mcp, "retract_fact", fact_id=new_id, reason="not true after all")
        assert retracted["fact"] is None and retracted["changed_fact"]["status"] == "retracted"
        audit = await call(mcp, "audit_fact", fact_id=new_id)
        assert [c["trigger"] for c in audit["corrections"]] == ["correction", "retraction"]
        # Recall names the belief the correction withdrew, which the turns it rests on still say;
        # the correction (retracted since) rests on no turn of the context.
        found = await call(mcp, "recall", user_id="alice", query="Does Alice like sushi with salmon?")
        assert [(f["id"], f["status"]) for f in found["withdrawn"]] == [(active, "superseded")]
        assert found["withdrawn"][0]["valid_to"] is not None
        # The answer tool says the same, beside the answer it kept off that belief.
        answered = await call(mcp, "answer", user_id="alice", question="Does Alice like sushi with salmon?")
        assert [(f["id"], f["status"]) for f in answered["withdrawn"]] == [(active, "superseded")]

        added = await call(mcp, "add_fact", user_id="alice", text="Alice is vegetarian.", kind="attribute")
        assert added["fact"]["kind"] == "attribute" and added["trigger"] == "manual"
        # A time with an offset is the instant it names, kept in UTC as GraphQL's DateTime is.
        offset = await call(
            mcp, "add_fact", user_id="alice", text="Alice runs.", kind="attribute",
            valid_from="2024-03-01T14:00:00+05:00",
        )  # fmt: skip
        assert offset["fact"]["valid_from"] in ("2024-03-01T09:00:00Z", "2024-03-01T09:00:00+00:00")
        naive = await error(
            mcp,
            "add_fact",
            user_id="alice",
            text="Alice swims.",
            kind="attribute",
            valid_from="2024-03-01T09:00:00",
        )
        assert naive.startswith("BAD_USER_INPUT: ") and "needs a timezone offset" in naive, naive
        assert (await error(mcp, "add_fact", user_id="alice", text="x", kind="mood")).startswith(
            "BAD_USER_INPUT: "
        )
