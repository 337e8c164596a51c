"""What one `forgetInteraction` costs on a realistic memory: its statements, their time, and the
time of each phase (plan, lease, rebuild, the erasing transaction).

A user gets `--turns` turns of a LoCoMo-format file (several samples in a row, each sample's
source refs and sessions prefixed), written in batches by the engine with the offline
consolidator inline, so episodes and facts exist as a benchmark builds them. Then the turn with
the most derived beliefs and a turn with none are forgotten, each through `Forgetter` as the API
calls it. Every named statement is counted and timed (`Database.read` and the `run` of each
statement inside a transaction). Each run gets a fresh tenant.

    python -m bench.forget_cost --data ../shared/data/locomo/locomo-dev.json --neo4j-uri ...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import unicodedata
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import graph.database
import graph.forget
from bench.commands import shown_command
from bench.common import CachedEmbedder
from bench.locomo.data import load_samples
from bench.locomo.endpoints import neo4j_settings
from bench.machine import machine_info
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.forgetting.forgetter import Forgetter
from consolidation.providers.embedders import build_embedder
from consolidation.settings import EmbedderSettings, EngineSettings
from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from graph.schema import migrate
from graph.validation import INVISIBLE

PROGRAM = "python -m bench.forget_cost"
T = TypeVar("T")


@dataclass(frozen=True)
class Args:
    data: Path
    turns: int
    batch: int
    forgets: int
    embedder: str
    tenant: str | None
    neo4j_uri: str | None
    neo4j_password: str | None


def parse_args(argv: Sequence[str]) -> Args:
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format file")
    parser.add_argument("--turns", type=int, default=2000, help="turns the user gets")
    parser.add_argument("--batch", type=int, default=10, help="turns per remember_batch")
    parser.add_argument("--forgets", type=int, default=3, help="turns forgotten of each kind")
    parser.add_argument("--embedder", choices=("minilm", "hashing"), default="minilm")
    parser.add_argument(
        "--tenant", default=None, help="forget more turns of a user an earlier run built (no ingest)"
    )
    parser.add_argument("--neo4j-uri", default=None)
    parser.add_argument("--neo4j-password", default=None)
    return Args(**vars(parser.parse_args(argv)))


@dataclass
class Statements:
    """Named statements run while recording: how many of each and their summed time."""

    recording: bool = False
    calls: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        if self.recording:
            self.calls[name] = self.calls.get(name, 0) + 1
            self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def report(self) -> dict[str, Any]:
        slowest = sorted(self.seconds, key=lambda n: -self.seconds[n])
        return {
            "statements": sum(self.calls.values()),
            "statement_s": round(sum(self.seconds.values()), 3),
            "by_statement": {
                name.removeprefix("queries/"): {
                    "calls": self.calls[name],
                    "ms": round(self.seconds[name] * 1000, 1),
                }
                for name in slowest
            },
        }


@contextmanager
def counting(statements: Statements) -> Iterator[None]:
    """Every named statement counted and timed: reads, and each `run` inside a transaction."""
    original_run, original_read = graph.database.run, Database.read

    async def run(tx: Any, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        began = time.perf_counter()
        try:
            return await original_run(tx, name, params)
        finally:
            statements.add(name, time.perf_counter() - began)

    async def read(self: Database, name: str, **params: Any) -> list[dict[str, Any]]:
        began = time.perf_counter()
        try:
            return await original_read(self, name, **params)
        finally:
            statements.add(name, time.perf_counter() - began)

    modules = [m for m in list(sys.modules.values()) if getattr(m, "run", None) is original_run]
    for module in modules:
        module.run = run  # type: ignore[attr-defined]
    Database.read = read  # type: ignore[method-assign]
    try:
        yield
    finally:
        for module in modules:
            module.run = original_run  # type: ignore[attr-defined]
        Database.read = original_read  # type: ignore[method-assign]


@dataclass
class Phases:
    """Wall time of the forget's phases (the Forgetter's and its store's steps)."""

    seconds: dict[str, float] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)

    def wrap(self, name: str, call: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
        async def timed(*args: Any, **kwargs: Any) -> T:
            began = time.perf_counter()
            try:
                return await call(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - began
                self.calls[name] = self.calls.get(name, 0) + 1

        return timed


def user_units(data: Path, turns: int) -> list[Unit]:
    """The first `turns` turns of the file's samples in a row, as one user's stream (turns with
    no visible character, which remember refuses, left out)."""
    units: list[Unit] = []
    for index, sample in enumerate(load_samples(data)):
        for unit in sample.units:
            if not any(unicodedata.category(c) not in INVISIBLE for c in unit.text):
                continue
            units.append(
                unit.model_copy(
                    update={
                        "source_ref": f"s{index}:{unit.source_ref}",
                        "session_id": f"s{index}:{unit.session_id}",
                    }
                )
            )
    return units[:turns]


async def forget_one(engine: MemoryEngine, owner: Owner, interaction_id: str) -> dict[str, Any]:
    forgetter = Forgetter(engine)
    phases = Phases()
    # The store and the embedder are the engine's: timed for this forget only.
    timed = (
        (forgetter.store, "plan", "plan"),
        (forgetter, "_acquire", "lease"),
        (forgetter, "_prepare", "rebuild"),
        (forgetter.store, "erase_interaction", "erase_transaction"),
        (forgetter.embedder, "embed", "embed"),
    )
    for target, method, phase in timed:
        setattr(target, method, phases.wrap(phase, getattr(target, method)))
    statements = Statements(recording=True)
    try:
        with counting(statements):
            began = time.perf_counter()
            forgotten = await forgetter.forget_interaction(owner, interaction_id, by="bench (forget_cost)")
            wall = time.perf_counter() - began
    finally:
        for target, method, _ in timed:
            delattr(target, method)
    return {
        "wall_s": round(wall, 3),
        "phases_s": {name: round(s, 3) for name, s in phases.seconds.items() if name != "embed"},
        "embed_calls": phases.calls.get("embed", 0),
        "erased": {
            "episodes": len(forgotten.episode_ids),
            "facts": len(forgotten.fact_ids),
            "runs": len(forgotten.run_ids),
        },
        "rebuilt": {
            "episodes": len(forgotten.rebuilt_episode_ids),
            "facts": len(forgotten.rebuilt_fact_ids),
        },
        "restored_facts": len(forgotten.restored_fact_ids),
    } | statements.report()


def summary(forgets: list[dict[str, Any]]) -> dict[str, Any]:
    """The median forget of a kind (the first one also plans its statements on a cold cache)."""
    walls = sorted(f["wall_s"] for f in forgets)
    erase = sorted(f["phases_s"].get("erase_transaction", 0.0) for f in forgets)
    return {
        "forgets": len(forgets),
        "wall_s_median": walls[len(walls) // 2],
        "wall_s_max": walls[-1],
        "erase_transaction_s_median": erase[len(erase) // 2],
        "statements_median": sorted(f["statements"] for f in forgets)[len(forgets) // 2],
    }


async def run(args: Args, argv: Sequence[str]) -> dict[str, Any]:
    units = user_units(args.data, args.turns) if args.tenant is None else []
    embedder = CachedEmbedder(build_embedder(EmbedderSettings(kind=args.embedder)))
    settings = EngineSettings(consolidation_mode="inline")
    db = Database.connect(neo4j_settings(args))
    owner = Owner(args.tenant or f"forget-{uuid.uuid4().hex[:8]}", "u")
    try:
        await migrate(db, embedder.name, embedder.dimension, settings.embedding_template)
        engine = MemoryEngine(db, embedder, OfflineConsolidator(), settings)
        began = time.perf_counter()
        if args.tenant is None:
            for start in range(0, len(units), args.batch):
                await engine.remember_batch(owner, units[start : start + args.batch], consolidate=True)
            await engine.consolidate(owner, wait=True, flush=True)
        ingest_s = time.perf_counter() - began
        counts = await db.read(
            "queries/forget/owned_counts",
            **owner.params(),
            labels=["Interaction", "Episode", "Fact", "ConsolidationRun"],
        )
        forgets: dict[str, list[dict[str, Any]]] = {"with_beliefs": [], "without_beliefs": []}
        for _ in range(args.forgets):
            rows = await db.read("queries/bench/forget_candidates", **owner.params())
            derived = rows[0]
            bare = next(r for r in reversed(rows) if r["episodes"] + r["facts"] == 0)
            for label, row in (("with_beliefs", derived), ("without_beliefs", bare)):
                forgets[label].append(
                    {
                        "source_ref": row["source_ref"],
                        "resting_episodes": row["episodes"],
                        "resting_facts": row["facts"],
                    }
                    | await forget_one(engine, owner, row["id"])
                )
        await engine.stop()
    finally:
        await db.close()
    return {
        "benchmark": "forget_cost",
        "command": shown_command(PROGRAM, argv),
        "embedder": embedder.name,
        "tenant": owner.tenant,
        "ingested_turns": len(units),
        "ingest_s": round(ingest_s, 1),
        "user": {str(r["label"]): int(r["nodes"]) for r in counts},
        "summary": {label: summary(runs) for label, runs in forgets.items()},
        "forgets": forgets,
        "machine": machine_info(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    report = asyncio.run(run(parse_args(arguments), arguments))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
