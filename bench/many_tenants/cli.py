"""Many tenants in one database: recall latency and exactness for fixed probe users while other
tenants' users fill it (issue #16, item 4).

Layouts (default `10000x100,1000x1000`): USERSxPER_USER interactions, the users of each layout in
tenants of `--users-per-tenant` users, no tenant shared between layouts. Texts are generated
topical sentences (each user talks about a few of 40 topics of made-up words), embedded in batches
by the hashing embedder and written through `InteractionStore.write_batch`, one user per batch
(the service's write statement and indexes); nothing is consolidated, so recall's episode and
fact layers are empty and every hit is an interaction.

The probe users (the first `--probes` users of each layout) are loaded first and measured while
the database holds only them (the single-tenant baseline), then again after each checkpoint share
of the whole load. A measurement is `MemoryEngine.recall` (consolidation/recall/recaller.py, lexical view
on) with the per-layer budgets (10/5/10) and with a token budget, for every probe's queries;
exactness compares each recall's dense interaction hits with the exact top k by cosine computed
in numpy over that user's own vectors.

    .venv/bin/python -m bench.many_tenants --neo4j-uri bolt://127.0.0.1:7831 \\
        --neo4j-password "$(cat /tmp/mt-neo4j/password)"

Prints one JSON object on stdout, writes it to --output (bench/results/many_tenants.json) and a
PNG beside it; progress goes to stderr. Use a throwaway database: nothing is deleted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from pathlib import Path

from bench.arguments import add_settle_limit
from bench.commands import shown_command
from bench.machine import machine_info
from bench.many_tenants.measure import TOKENS
from bench.many_tenants.report import draw_chart
from bench.many_tenants.results import Report
from bench.many_tenants.run import run
from graph.recall import EXACT_LIMIT

PROGRAM = "python -m bench.many_tenants"
RESULTS = Path(__file__).resolve().parent.parent / "results" / "many_tenants.json"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=PROGRAM, description=(__doc__ or "").splitlines()[0])
    p.add_argument("--neo4j-uri", required=True)
    p.add_argument("--neo4j-password", default=None)
    p.add_argument("--layouts", default="10000x100,1000x1000", help="USERSxPER_USER, comma separated")
    p.add_argument("--users-per-tenant", type=int, default=100)
    p.add_argument("--probes", type=int, default=10, help="probe users per layout")
    p.add_argument("--queries", type=int, default=5, help="queries per probe user")
    p.add_argument("--rounds", type=int, default=6, help="measured passes over every probe's queries")
    p.add_argument("--warmup-rounds", type=int, default=2, help="unmeasured passes before them")
    p.add_argument("--baseline-warmup-s", type=float, default=180.0, help="warm-up before the baseline")
    p.add_argument("--neo4j-pid", type=int, default=None, help="local Neo4j's pid: settle before measuring")
    add_settle_limit(p, 180.0)
    p.add_argument("--checkpoints", default="0.1,0.5,1.0", help="shares of the load to measure after")
    p.add_argument("--writers", type=int, default=3, help="concurrent write_batch calls")
    p.add_argument("--ingest-limit", type=float, default=1800.0, help="seconds of loading at most")
    p.add_argument("--seed", type=int, default=16)
    p.add_argument("--run-id", default=uuid.uuid4().hex[:8], help="tenant name part (fresh tenants)")
    p.add_argument("--output", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    args.checkpoints = [float(s) for s in args.checkpoints.split(",")]
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    started = time.perf_counter()
    measured = asyncio.run(run(args))
    report: Report = {
        **measured,
        "embedder": "hashing-v2 over generated topical texts (batch embed)",
        "exact_limit": EXACT_LIMIT,
        "settings": {k: v for k, v in vars(args).items() if k not in ("neo4j_password", "output")}
        | {"output": str(args.output), "tokens": TOKENS},
        "machine": machine_info(),
        "total_seconds": round(time.perf_counter() - started, 1),
        "command": shown_command(PROGRAM, sys.argv[1:] if argv is None else argv),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    draw_chart(report, args.output.with_suffix(".png"))
    print(json.dumps(report, indent=2))
