"""How long `recmem` takes to answer what needs no service: `--help`, an argument error, and
`neo4j status` (the local server's pid file; no database is contacted).

    python -m bench.cli_start [--runs 10] [--recmem PATH]

Prints one JSON object: per command the wall and CPU seconds (user + system of the child) of each
run, their median and maximum, the exit status, and the machine with its load (a loaded machine
moves wall times, CPU times much less). The target is under 0.5 s wall on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.machine import machine_info

# (name, arguments); `neo4j status` exits 3 when no server runs in its home, 0 when one does.
COMMANDS: list[tuple[str, list[str]]] = [
    ("help", ["--help"]),
    ("argument_error", ["recall"]),  # the query argument and --user missing: a usage error
    ("neo4j_status", ["neo4j", "status"]),
]


def default_recmem() -> str:
    beside = Path(sys.executable).with_name("recmem")
    return str(beside) if beside.exists() else shutil.which("recmem") or "recmem"


def run_once(command: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of the child, exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, check=False, timeout=120)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def measure(recmem: str, runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as home:
        # A Neo4j home of its own: `neo4j status` reads it and finds no server.
        env = {**os.environ, "RECMEM_NEO4J_HOME": home}
        results: dict[str, Any] = {}
        for name, args in COMMANDS:
            run_once([recmem, *args], env)  # warm the file cache once, not counted
            walls, cpus, codes = [], [], set()
            for _ in range(runs):
                wall, cpu, code = run_once([recmem, *args], env)
                walls.append(round(wall, 4))
                cpus.append(round(cpu, 4))
                codes.add(code)
            results[name] = {
                "args": args,
                "exit_status": sorted(codes),
                "wall_s": walls,
                "wall_median_s": round(statistics.median(walls), 4),
                "wall_max_s": max(walls),
                "cpu_s": cpus,
                "cpu_median_s": round(statistics.median(cpus), 4),
            }
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--recmem", default=default_recmem(), help="The recmem executable.")
    args = parser.parse_args(argv)
    report = {
        "recmem": args.recmem,
        "runs": args.runs,
        "machine": machine_info(),
        "commands": measure(args.recmem, args.runs),
        "load_average_at_end": list(os.getloadavg()),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
