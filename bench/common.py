"""Pieces the benchmarks share: token counting, an embedding cache, the local server's extractive
responder, answer metrics (token F1, BLEU-1) and Markdown tables. `machine_info` lives in bench/machine.py
(re-exported here for the benches that import it from this module)."""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Coroutine, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from bench.embedding_store import EmbeddingStore
from bench.machine import machine_info as machine_info
from consolidation.consolidating.consolidator import (
    AnswerInput,
    EpisodeInput,
    ExistingFact,
    LLMResult,
    MergeInput,
    RefineInput,
    Turn,
)
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.consolidating.prompts import plan_question as plan_prompt
from consolidation.consolidating.prompts.common import DATA_TAG
from consolidation.providers.embedders import Embedder, Vectors
from consolidation.providers.llm.types import Usage
from consolidation.recall.planning import plan_question
from local_llm_server import Reply
from local_llm_server.generic import json_schema_field
from local_llm_server.tokens import count_tokens as _o200k_tokens

T = TypeVar("T")


def count_tokens(text: str) -> int:
    """o200k_base tokens (bpe_openai), the tokenizer the local server bills with."""
    return _o200k_tokens(text)


# -- embeddings ----------------------------------------------------------------------------------


# Texts embedded between two writes of the store: a killed run loses at most this many (a minute
# or two of MiniLM on two loaded cores); a write costs milliseconds.
STORE_EVERY = 512


@runtime_checkable
class BatchPlanner(Protocol):
    """An embedder that says which rows of a call it batches together (OnnxMiniLMEmbedder)."""

    def batches(self, texts: list[str]) -> list[list[int]]: ...


class CachedEmbedder:
    """Wraps an embedder with a per-text cache.

    The modes of one run embed the same turns and questions; embedding them once (in large batches,
    up front) keeps MiniLM's CPU time out of the per-mode construction figures and saves minutes.
    Vectors are deterministic per text, so caching changes no result. With a `store` path the
    vectors also persist between runs (bench/embedding_store.py), written every `STORE_EVERY`
    texts, so a rerun of a killed run embeds only what was not stored. Each write holds whole
    batches of the embedder's plan for the call (BatchPlanner; else texts in order), so the
    vectors are the ones one call makes, bit for bit.
    """

    def __init__(self, inner: Embedder, store: Path | None = None) -> None:
        self.inner = inner
        # An embedder's name and dimension never change: copied once rather than forwarded.
        self.name = inner.name
        self.dimension = inner.dimension
        self._cache: dict[str, np.ndarray] = {}
        # Optional vectors kept between runs (bench/embedding_store.py).
        self._store = EmbeddingStore(store, inner.name, inner.dimension) if store else None

    async def embed(self, texts: list[str]) -> Vectors:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing and self._store is not None:
            self._cache.update(self._store.get(missing))
            missing = [t for t in missing if t not in self._cache]
        for chunk in self._chunks(missing):
            made = dict(zip(chunk, await self.inner.embed(chunk), strict=True))
            self._cache.update(made)
            if self._store is not None:
                self._store.put(made)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts]).astype(np.float32)

    def _chunks(self, texts: list[str]) -> Iterator[list[str]]:
        """`texts` in calls of whole batches, at least `STORE_EVERY` texts each but the last."""
        if not texts:
            return
        if isinstance(self.inner, BatchPlanner):
            batches = self.inner.batches(texts)
        else:
            batches = [[i] for i in range(len(texts))]
        chunk: list[str] = []
        for rows in batches:
            chunk += [texts[i] for i in rows]
            if len(chunk) >= STORE_EVERY:
                yield chunk
                chunk = []
        if chunk:
            yield chunk


# -- the local server's extractive responder -----------------------------------------------------

_DATA_BLOCK = re.compile(rf"<{DATA_TAG}>\n(.*)\n</{DATA_TAG}>", re.S)


