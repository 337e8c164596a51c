"""Service benchmark: `recmem serve` as a real process, measured over HTTP with httpx.

What it measures, per embedder (hashing first, so the store and the API are what is measured; then
all-MiniLM-L6-v2 to show the embedder's share):

- single `remember` latency p50/p99 and throughput: sequential requests, one user, texts that do not
  recur (random word salads over a large pseudo-word vocabulary), so the recurrence gate runs on
  every request but no consolidation fires (checked: every payload's `consolidation.action` must be
  NONE in inline mode). Run once per consolidation mode (`inline`: the gate runs before the answer;
  `background`: the answer follows the durable write, the gate runs in the service's worker);
- batch ingest throughput: `rememberBatch` with batches of MAX_BATCH and `consolidate: false` (the
  bulk-load path: durable write, no gate), interactions per second over the whole load;
- `recall` latency p50/p99 with budgets 10/5/10 for one user per size (1,000 / 10,000 / 100,000
  interactions by default), after a warm-up;
- the service process's peak resident memory (VmHWM) and Neo4j's, per service run;
- an in-process profile of the same operations against the same database (embedding alone, key
  lookup, engine.recall / engine.remember without HTTP), so that a missed target can be attributed
  to the embedder, Neo4j or the GraphQL/HTTP layer.

JSON on stdout (and in --output), progress on stderr. The rate limit is switched off in the service.

    .venv/bin/python -m bench.service --neo4j-home /tmp/svc-neo4j --neo4j-uri bolt://127.0.0.1:7731 \
        --minilm-neo4j-home /tmp/svc-neo4j-minilm --minilm-neo4j-uri bolt://127.0.0.1:7732
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.arguments import add_flag, add_settle_limit, add_switch
from bench.commands import shown_command
from bench.machine import loadavg, machine_info
from bench.service.analysis import (
    attribution,
    embedder_share,
    floors,
    overheads,
    service_auth_cache_s,
    targets,
)
from bench.service.client import BUDGETS
from bench.service.process import Target, resolve_target
from bench.service.report import ROOT, chart, code_version, include_runs, save
from bench.service.results import EmbedderRun, Mode, Report
from bench.service.run import EmbedderBench, RunOptions
from bench.service.stats import iso, log
from bench.service.sweep import SweepPlan, concurrency_sweep

PROGRAM = "python -m bench.service"
DEFAULT_OUTPUT = ROOT / "bench" / "results" / "service.json"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=PROGRAM, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--neo4j-uri", default=os.environ.get("RECMEM_NEO4J_URI"), help="Neo4j for the hashing embedder"
    )
    parser.add_argument("--neo4j-password", default=os.environ.get("RECMEM_NEO4J_PASSWORD"))
    parser.add_argument("--neo4j-home", help="local Neo4j home (password file, memory of the JVM)")
    parser.add_argument("--minilm-neo4j-uri", help="Neo4j for the MiniLM run (a database keeps its embedder)")
    parser.add_argument("--minilm-neo4j-password")
    parser.add_argument("--minilm-neo4j-home")
    parser.add_argument("--embedders", default="hashing,minilm")
    parser.add_argument("--sizes", default="1000,10000,100000", help="interactions per recall user (hashing)")
    parser.add_argument("--minilm-sizes", default="1000", help="interactions per recall user (MiniLM)")
    parser.add_argument(
        "--modes", default="inline,background", help="consolidation modes for single remember"
    )
    parser.add_argument("--queries", type=int, default=200, help="recall queries per size (after warm-up)")
    parser.add_argument("--remember", type=int, default=300, help="single remember requests per mode")
    parser.add_argument("--minilm-remember", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument(
        "--neo4j-warmup",
        type=int,
        default=300,
        help="requests of each kind run first, unmeasured, so that a just-started Neo4j is warm (0: none)",
    )
    parser.add_argument("--max-batch", type=int, default=1000, help="RECMEM_API_MAX_BATCH and the batch size")
    add_settle_limit(parser, 900.0)
    parser.add_argument(
        "--gated-batch", type=int, default=2000, help="also ingest this many with the gate on (0: skip)"
    )
    add_switch(parser, "--profile")
    parser.add_argument("--profile-n", type=int, default=100)
    add_switch(
        parser, "--floors", "measure the database floors (the same statements straight through the driver)"
    )
    parser.add_argument("--floor-n", type=int, default=200, help="samples of each floor (and its request)")
    parser.add_argument(
        "--floor-block",
        type=int,
        default=1,
        help="HTTP requests sent in a row before their floors (1: alternate every request)",
    )
    parser.add_argument(
        "--sweep-writers", default="1,2,4,8,16", help="concurrency sweep levels ('' skips it)"
    )
    parser.add_argument("--sweep-seconds", type=float, default=20.0, help="duration of each sweep level")
    add_switch(
        parser, "--sweep-compare", "run the sweep again with group commit off (RECMEM_GROUP_COMMIT_WAIT_MS=0)"
    )
    parser.add_argument("--group-commit-ms", type=float, default=1.0, help="RECMEM_GROUP_COMMIT_WAIT_MS")
    add_flag(parser, "--sweep-only", "only the concurrency sweep")
    add_flag(
        parser,
        "--metadata-filter",
        "load turns with a metadata topic and also measure recall filtered to one topic",
    )
    parser.add_argument("--chart", help="PNG path (default: the output's path with .png)")
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT))
    parser.add_argument(
        "--include-runs",
        action="append",
        default=[],
        help="merge the runs of an earlier report (JSON) for embedders not run now",
    )
    parser.add_argument("--workdir", help="service logs (default: a temp dir)")
    return parser.parse_args(argv)


def _ints(spec: str) -> list[int]:
    return [int(s) for s in spec.split(",") if s]


MODES: dict[str, Mode] = {"inline": "inline", "background": "background"}


def _modes(spec: str) -> list[Mode]:
    names = [m for m in spec.split(",") if m]
    unknown = [m for m in names if m not in MODES]
    if unknown:
        raise SystemExit(f"unknown consolidation modes {unknown}: use {', '.join(MODES)}")
    return [MODES[m] for m in names]


def run_options(args: argparse.Namespace, embedder: str) -> tuple[RunOptions, list[int]]:
    """The run's options and recall sizes; MiniLM runs fewer writes, one mode, no gated batch."""
    options = RunOptions(
        modes=_modes(args.modes),
        remember=args.remember,
        warmup=args.warmup,
        neo4j_warmup=args.neo4j_warmup,
        max_batch=args.max_batch,
        queries=args.queries,
        settle_limit=args.settle_limit,
        gated_batch=args.gated_batch,
        floors=args.floors,
        floor_n=args.floor_n,
        floor_block=args.floor_block,
        profile=args.profile,
        profile_n=args.profile_n,
        metadata_filter=args.metadata_filter,
    )
    if embedder == "minilm":
        minilm = dataclasses.replace(options, remember=args.minilm_remember, modes=["inline"], gated_batch=0)
        return minilm, _ints(args.minilm_sizes)
    return options, _ints(args.sizes)


