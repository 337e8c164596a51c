"""The command line of the LoCoMo bench, parsed into typed arguments."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.locomo.modes import MODES, TOKEN_BUDGETS
from consolidation.settings import PROFILES

DEFAULT_THETA_COUNT = PROFILES["chat"][1]
SUMMARY = "LoCoMo: what building memory costs, and whether recall still reaches the evidence."


@dataclass(frozen=True)
class Args:
    data: Path
    modes: list[str]
    embedder: str
    llm: str
    replies: str
    samples: list[str]
    limit_turns: int | None
    unit: str
    out: Path
    name: str
    theta_sim: float | None
    calibration_target: float | None
    calibration_data: Path | None
    theta_count: int
    template: str | None
    token_budgets: tuple[int, ...]
    merge_threshold: float | None
    answers: bool
    planner: str
    neo4j_uri: str | None
    neo4j_password: str | None
    other_tenants: int
    compare_dense: Path | None
    compare_contexts: Path | None
    quiet: bool
    adversarial: bool
    embedding_cache: Path | None
    contexts: Path | None


def parse_args(argv: Sequence[str] | None = None) -> Args:
    parser = _parser()
    args = parser.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = set(args.modes) - set(MODES)
    if unknown or not args.modes:
        parser.error(f"unknown modes: {sorted(unknown)}")
    args.samples = [s.strip() for s in args.samples.split(",") if s.strip()]
    args.token_budgets = tuple(int(b) for b in args.token_budgets.split(",") if b.strip())
    if args.answers is None:
        args.answers = args.llm == "config"
    return Args(**vars(args))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo", description=SUMMARY)
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo file (locomo10.json format)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated: " + ",".join(MODES))
    parser.add_argument("--embedder", choices=("minilm", "hashing"), default="minilm")
    parser.add_argument("--llm", choices=("local", "config"), default="local")
    parser.add_argument(
        "--replies",
        choices=("extractive", "generic"),
        default="extractive",
        help="what the local server answers with (ignored with --llm config)",
    )
    parser.add_argument("--samples", default="", help="comma-separated sample ids (default: all)")
    parser.add_argument(
        "--limit-turns", type=int, default=None, help="stream only the first N turns of each sample"
    )
    parser.add_argument("--unit", choices=("turn", "pair"), default="turn")
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    parser.add_argument("--name", default="locomo", help="file name stem of the outputs")
    parser.add_argument("--theta-sim", type=float, default=None, help="skip calibration and use this value")
    parser.add_argument("--calibration-target", type=float, default=None, help="share of units that recur")
    parser.add_argument(
        "--calibration-data", type=Path, default=None, help="LoCoMo file to calibrate on (default: --data)"
    )
    parser.add_argument("--theta-count", type=int, default=DEFAULT_THETA_COUNT)
    parser.add_argument(
        "--template", default=None, help="embedding template of interactions (default: the engine's)"
    )
    parser.add_argument(
        "--token-budgets",
        default=",".join(str(b) for b in TOKEN_BUDGETS),
        help="comma-separated context sizes (o200k tokens) to score",
    )
    parser.add_argument("--merge-threshold", type=float, default=None, help="default: the engine's")
    parser.add_argument(
        "--answers",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="answer and score every question (default: on with --llm config)",
    )
    parser.add_argument(
        "--planner",
        choices=("off", "rules", "llm", "both"),
        default="rules",
        help=(
            "recall's question planner; llm: one call to the bench's endpoint per recall (the local "
            "server answers with the rule plan); both: planner off in the modes' rows, rules in "
            "MODE+planner rows"
        ),
    )
    parser.add_argument("--neo4j-uri", default=None, help="default: RECMEM_NEO4J_URI")
    parser.add_argument(
        "--neo4j-password", default=None, help="default: RECMEM_NEO4J_PASSWORD or the local file"
    )
    parser.add_argument(
        "--other-tenants",
        type=int,
        default=0,
        help="first write copies of the samples into this many other tenants (isolation check)",
    )
    parser.add_argument(
        "--compare-dense",
        type=Path,
        default=None,
        help="a NAME-questions.jsonl of another run: report how many raw questions got the same dense hits",
    )
    parser.add_argument(
        "--compare-contexts",
        type=Path,
        default=None,
        help="a NAME-questions.jsonl of another run: report per mode and token budget how many"
        " questions got the identical context",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--adversarial",
        action="store_true",
        help="ask category 5 (adversarial) questions only, for context sizes (their figures are not recall)",
    )
    parser.add_argument(
        "--embedding-cache",
        type=Path,
        default=None,
        help="a SQLite file that keeps vectors between runs (same results, no re-embedding)",
    )
    parser.add_argument(
        "--contexts",
        type=Path,
        default=None,
        help="a JSON-lines file (emptied first) that receives every scored context: mode, sample,"
        " question index, token budget and the text",
    )
    return parser
