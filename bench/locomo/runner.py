"""Runs the modes over the samples against one database, embedder and LLM endpoint: streams each
sample in a fresh tenant, then asks its questions."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from rich.progress import Progress

from bench.common import CachedEmbedder, count_tokens
from bench.locomo.answers import answer_and_judge
from bench.locomo.console import console
from bench.locomo.construction import Construction, consolidated_count, run_costs, usage_slice
from bench.locomo.contexts import context_hash
from bench.locomo.data import Question, Sample, session_of
from bench.locomo.modes import (
    MATCH_POOL,
    MATCHED,
    PLANNED,
    RAW_BATCH,
    UNCONSOLIDATED,
    Options,
    mode_settings,
)
from bench.locomo.planner_tally import PlannerTally
from bench.locomo.results import Skipped
from bench.locomo.scoring import (
    QuestionResult,
    answer_in_evidence,
    ranked_sessions,
    reached_interactions,
    recalled_context,
    resolve_evidence,
    score_context,
    score_question,
    session_recall,
    token_prefix,
)
from consolidation.consolidating.llm_consolidator import LLMConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.llm import LanguageModel, build_language_model
from consolidation.settings import EngineSettings, LLMSettings
from consolidation.types import Budgets, Remembered, Unit
from graph.database import Database
from graph.errors import InvalidInput
from graph.models import Interaction, Owner
from local_llm_server import LocalLLMServer

# The recall whose items rank a question's sessions (session-level recall at 5 and 10).
SESSION_POOL = Budgets(50, 10, 10)


def sessions_by_id(sample: Sample, ids: Mapping[str, str]) -> dict[str, int]:
    """Interaction id -> the session number of the dia_ids its unit holds."""
    found: dict[str, int] = {}
    for dia_id, ref in sample.refs.items():
        session = session_of(dia_id)
        if session is not None and ref in ids:
            found[ids[ref]] = session
    return found


class Bench:
    """Runs the modes over the samples against one database, embedder and LLM endpoint."""

    def __init__(
        self,
        db: Database,
        embedder: CachedEmbedder,
        llm: LLMSettings,
        server: LocalLLMServer | None,
        base: EngineSettings,
        options: Options,
        progress: Progress,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.server = server
        self.base = base
        self.options = options
        self.progress = progress
        model = build_language_model(llm)
        if model is None:
            raise SystemExit("no LLM endpoint configured (RECMEM_LLM_BASE_URL / RECMEM_LLM_API_KEY)")
        self.model: LanguageModel = model
        self.consolidator = LLMConsolidator(model)
        self.tenant = f"locomo-{datetime.now(UTC):%Y%m%d%H%M%S}-{uuid.uuid4().hex[:6]}"
        # recmem's context size per (sample, question), for the token-matched raw recall.
        self.context_budget: dict[tuple[str, int], int] = {}
        self.matched: list[QuestionResult] = []
        self.matched_s = 0.0  # kept out of raw's recall wall time
        # --planner both: each mode's questions recalled again with the rule planner.
        self.planned: dict[str, list[QuestionResult]] = {}
        # What the run left out and why: a refused unit or a failed question never stops it.
        self.skipped: list[Skipped] = []
        # Every recall's plan of the questions' rows: sources, fallbacks, the LLM planner's tokens.
        self.planner = PlannerTally()

    def engine(self, mode: str, planner: str | None = None) -> MemoryEngine:
        """The mode's engine, with `planner` or else the run's (--planner both: off)."""
        chosen = planner or ("off" if self.options.planner == "both" else self.options.planner)
        settings = mode_settings(mode, self.base).model_copy(update={"planner": chosen})
        return MemoryEngine(self.db, self.embedder, self.consolidator, settings, planner_model=self.model)

    async def add_other_tenants(self, samples: Sequence[Sample], copies: int) -> None:
        """Copies of the same conversations in `copies` other tenants, written before any mode
        runs: a user's dense hits must not move because other tenants hold similar data."""
        engine = self.engine("raw")
        for copy in range(copies):
            for sample in samples:
                owner = Owner(f"{self.tenant}-other{copy}", sample.name)
                for start in range(0, len(sample.units), RAW_BATCH):
                    await engine.remember_batch(
                        owner, sample.units[start : start + RAW_BATCH], consolidate=False
                    )

    async def run_mode(
        self, mode: str, samples: Sequence[Sample]
    ) -> tuple[Construction, list[QuestionResult], float]:
        engine = self.engine(mode)
        total = Construction()
        results: list[QuestionResult] = []
        recall_s = 0.0
        for sample in samples:
            owner = Owner(f"{self.tenant}-{mode}", sample.name)
            built, ids = await self.ingest(engine, owner, sample, mode)
            total.add(built)
            started, matching = time.perf_counter(), self.matched_s
            results += await self.ask(engine, owner, sample, ids, mode)
            recall_s += time.perf_counter() - started - (self.matched_s - matching)
        return total, results, round(recall_s, 2)

    async def ingest(
        self, engine: MemoryEngine, owner: Owner, sample: Sample, mode: str
    ) -> tuple[Construction, dict[str, str]]:
        task = self.progress.add_task(f"{mode:6} {sample.name} ingest", total=len(sample.units))
        log_start = len(self.server.usage_log) if self.server else 0
        started = time.perf_counter()
        ids: dict[str, str] = {}
        built = Construction(units=len(sample.units))
        # Every mode writes in batches: a consolidating batch is covered by one inline pass that
        # decides its turns in stream order (one lease, one pending read), as one unit per write
        # did at several round trips per turn (docs/benchmarks/longmemeval.md#write-throughput).
        for start in range(0, len(sample.units), RAW_BATCH):
            chunk = sample.units[start : start + RAW_BATCH]
            written = await self.remember(engine, owner, sample, chunk, mode)
            for unit, item in written:
                ids[str(unit.source_ref)] = item.interaction_id
                outcome = item.consolidation
                action = outcome.action if outcome else "none"
                # A turn an episode absorbed in its own write batch carries that episode's
                # outcome: only the turn that opened the gate (or the merge) triggered it.
                trigger = outcome is not None and outcome.trigger_id == item.interaction_id
                built.triggered += trigger and action in ("created", "merged")
                built.salient += trigger and outcome is not None and outcome.salience is not None
                built.deferred += action == "deferred"
            self.progress.advance(task, len(chunk))
        if mode not in UNCONSOLIDATED:
            # The stream's last session is over: a service's sweeper would merge the turns still
            # waiting for a batch merge once it went quiet (merge_quiet_seconds).
            flushed = await engine.consolidate(owner, wait=True, flush=True)
            built.triggered += sum(o.action in ("created", "merged") for o in flushed)
        built.wall_s = round(time.perf_counter() - started, 3)
        built.by_op = await run_costs(self.db, owner)
        built.consolidated = await consolidated_count(self.db, owner)
        logged = usage_slice(self.server, log_start)
        if logged is not None:
            built.http_calls, built.http_prompt_tokens, built.http_completion_tokens = logged
        return built, ids

    async def remember(
        self, engine: MemoryEngine, owner: Owner, sample: Sample, chunk: Sequence[Unit], mode: str
    ) -> list[tuple[Unit, Remembered]]:
        """The chunk written; when it is refused, its units one at a time, each refused one skipped
        and reported (the rest of the run goes on)."""
        consolidate = mode not in UNCONSOLIDATED
        try:
            return list(
                zip(chunk, await engine.remember_batch(owner, chunk, consolidate=consolidate), strict=True)
            )
        except InvalidInput:
            if len(chunk) == 1:
                raise
        written: list[tuple[Unit, Remembered]] = []
        for unit in chunk:
            try:
                written += [(unit, (await engine.remember_batch(owner, [unit], consolidate=consolidate))[0])]
            except InvalidInput as refused:
                self.skip(mode, sample, f"unit {unit.source_ref}", refused)
        return written

    def skip(self, mode: str, sample: Sample, what: str, error: Exception) -> None:
        reason = f"{type(error).__name__}: {error}"
        self.skipped.append({"mode": mode, "sample": sample.name, "what": what, "reason": reason})
        console.print(f"[yellow]skipped[/] {mode} {sample.name} {what}: {reason}")

    async def ask(
        self, engine: MemoryEngine, owner: Owner, sample: Sample, ids: Mapping[str, str], mode: str
    ) -> list[QuestionResult]:
        task = self.progress.add_task(f"{mode:6} {sample.name} recall", total=len(sample.questions))
        results = []
        planning = self.engine(mode, "rules") if self.options.planner == "both" else None
        sessions = sessions_by_id(sample, ids)
        for question in sample.questions:
            evidence_ids = resolve_evidence(question.evidence, sample.refs, ids)
            try:
                result = await self.question(engine, owner, sample, question, evidence_ids, mode)
                result.session_recall = await self.sessions(engine, owner, question, sessions, mode)
                await self.match_context(engine, owner, sample, question, result, evidence_ids)
            except Exception as error:  # one question must not end the run: reported instead
                self.skip(mode, sample, f"question {question.index}", error)
                continue
            finally:
                self.progress.advance(task)
            results.append(result)
            if planning is not None:
                planned = await self.question(
                    planning, owner, sample, question, evidence_ids, mode, row=mode + PLANNED
                )
                self.planned.setdefault(mode + PLANNED, []).append(replace(planned, mode=mode + PLANNED))
        return results

    async def sessions(
        self, engine: MemoryEngine, owner: Owner, question: Question, sessions: Mapping[str, int], mode: str
    ) -> dict[str, float | None]:
        """Whether a gold session (of the evidence dia_ids) is among the top 5 and 10 sessions,
        ranked by their best-ranked item in a wide recall."""
        gold = {s for d in question.evidence if (s := session_of(d)) is not None}
        pool = await engine.recall(
            owner, question.question, budgets=SESSION_POOL, include_consolidated=mode in UNCONSOLIDATED
        )
        return session_recall(gold, ranked_sessions(pool, sessions))

    async def question(
        self,
        engine: MemoryEngine,
        owner: Owner,
        sample: Sample,
        question: Question,
        evidence_ids: Sequence[str],
        mode: str,
        row: str | None = None,
    ) -> QuestionResult:
        """Recall with the default budgets, then at each token budget; raw's dense hits; answers.
        With --contexts, each context's text goes to that file, under `row` (default: the mode)."""
        unconsolidated = mode in UNCONSOLIDATED
        recall = await engine.recall(
            owner,
            question.question,
            budgets=self.options.budgets,
            include_consolidated=unconsolidated,
            asked_at=question.asked_at,
        )
        self.planner.add(recall.plan)
        reached, share, per_layer = score_question(question, evidence_ids, reached_interactions(recall))
        result = QuestionResult(
            mode=mode,
            sample=sample.name,
            index=question.index,
            category=question.category,
            question=question.question,
            evidence=question.evidence,
            lme_type=question.lme_type,
            resolved=len(evidence_ids),
            reached=reached,
            recall=share,
            context_tokens=count_tokens(recalled_context(recall)),
            reached_by_layer=per_layer,
            answer_in_evidence=answer_in_evidence(question, sample),
        )
        for budget in self.options.token_budgets:
            assembled = await engine.recall(
                owner,
                question.question,
                tokens=budget,
                include_consolidated=unconsolidated,
                asked_at=question.asked_at,
            )
            self.planner.add(assembled.plan)
            assert assembled.context is not None
            result.at_tokens[str(budget)] = score_context(question, evidence_ids, assembled.context)
            result.nothing_relevant[str(budget)] = assembled.context.nothing_relevant
            result.context_hashes[str(budget)] = context_hash(assembled.context.text)
            self.keep_context(row or mode, sample, question, budget, assembled.context.text)
        if mode == "raw":
            result.dense_refs = await self.dense_refs(engine, owner, question)
        if self.options.answers:
            await answer_and_judge(engine, self.model, owner, question, recall, result)
        return result

    def keep_context(self, row: str, sample: Sample, question: Question, budget: int, text: str) -> None:
        """One JSON line per scored context in the --contexts file, to read what a mode showed."""
        if self.options.contexts is None:
            return
        line = {"mode": row, "sample": sample.name, "index": question.index, "budget": budget, "text": text}
        with self.options.contexts.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")

    async def dense_refs(self, engine: MemoryEngine, owner: Owner, question: Question) -> list[str]:
        """The source refs of the 10 vector-only hits (comparable across databases)."""
        dense = await engine.recall(
            owner, question.question, budgets=Budgets(10, 0, 0), include_consolidated=True, lexical=False
        )
        return [str(h.item.source_ref) for h in dense.subconscious if isinstance(h.item, Interaction)]

    async def match_context(
        self,
        engine: MemoryEngine,
        owner: Owner,
        sample: Sample,
        question: Question,
        result: QuestionResult,
        evidence_ids: Sequence[str],
    ) -> None:
        """recmem: note its context size; raw: recall again within that many tokens."""
        key = (sample.name, question.index)
        if result.mode == "recmem":
            self.context_budget[key] = result.context_tokens
            return
        if result.mode != "raw" or key not in self.context_budget:
            return
        started = time.perf_counter()
        pool = await engine.recall(
            owner, question.question, budgets=Budgets(MATCH_POOL, 0, 0), include_consolidated=True
        )
        hits = token_prefix(pool.subconscious, self.context_budget[key])
        reached, share, per_layer = score_question(
            question, evidence_ids, {"subconscious": {i for h in hits for i in h.interaction_ids}}
        )
        context = "\n".join(h.text for h in hits)
        self.matched.append(
            replace(
                result,
                mode=MATCHED,
                reached=reached,
                recall=share,
                context_tokens=count_tokens(context),
                reached_by_layer=per_layer,
                prediction=None,
                gold=None,
                f1=None,
                bleu1=None,
                judge=None,
            )
        )
        self.matched_s += time.perf_counter() - started
