"""GraphQL fuzz run (issue #12): generated documents and bodies over HTTP and graphql-transport-ws
against a running service; zero 5xx, zero hangs, zero writes from rejected requests, a code on
every error, and a healthy service afterwards.

Either against a service you run (`--url` and `--key`; writes are counted through the API), or it
starts `recmem serve` itself against a Neo4j (`--neo4j-uri`, as bench/service does; a key is
created for a fresh tenant):

    .venv/bin/python -m bench.fuzz_graphql --neo4j-uri bolt://127.0.0.1:7687 --seed 1 --count 10000

The JSON summary goes to stdout and to bench/results/fuzz.json. Exit status 1 when a check fails.
The cases and the runner are in bench/fuzz/.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from api.settings import BODY_ROOM
from bench.commands import shown_command
from bench.fuzz.documents import load_schema
from bench.fuzz.generate import case
from bench.fuzz.health import Health
from bench.fuzz.outcome import Outcome
from bench.fuzz.runner import Fuzzer
from bench.fuzz.summary import Summary, failed, summarize
from bench.service.process import create_key, resolve_target, running_service

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = ROOT / "bench" / "results" / "fuzz.json"
PROGRAM = ".venv/bin/python -m bench.fuzz_graphql"
# The body cap of the service started here (RECMEM_API_MAX_BODY_BYTES): smaller than the default
# 4 MiB so that 10,000 cases, a tenth of them at or over the cap, run in minutes.
DEFAULT_MAX_BODY = 256 * 1024


@dataclass(frozen=True)
class Args:
    seed: int
    count: int
    url: str | None
    key: str | None
    neo4j_uri: str | None
    neo4j_password: str | None
    neo4j_home: str | None
    max_body_bytes: int
    timeout: float
    lanes: int
    output: str


def log(message: str) -> None:
    print(f"[fuzz {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


async def fuzz(args: Args, url: str, keys: list[str]) -> Summary:
    """One lane per key (its own tenant, so that each lane's write check stays its own), each
    sending its share of the cases one at a time."""
    started = time.monotonic()
    schema = load_schema()
    lanes = len(keys)
    done = [0]
    step = max(1, args.count // 20)

    def progress(_: int) -> None:
        done[0] += 1
        if done[0] % step == 0:
            log(f"{done[0]}/{args.count}")

    async def lane(number: int, key: str) -> tuple[list[Outcome], int, Health]:
        # Made one at a time: oversized cases are megabytes each.
        batch = (case(args.seed, i, schema, args.max_body_bytes) for i in range(number, args.count, lanes))
        fuzzer = Fuzzer(url, key, timeout_s=args.timeout)
        try:
            outcomes = await fuzzer.run(batch, progress)
            return outcomes, fuzzer.unattributed_writes, await fuzzer.health()
        finally:
            await fuzzer.close()

    results = await asyncio.gather(*(lane(n, key) for n, key in enumerate(keys)))
    outcomes = sorted((o for r in results for o in r[0]), key=lambda o: o.case.index)
    summary = summarize(outcomes, sum(r[1] for r in results))
    healths = [r[2] for r in results]
    summary["health"] = {**healths[0], "ok": all(h["ok"] for h in healths)}
    summary["lanes"] = lanes
    summary["seed"] = args.seed
    summary["wall_s"] = round(time.monotonic() - started, 1)
    summary["command"] = shown_command(PROGRAM, sys.argv[1:])
    summary["problems"] = failed(summary)
    return summary


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--url", help="a running service (with --key); else one is started")
    parser.add_argument("--key", help="an API key of the running service")
    parser.add_argument("--neo4j-uri", default=os.environ.get("RECMEM_NEO4J_URI"))
    parser.add_argument("--neo4j-password", default=os.environ.get("RECMEM_NEO4J_PASSWORD"))
    parser.add_argument("--neo4j-home", help="local Neo4j home (for its password file)")
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=DEFAULT_MAX_BODY,
        help="the service's body cap (set on the service started here; give the real one with --url)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds before a case counts as a hang")
    parser.add_argument(
        "--lanes", type=int, default=4, help="concurrent senders, one tenant each (1 with --url)"
    )
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT))
    return Args(**vars(parser.parse_args(argv)))


def run(args: Args) -> Summary:
    """Against --url, or against a service started here on the given Neo4j."""
    if args.url:
        if not args.key:
            raise SystemExit("--url needs --key")
        return asyncio.run(fuzz(args, args.url, [args.key]))
    target = resolve_target(args.neo4j_uri, args.neo4j_password, args.neo4j_home)
    if target is None:
        raise SystemExit("give --url and --key, or --neo4j-uri / --neo4j-home")
    keys = [create_key(target, f"fuzz-{uuid.uuid4().hex[:8]}") for _ in range(max(1, args.lanes))]
    # The longest text the cap leaves room for (the service refuses to start with less).
    text = max(1, (args.max_body_bytes - BODY_ROOM) // 2)
    cap = {"RECMEM_API_MAX_BODY_BYTES": str(args.max_body_bytes), "RECMEM_MAX_TEXT_BYTES": str(text)}
    with (
        tempfile.TemporaryDirectory(prefix="fuzz-") as workdir,
        running_service(target, "hashing", "inline", 1000, Path(workdir), extra_env=cap) as service,
    ):
        return asyncio.run(fuzz(args, service.base, keys))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    summary = run(args)
    text = json.dumps(summary, indent=2, ensure_ascii=False)
    print(text)
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text + "\n")
    problems = summary.get("problems", [])
    for problem in problems:
        log(f"FAILED {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