def completed(coro: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that never suspends (the offline consolidator only computes).

    The responder runs inside the server's event loop, where `asyncio.run` is not allowed.
    """
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("the coroutine suspended; it cannot be completed synchronously")


class ExtractiveResponder:
    """Answers the engine's four prompts over HTTP with the offline consolidator's rules.

    The local server's generic replies are schema-valid but carry instruction text instead of
    content (every episode would read "Answer with a JSON object..."), which makes recall over
    episodes and facts meaningless and shrinks merge prompts. This responder decodes the request's
    data block and answers with extractive content (a bounded summary of the turns, facts = their
    informative sentences with names and absolute dates), so the openai client, the JSON schema
    path and the server's o200k token accounting stay real while the content tracks the input.
    Requests for any other task (e.g. an answer judge) get the generic reply.
    """

    def __init__(self) -> None:
        self.offline = OfflineConsolidator()
        self.answered: Counter[str] = Counter()

    def __call__(self, body: dict[str, Any]) -> Reply | None:
        task = _task(body)
        data = _data_block(body)
        if task is None or data is None:
            return None
        result = self._answer(task, data)
        if result is None:
            return None
        self.answered[task] += 1
        return Reply.json(result.value.model_dump(mode="json"))

    def _answer(self, task: str, data: dict[str, Any]) -> LLMResult[Any] | None:
        offline = self.offline
        if task == "create_episode":
            return completed(offline.create_episode(EpisodeInput(turns=_turns(data["turns"]))))
        if task == "merge_decision":
            return completed(offline.decide_merge(_merge_input(data)))
        if task == "refine_facts":
            return completed(offline.refine_facts(_refine_input(data)))
        if task == "answer":
            return completed(offline.answer(AnswerInput.model_validate(data)))
        if task == plan_prompt.TASK:
            return LLMResult(value=rule_reply(data), usage=Usage.zero("local"))
        return None


def rule_reply(data: Mapping[str, Any]) -> plan_prompt.PlanReply:
    """The planner prompt answered with the rule plan of its question: the LLM planner's machinery
    (HTTP, schema, tokens, checks) runs for real while its plans stay the rules' plans."""
    inp = plan_prompt.PlanInput.model_validate(data)
    plan = plan_question(inp.question, inp.asked_at)
    window = plan.window
    return plan_prompt.PlanReply(
        window_start=window.start.isoformat() if window else None,
        window_end=window.end.isoformat() if window else None,
        window_text=window.text if window else None,
        order=plan.order.value if plan.order is not None else None,
        kind=plan.kind.value,
        entities=plan.entities,
        unresolved=plan.unresolved,
    )


def _task(body: Mapping[str, Any]) -> str | None:
    name = json_schema_field(body, "name")
    return name if isinstance(name, str) else None


def _data_block(body: Mapping[str, Any]) -> dict[str, Any] | None:
    users = [m for m in body.get("messages", []) if isinstance(m, Mapping) and m.get("role") == "user"]
    content = users[-1].get("content") if users else None
    match = _DATA_BLOCK.search(content) if isinstance(content, str) else None
    if match is None:
        return None
    data = json.loads(match[1])
    return data if isinstance(data, dict) else None


def _turns(records: Sequence[Mapping[str, Any]]) -> list[Turn]:
    return [Turn(id=r["id"], speaker=r["speaker"], occurred_at=r["at"], text=r["text"]) for r in records]


def _merge_input(data: Mapping[str, Any]) -> MergeInput:
    episode = data["episode"]
    return MergeInput(
        episode_summary=episode["summary"],
        episode_first_at=episode["first_at"],
        episode_last_at=episode["last_at"],
        new_turns=_turns(data["new_turns"]),
    )


def _refine_input(data: Mapping[str, Any]) -> RefineInput:
    facts = [
        ExistingFact(id=f["id"], text=f["text"], kind=f["kind"], valid_from=f["valid_from"])
        for f in data.get("existing_facts", [])
    ]
    return RefineInput(
        episode_summary=data["episode_summary"], turns=_turns(data["turns"]), existing_facts=facts
    )


# -- answer metrics (LoCoMo's conventions: normalized tokens, no stemming) -----------------------

_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> list[str]:
    """Lower case, no punctuation, no articles (nor "and"), split on whitespace."""
    lowered = str(text).lower().replace(",", "")
    return _ARTICLES.sub(" ", lowered.translate(_PUNCTUATION)).split()


def token_f1(prediction: str, gold: str) -> float:
    predicted, expected = normalize_answer(prediction), normalize_answer(gold)
    if not predicted or not expected:
        return float(predicted == expected)
    overlap = sum((Counter(predicted) & Counter(expected)).values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(predicted), overlap / len(expected)
    return 2 * precision * recall / (precision + recall)


def bleu1(prediction: str, gold: str) -> float:
    """Clipped unigram precision times the brevity penalty (sentence BLEU with weights (1,))."""
    predicted, expected = normalize_answer(prediction), normalize_answer(gold)
    if not predicted or not expected:
        return 0.0
    clipped = sum((Counter(predicted) & Counter(expected)).values())
    precision = clipped / len(predicted)
    brevity = 1.0 if len(predicted) > len(expected) else float(np.exp(1 - len(expected) / len(predicted)))
    return brevity * precision


# -- reporting -----------------------------------------------------------------------------------


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def cell(value: object) -> str:
        return str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
