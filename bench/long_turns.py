"""Write throughput on long turns: the long turns of a LoCoMo-format file (LongMemEval's assistant
answers), written in batches and one at a time, with their parts and without.

The embedder is the hashing one (vectors in microseconds), so the figures are the write path's
own cost: checks, parts, the statement, Neo4j. `--no-parts` writes the same turns as if no turn
were long (the cost before parts). Each run gets a fresh tenant; nothing consolidates.

    python -m bench.long_turns --data ../shared/data/longmemeval/lme-s-dev.json --neo4j-uri ...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.commands import shown_command
from bench.locomo.data import load_samples
from bench.locomo.endpoints import neo4j_settings
from bench.machine import machine_info
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.settings import EngineSettings
from consolidation.types import Unit
from consolidation.writing import parts
from graph.database import Database
from graph.models import Owner
from graph.schema import migrate

PROGRAM = "python -m bench.long_turns"
DIMENSION = 384
TEMPLATE = "{text}"


@dataclass(frozen=True)
class Args:
    data: Path
    turns: int
    batch: int
    no_parts: bool
    neo4j_uri: str | None
    neo4j_password: str | None


def parse_args(argv: Sequence[str]) -> Args:
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--turns", type=int, default=300, help="how many of the longest turns")
    parser.add_argument("--batch", type=int, default=50, help="turns per write in the batched run")
    parser.add_argument("--no-parts", action="store_true", help="write every turn without parts")
    parser.add_argument("--neo4j-uri", default=None)
    parser.add_argument("--neo4j-password", default=None)
    return Args(**vars(parser.parse_args(argv)))


async def run(args: Args, argv: Sequence[str]) -> dict[str, object]:
    units = sorted(
        (u for s in load_samples(args.data) for u in s.units if len(u.text) > parts.LONG_CHARS),
        key=lambda u: -len(u.text),
    )[: args.turns]
    if args.no_parts:
        parts.LONG_CHARS = 1 << 30  # the engine then cuts no turn into parts
    db = Database.connect(neo4j_settings(args))
    try:
        await migrate(db, "hashing-v2", DIMENSION, TEMPLATE)
        settings = EngineSettings(embedding_template=TEMPLATE, consolidation_mode="inline")
        engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), settings)
        batched = await _timed(engine, units, args.batch)
        single = await _timed(engine, units[: max(1, len(units) // 5)], 1)
    finally:
        await db.close()
    stored = [parts.part_spans(u.text) for u in units]
    return {
        "benchmark": "long_turns",
        "command": shown_command(PROGRAM, argv),
        "parts": not args.no_parts,
        "turns": len(units),
        "chars": {
            "mean": round(sum(len(u.text) for u in units) / max(1, len(units))),
            "max": len(units[0].text),
        },
        "parts_per_turn": round(sum(len(s) for s in stored) / max(1, len(units)), 2),
        f"batch_{args.batch}": batched,
        "one_at_a_time": single,
        "machine": machine_info(),
    }


async def _timed(engine: MemoryEngine, units: Sequence[Unit], batch: int) -> dict[str, float]:
    owner = Owner(f"long-{uuid.uuid4().hex[:8]}", "u")
    latencies = []
    started = time.perf_counter()
    for start in range(0, len(units), batch):
        began = time.perf_counter()
        await engine.remember_batch(owner, units[start : start + batch], consolidate=False)
        latencies.append(time.perf_counter() - began)
    wall = time.perf_counter() - started
    latencies.sort()
    return {
        "turns": len(units),
        "wall_s": round(wall, 2),
        "turns_per_s": round(len(units) / wall, 1),
        "write_p50_s": round(latencies[len(latencies) // 2], 3),
        "write_max_s": round(latencies[-1], 3),
    }


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    report = asyncio.run(run(parse_args(arguments), arguments))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
