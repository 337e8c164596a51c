"""The example operations in api/examples/ (shown in docs/api/graphql.md) run as written."""

from __future__ import annotations

from pathlib import Path

from tests.support.api import STORY, Caller, tell_story

EXAMPLES = Path(__file__).resolve().parents[2] / "api" / "examples"


def example(name: str) -> str:
    return (EXAMPLES / f"{name}.graphql").read_text(encoding="utf-8")


async def test_readme_examples_work_as_written(caller: Caller) -> None:
    remembered = (await caller.gql(example("remember")))["remember"]
    assert remembered["created"] and remembered["interaction"]["occurredAt"] == "2024-05-01T09:00:00Z"
    await tell_story(caller)
    recall = (await caller.gql(example("recall")))["recall"]
    assert recall["semantic"] and recall["episodic"]
    context = recall["context"]
    assert 0 < context["tokens"] <= 500 and context["items"]
    assert {i["layer"] for i in context["items"]} <= {"SUBCONSCIOUS", "EPISODIC", "SEMANTIC"}
    lines = [line for line in context["text"].splitlines() if line.startswith("- ")]
    assert len(lines) == len(context["items"])
    fact_id = next(h["fact"]["id"] for h in recall["semantic"] if "can't stand" in h["fact"]["text"])
    fact = (await caller.gql(example("audit"), {"factId": fact_id}))["fact"]
    assert fact["status"] == "ACTIVE" and len(fact["audit"]["supersedes"]) >= 3
    assert fact["audit"]["interactions"][0]["text"] == STORY[3]
    assert {r["op"] for r in fact["audit"]["runs"]} == {"merge_episode", "refine_facts"}
    assert len(fact["history"]) >= 4
