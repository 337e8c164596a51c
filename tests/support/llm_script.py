"""Routes the local LLM server's replies by task, reading the memory data the prompt carried."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from local_llm_server import LocalLLMServer, Reply

Handler = Callable[[dict[str, Any]], Reply | None]
_DATA = re.compile(r"<memory_data>\s*(.*?)\s*</memory_data>", re.S)


def task_of(body: dict[str, Any]) -> str:
    """The task name the provider sent as the json_schema name (or named in json_object mode)."""
    response_format = body.get("response_format") or {}
    return str((response_format.get("json_schema") or {}).get("name", ""))


def tasks(server: LocalLLMServer) -> list[str]:
    """The task of every request the server received, in order."""
    return [task_of(body) for body in server.requests]


def data_of(body: dict[str, Any]) -> dict[str, Any]:
    """The JSON document the prompt delimited as memory data."""
    user = next(m for m in reversed(body["messages"]) if m["role"] == "user")
    match = _DATA.search(user["content"])
    assert match, "prompt carries no memory data block"
    return dict(json.loads(match.group(1)))


def by_task(**handlers: Handler) -> Callable[[dict[str, Any]], Reply | None]:
    """A responder: the handler named after the request's task, or the generic reply."""

    def respond(body: dict[str, Any]) -> Reply | None:
        handler = handlers.get(task_of(body))
        return handler(body) if handler else None

    return respond


def episode_reply(title: str = "Topic") -> Handler:
    def handle(body: dict[str, Any]) -> Reply:
        turns = data_of(body)["turns"]
        summary = " ".join(f"On {t['at'][:10]}, {t['speaker']} said: {t['text']}" for t in turns)
        return Reply.json({"title": title, "summary": summary})

    return handle


def merge_reply(continues: bool = True) -> Handler:
    def handle(body: dict[str, Any]) -> Reply:
        data = data_of(body)
        new = " ".join(t["text"] for t in data["new_turns"])
        summary = f"{data['episode']['summary']} Later: {new}" if continues else None
        return Reply.json({"continues": continues, "summary": summary, "reason": "same topic"})

    return handle


def facts_reply(make: Callable[[dict[str, Any]], list[dict[str, Any]]]) -> Handler:
    def handle(body: dict[str, Any]) -> Reply:
        return Reply.json({"facts": make(data_of(body))})

    return handle


def one_fact_per_turn(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "text": f"{t['speaker']}: {t['text']}",
            "kind": "event",
            "source_turn_ids": [t["id"]],
            "replaces": [],
        }
        for t in data["turns"]
    ]


def plan_reply(**plan: Any) -> Handler:
    """The LLM planner's reply: `plan` (PlanReply's fields), whatever the question."""

    def handle(body: dict[str, Any]) -> Reply:
        return Reply.json(plan)

    return handle


def consolidation_replies(
    title: str,
    *,
    facts: Callable[[dict[str, Any]], list[dict[str, Any]]] = one_fact_per_turn,
    continues: bool = True,
    **handlers: Handler,
) -> Callable[[dict[str, Any]], Reply | None]:
    """A responder for the consolidator's three tasks: an episode titled `title` over its turns,
    `facts` refined from them, a merge that `continues` (or not); `handlers` add or replace tasks."""
    scripted = {
        "create_episode": episode_reply(title),
        "refine_facts": facts_reply(facts),
        "merge_decision": merge_reply(continues),
    }
    return by_task(**(scripted | handlers))