def sweep_plan(args: argparse.Namespace) -> SweepPlan:
    return SweepPlan(
        levels=_ints(args.sweep_writers),
        seconds=args.sweep_seconds,
        group_commit_ms=args.group_commit_ms,
        compare=args.sweep_compare,
        max_batch=args.max_batch,
    )


def new_report(args: argparse.Namespace, argv: list[str], started: float) -> Report:
    return {
        "benchmark": "service",
        "started_at": iso(started),
        "machine": machine_info(),
        "code": code_version(),
        "load_average_at_start": loadavg(),
        "command": shown_command(PROGRAM, argv),
        "settings": {
            "rate_limit": "off (RECMEM_API_RATE_LIMIT_PER_S=0)",
            "max_batch": args.max_batch,
            "budgets": BUDGETS,
            "llm": "none (offline consolidator; no consolidation fires on non-recurring texts)",
            "texts": "random word salads (10-20 words) over 20,000 pseudo-words; queries 4-8 words",
            "client": "httpx, one keep-alive connection, sequential requests",
            "auth_cache_s": service_auth_cache_s(),
        },
        "targets": {},
        "runs": {},
    }


def bench_embedder(
    args: argparse.Namespace, report: Report, embedder: str, target: Target, workdir: Path
) -> None:
    options, sizes = run_options(args, embedder)
    log(f"== {embedder} against {target.uri}, sizes {sizes}")

    def checkpoint(partial: EmbedderRun) -> None:
        report["runs"][embedder] = partial
        save(report, args.output, complete=False)

    if not args.sweep_only:
        result = EmbedderBench(options, target, embedder, sizes, workdir, checkpoint).run()
        result["attribution"] = attribution(result)
        result["floors"] = floors(result)
        result["overheads"] = overheads(result)
        checkpoint(result)
    if embedder == "hashing" and args.sweep_writers:
        report["concurrency_sweep"] = concurrency_sweep(sweep_plan(args), target, embedder, workdir)
        save(report, args.output, complete=False)


def main(argv: list[str] | None = None) -> int:
    raw = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(raw)
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="svc-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.time()
    report = new_report(args, raw, started)
    hashing_target = resolve_target(args.neo4j_uri, args.neo4j_password, args.neo4j_home)
    minilm_target = resolve_target(args.minilm_neo4j_uri, args.minilm_neo4j_password, args.minilm_neo4j_home)
    for embedder in [e for e in args.embedders.split(",") if e]:
        target = minilm_target if embedder == "minilm" and minilm_target else hashing_target
        if target is None:
            raise SystemExit("no Neo4j: pass --neo4j-uri / --neo4j-home")
        bench_embedder(args, report, embedder, target, workdir)
    for path in args.include_runs:
        include_runs(report, path)
    finish(args, report, started)
    return 0


def finish(args: argparse.Namespace, report: Report, started: float) -> None:
    hashing, minilm = report["runs"].get("hashing"), report["runs"].get("minilm")
    report["targets"] = targets(hashing)
    if hashing and minilm:
        report["embedder_share"] = embedder_share(hashing, minilm)
    report["wall_s"] = round(time.time() - started, 1)
    report["load_average_at_end"] = loadavg()
    text = save(report, args.output, complete=True)
    log(f"wrote {args.output}")
    png = Path(args.chart) if args.chart else (Path(args.output).with_suffix(".png") if args.output else None)
    if png is not None:
        chart(report, png)
        log(f"wrote {png}")
    print(text)
