"""Command-line options the benchmarks' parsers share in kind: on/off switches, and how long to let
Neo4j settle after a load (harness/processes.py's `settle`)."""

from __future__ import annotations

import argparse


def add_switch(parser: argparse.ArgumentParser, name: str, help: str | None = None) -> None:
    """`--NAME`, on by default; `--no-NAME` turns it off."""
    parser.add_argument(name, action=argparse.BooleanOptionalAction, default=True, help=help)


def add_flag(parser: argparse.ArgumentParser, name: str, help: str) -> None:
    """`--NAME`, off unless given."""
    parser.add_argument(name, action="store_true", help=help)


def add_settle_limit(parser: argparse.ArgumentParser, default_s: float) -> None:
    parser.add_argument(
        "--settle-limit",
        type=float,
        default=default_s,
        help="seconds to wait at most, after a load, for Neo4j to go idle (merging its vector index's "
        "segments) before measuring",
    )
