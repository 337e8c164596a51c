"""`python -m bench.locomo`: load, prepare, run every mode, report."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import UTC, datetime

from bench.commands import shown_command
from bench.common import CachedEmbedder
from bench.locomo.args import Args, parse_args
from bench.locomo.calibration import base_settings, prepare
from bench.locomo.console import console, progress_bar
from bench.locomo.construction import Construction
from bench.locomo.contexts import compare_contexts
from bench.locomo.data import ADVERSARIAL, CATEGORIES, Sample, load_samples
from bench.locomo.endpoints import llm_endpoint, neo4j_settings
from bench.locomo.markdown import markdown_report
from bench.locomo.modes import MATCHED, UNCONSOLIDATED, Options, mode_settings, thresholds
from bench.locomo.report import build_report, write_outputs
from bench.locomo.results import ComparedReport, Comparisons, Meta, Report
from bench.locomo.runner import Bench
from bench.locomo.scoring import QuestionResult
from bench.locomo.targets import compare_dense
from bench.machine import machine_info
from consolidation.providers.calibration import REFERENCE_THETA_SIM, Calibration
from consolidation.providers.embedders import build_embedder
from consolidation.settings import EmbedderSettings, LLMSettings
from graph.database import Database
from graph.schema import migrate

COMMAND = "python -m bench.locomo"


async def run(args: Args, argv: Sequence[str]) -> Report:
    started = time.perf_counter()
    categories = [ADVERSARIAL] if args.adversarial else list(CATEGORIES)
    samples = load_samples(
        args.data, names=args.samples, unit=args.unit, limit_turns=args.limit_turns, categories=categories
    )
    embedder = CachedEmbedder(build_embedder(EmbedderSettings(kind=args.embedder)), args.embedding_cache)
    calibration, theta_sim, timings = await prepare(args, samples, embedder)
    base = base_settings(args, theta_sim, calibration)
    db = Database.connect(neo4j_settings(args))
    constructions: dict[str, Construction] = {}
    questions: dict[str, list[QuestionResult]] = {}
    recall_s: dict[str, float] = {}
    try:
        await db.ping()
        await migrate(db, embedder.name, embedder.dimension, base.embedding_template)
        with llm_endpoint(args.llm, args.replies) as (llm, server), progress_bar(args.quiet) as progress:
            if args.contexts is not None:
                args.contexts.parent.mkdir(parents=True, exist_ok=True)
                args.contexts.write_text("", encoding="utf-8")
            options = Options(
                args.answers, token_budgets=args.token_budgets, planner=args.planner, contexts=args.contexts
            )
            bench = Bench(db, embedder, llm, server, base, options, progress)
            await bench.add_other_tenants(samples, args.other_tenants)
            for mode in args.modes:
                constructions[mode], questions[mode], recall_s[mode] = await bench.run_mode(mode, samples)
            meta = _meta(args, argv, samples, calibration, theta_sim, llm, bench, timings, started)
    finally:
        await db.close()
    variants = {MATCHED: bench.matched, **bench.planned}
    report = build_report(meta, constructions, questions, recall_s, variants, bench.skipped)
    if bench.skipped:
        console.print(f"[yellow]{len(bench.skipped)} skipped[/] (listed under `skipped` in the JSON)")
    comparisons: Comparisons = {}
    if args.compare_dense is not None and "raw" in questions:
        comparisons["dense_hits_vs_other_run"] = compare_dense(questions["raw"], args.compare_dense)
    if args.compare_contexts is not None:
        every = [r for rows in (*questions.values(), *variants.values()) for r in rows]
        comparisons["contexts_vs_other_run"] = compare_contexts(every, args.compare_contexts)
    if comparisons:
        report = ComparedReport(**report, **comparisons)
    write_outputs(report, {**questions, **variants}, args.out, args.name)
    return report


def _meta(
    args: Args,
    argv: Sequence[str],
    samples: Sequence[Sample],
    calibration: Calibration | None,
    theta_sim: float,
    llm: LLMSettings,
    bench: Bench,
    timings: Mapping[str, float],
    started: float,
) -> Meta:
    return {
        "benchmark": "locomo",
        "command": shown_command(COMMAND, argv),
        "data": str(args.data),
        "samples": [s.name for s in samples],
        "unit": args.unit,
        "units": sum(len(s.units) for s in samples),
        "questions": sum(len(s.questions) for s in samples),
        "categories": CATEGORIES,
        "embedder": bench.embedder.name,
        "llm": {
            "kind": args.llm,
            "model": llm.model,
            "replies": args.replies if args.llm == "local" else "model",
            "answers": args.answers,
        },
        "tenant": bench.tenant,
        "budgets": asdict(bench.options.budgets),
        "token_budgets": list(bench.options.token_budgets),
        "other_tenants": args.other_tenants,
        "embedding_template": bench.base.embedding_template,
        "theta_sim": {
            "used": theta_sim,
            "source": "given" if args.theta_sim is not None else "calibrated",
            "recmem_default": REFERENCE_THETA_SIM,
        },
        "calibration": calibration.to_json() if calibration else None,
        "thresholds": {
            m: thresholds(mode_settings(m, bench.base), bench.embedder.name)
            for m in args.modes
            if m not in UNCONSOLIDATED
        },
        "planner": {"kind": args.planner, **bench.planner.stats()},
        "wall_s": {**timings, "total": round(time.perf_counter() - started, 1)},
        "machine": machine_info(),
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(arguments)
    report = asyncio.run(run(args, arguments))
    print(json.dumps(report, indent=2))
    console.print(markdown_report(report))
    return 0
