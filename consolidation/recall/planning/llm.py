"""The LLM planner (RECMEM_PLANNER=llm): one call to the configured endpoint reads the question.

Its window is checked (both dates parse, start before end) and dropped with a note otherwise; a
date or time without an offset is read in the question's. An entity the question does not hold
is dropped with a note. Any failure of the call (timeout,
endpoint down, a reply still malformed after the client's re-ask, a refusal) gives the rule
plan, with `fallback` saying why. The call's tokens are on the plan.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime, tzinfo

from consolidation.consolidating.prompts import plan_question as prompt
from consolidation.providers.llm.base import LanguageModel
from consolidation.providers.llm.types import LLMError, LLMInvalidOutput, Usage
from consolidation.recall.planning.plan import Order, Plan, QuestionKind, Window
from consolidation.recall.planning.rules import plan_question
from consolidation.times import aware

log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class LLMPlanner:
    """Reads a question with `model`, at most `timeout_s` per question (re-asks included)."""

    model: LanguageModel
    timeout_s: float

    async def plan(self, question: str, asked_at: datetime) -> Plan:
        inp = prompt.PlanInput(question=question, asked_at=asked_at)
        try:
            async with asyncio.timeout(self.timeout_s):
                result = await self.model.structured(prompt.messages(inp), prompt.PlanReply, task=prompt.TASK)
        except TimeoutError:
            return _fallback(question, asked_at, "llm timeout", None)
        except LLMError as error:
            return _fallback(question, asked_at, _reason(error), error.usage)
        return _plan_of(result.value, question, asked_at, result.usage)


def _reason(error: LLMError) -> str:
    if error.status == "timeout":
        return "llm timeout"
    if isinstance(error, LLMInvalidOutput):
        return "llm invalid output"
    return f"llm {error.status}"


def _fallback(question: str, asked_at: datetime, reason: str, usage: Usage | None) -> Plan:
    log.warning("LLM planner fell back to the rules: %s", reason)
    return _spent(replace(plan_question(question, asked_at), fallback=reason), usage)


def _spent(plan: Plan, usage: Usage | None) -> Plan:
    if usage is None:
        return plan
    return replace(
        plan,
        llm_calls=usage.calls,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
    )


def _plan_of(reply: prompt.PlanReply, question: str, asked_at: datetime, usage: Usage) -> Plan:
    asked_at = aware(asked_at)
    window, notes = _window(reply, asked_at.tzinfo or UTC)
    entities, dropped = _named(reply.entities, question)
    if dropped:
        notes.append(f"entities dropped, not in the question: {', '.join(map(repr, dropped))}")
    plan = Plan(
        asked_at=asked_at,
        source="llm",
        window=window,
        order=Order(reply.order) if reply.order is not None else None,
        kind=QuestionKind(reply.kind),
        entities=entities,
        unresolved=[u.strip() for u in reply.unresolved if u.strip()],
        notes=notes,
    )
    return _spent(plan, usage)


def _named(entities: list[str], question: str) -> tuple[list[str], list[str]]:
    """The entities the question holds as words (any case), each once, and the others: a name the
    model made up would otherwise stand in the plan as the question's."""
    kept: list[str] = []
    dropped: list[str] = []
    for entity in dict.fromkeys(e.strip() for e in entities if e.strip()):
        found = re.search(rf"(?<!\w){re.escape(entity)}(?!\w)", question, flags=re.IGNORECASE)
        (kept if found else dropped).append(entity)
    return kept, dropped


def _window(reply: prompt.PlanReply, zone: tzinfo) -> tuple[Window | None, list[str]]:
    """The reply's window, its naive dates read on the calendar of `zone`, or None and a note
    saying why it was dropped."""
    if reply.window_start is None and reply.window_end is None:
        return None, []
    if reply.window_start is None or reply.window_end is None:
        return None, ["window dropped: it needs both a start and an end"]
    try:
        start, end = _moment(reply.window_start, zone), _moment(reply.window_end, zone)
    except (ValueError, OverflowError):
        return None, [f"window dropped: unreadable dates {reply.window_start!r}, {reply.window_end!r}"]
    if start >= end:
        return None, [f"window dropped: its end {reply.window_end} is not after its start"]
    text = (reply.window_text or "").strip() or f"{reply.window_start} to {reply.window_end}"
    return Window(start=start, end=end, text=text), []


def _moment(value: str, zone: tzinfo) -> datetime:
    """A date or an ISO 8601 time, as UTC; without an offset, one of the calendar of `zone`."""
    moment = datetime.fromisoformat(value.strip())
    return (moment.replace(tzinfo=zone) if moment.tzinfo is None else moment).astimezone(UTC)
