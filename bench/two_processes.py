"""Two `recmem serve` processes share one Neo4j and its backlog (#16 item 5): 8 writers of single
`remember` split between them for 60 s on a topical stream (5 topics each user keeps returning to,
so the recurrence gate and merge-first fire), background mode with the engine's defaults and the
offline consolidator; then the tenant's backlog once a second until it is 0.

The figure is the pending work (interactions the gate has not yet seen) 60 s after the writers
stop; turns waiting for their episode's batch merge are reported beside it (they wait by design,
recallable, until their batch fills or the session goes quiet). Every acknowledged write is checked
stored exactly once, with seq exact per user.

    python -m bench.two_processes --neo4j-uri bolt://127.0.0.1:7687 --neo4j-password secret
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from bench.commands import shown_command
from bench.machine import loadavg, machine_info
from bench.service.process import Target, create_key, resolve_target, running_service
from bench.service.stats import log, summary
from bench.service.sweep import level_users, run_level, stored_once
from graph.cypher import statement
from graph.database import Database
from graph.settings import Neo4jSettings

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "two_processes.json"
LABEL = "two-processes"


class Sample(TypedDict):
    after_s: float
    pending: int
    waiting: int


async def drain(target: Target, tenant: str, limit_s: float, every_s: float = 1.0) -> list[Sample]:
    """The tenant's backlog (pending and waiting interactions, read straight from the graph) from
    the writers' stop until nothing is pending, or `limit_s` has passed; one connection for all."""
    db = Database.connect(Neo4jSettings(uri=target.uri, password=target.password))
    start = time.perf_counter()
    samples: list[Sample] = []
    try:
        while True:
            result = await db.driver.execute_query(
                statement("queries/bench/tenant_backlog"), tenant=tenant, database_=db.name
            )
            row = result.records[0]
            after = round(time.perf_counter() - start, 1)
            samples.append({"after_s": after, "pending": int(row["pending"]), "waiting": int(row["waiting"])})
            if row["pending"] == 0 or after >= limit_s:
                return samples
            await asyncio.sleep(every_s)
    finally:
        await db.close()


def pending_at(samples: list[Sample], after_s: float) -> int:
    """Pending work at `after_s` after the stop: the last sample taken by then (0 once drained)."""
    return next((s["pending"] for s in reversed(samples) if s["after_s"] <= after_s), samples[0]["pending"])


def run(args: argparse.Namespace) -> dict[str, object]:
    target = resolve_target(args.neo4j_uri, args.neo4j_password, args.neo4j_home)
    if target is None:
        raise SystemExit("give --neo4j-uri (and --neo4j-password) or --neo4j-home")
    tenant = f"{LABEL}-{uuid.uuid4().hex[:8]}"
    key = create_key(target, tenant)
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        services = [
            stack.enter_context(running_service(target, "hashing", "background", 1000, workdir))
            for _ in range(args.processes)
        ]
        bases = [s.base for s in services]
        log(f"{args.writers} writers x {args.seconds:g} s over {len(bases)} processes")
        level = asyncio.run(run_level(bases, key, tenant, LABEL, args.writers, args.seconds))
        log(f"  {len(level.acked)} acknowledged; draining")
        samples = asyncio.run(drain(target, tenant, args.drain_limit))
    users = level_users(LABEL, args.writers)
    check = asyncio.run(stored_once(target.uri, target.password, tenant, level, users))
    at_60 = pending_at(samples, 60.0)
    drained = samples[-1]["pending"] == 0
    return {
        "processes": args.processes,
        "writers": args.writers,
        "seconds": args.seconds,
        "users": len(users),
        "texts": "topical (5 topics a user keeps returning to), so the gate and merge-first fire",
        "consolidation": "background mode, the engine's defaults, offline consolidator (no LLM)",
        "acknowledged": len(level.acked),
        "per_s": round(len(level.acked) / level.wall_s, 1),
        "ack": summary(level.latencies_ms),
        "errors": level.errors,
        "pending_at_stop": samples[0]["pending"],
        "waiting_at_stop": samples[0]["waiting"],
        "pending_60s_after_stop": at_60,
        "seconds_to_no_pending": samples[-1]["after_s"] if drained else None,
        "waiting_when_drained": samples[-1]["waiting"],
        "backlog_samples": samples,
        **check,
        "target": {
            "pending_60s_after_stop_max": 0,
            "met": at_60 == 0 and check["every_acknowledged_stored_once"],
        },
        "load_average_after": loadavg(),
        "machine": machine_info(),
        "command": shown_command("python -m bench.two_processes", sys.argv[1:]),
    }


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.two_processes", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--neo4j-uri", default=None)
    parser.add_argument("--neo4j-password", default=None)
    parser.add_argument("--neo4j-home", default=None, help="a local server's home (reads its password)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--drain-limit", type=float, default=300.0, help="stop sampling after this long")
    parser.add_argument("--workdir", default="/tmp/recmem-two-processes", help="the services' logs")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    report = run(args)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k not in ("backlog_samples", "machine")}, indent=2))
    return 0 if report["target"]["met"] else 1  # type: ignore[index]


if __name__ == "__main__":
    raise SystemExit(main())
