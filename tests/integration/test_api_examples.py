"""The example operations in api/examples/ (shown in docs/api/graphql.md) run as written."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.api import STORY, Caller, tell_story, unit

EXAMPLES = Path(__file__).resolve().parents[2] / "api" / "examples"


def example(name: str) -> str:
    return (EXAMPLES / f"{name}.graphql").read_text(encoding="utf-8")


SPEAKER = "alice"
FACTS = """query Facts { user(id: "alice") { facts(first: 100) { nodes { text } } } }"""


def test_the_examples_have_one_speaker() -> None:
    """Every example that names a speaker names the same one, the one the story below speaks as:
    two speakers for one person would make two subjects of the same facts."""
    named = {
        m for path in EXAMPLES.glob("*.graphql") for m in re.findall(r'speaker: "([^"]*)"', path.read_text())
    }
    assert named == {SPEAKER}
    assert unit("x", 0)["speaker"] == SPEAKER


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
    # One subject throughout: no fact about a "user" beside the same fact about alice.
    facts = [f["text"] for f in (await caller.gql(FACTS))["user"]["facts"]["nodes"]]
    assert facts and all(SPEAKER in text.lower() for text in facts), facts
    assert not [text for text in facts if re.search(r"\buser\b", text, re.I)], facts
