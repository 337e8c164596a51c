"""How long the local Neo4j (graph/local_server.py) takes to start and stop in a fresh home.

    python -m bench.neo4j_start [--runs 5] [--busy 0] [--no-archive]

Each run starts a server in a new home on a free port and stops it: the first-start admin JVM that
sets the initial password, the server until Bolt answers, then `stop` (SIGTERM until the JVM is
gone). The runs share one jar folder of their own (the cached jars linked into a temporary folder),
so the first run meets it as a first install does and the later ones as every later start does;
the first run is reported apart. `--busy N` keeps N busy loops running meanwhile (a loaded
machine, as CI's), killed at the end; `--no-archive` starts without the class archive
(RECMEM_NEO4J_CLASS_ARCHIVE=off, docs/operations.md#start-time), the code as before it, for an
A/B under the same load. Prints one JSON object: wall seconds, and the CPU seconds of the admin
JVM and of the server JVM until Bolt answered, which other work on a shared machine moves much
less.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.machine import loadavg, machine_info
from graph.local_server import LocalNeo4j, java_major
from graph.settings import Neo4jSettings
from harness.serve_process import free_port


@contextmanager
def busy_loops(count: int) -> Iterator[None]:
    """`count` shell busy loops, each killed by its pid on leaving."""
    loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def shared_jar_cache(root: Path) -> Path:
    """A jar cache under `root` whose jars are the user's cached ones (fetched once if missing)."""
    cached = LocalNeo4j(Neo4jSettings()).ensure_jars()
    version_dir = root / Neo4jSettings().version
    version_dir.mkdir(parents=True)
    (version_dir / "lib").symlink_to(cached, target_is_directory=True)
    return root


def one_run(jar_cache: Path, root: Path, index: int, archive: bool) -> dict[str, float]:
    home = root / f"home-{index}"
    settings = Neo4jSettings(
        home=home, port=free_port(), jar_cache=jar_cache, password=None, class_archive=archive
    )
    server = LocalNeo4j(settings)
    lib, java = server.ensure_jars(), server.java_binary()
    server.write_config()
    began, cpu = time.perf_counter(), children_cpu()
    server.ensure_password(java, lib)
    password_s, password_cpu_s = time.perf_counter() - began, children_cpu() - cpu
    began = time.perf_counter()
    try:
        pid = server.start().pid
        start_s = time.perf_counter() - began
        start_cpu_s = process_cpu(pid) if pid is not None else float("nan")
    finally:
        began = time.perf_counter()
        server.stop()
        stop_s = time.perf_counter() - began
    return {
        "password_s": round(password_s, 2),
        "password_cpu_s": round(password_cpu_s, 2),
        "start_s": round(start_s, 2),
        "start_cpu_s": round(start_cpu_s, 2),
        "first_start_total_s": round(password_s + start_s, 2),
        "stop_s": round(stop_s, 2),
    }


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a running process, all its threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summary(runs: list[dict[str, float]]) -> dict[str, Any]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]} if runs else {}


def measure(runs: int, busy: int, archive: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="neo4j-start-") as folder, busy_loops(busy):
        root = Path(folder)
        jar_cache = shared_jar_cache(root / "jars")
        results = []
        for index in range(runs):
            results.append(one_run(jar_cache, root, index, archive))
            print(f"run {index}: {results[-1]}", file=sys.stderr, flush=True)
        extra = sorted(p.name for p in (jar_cache / Neo4jSettings().version).iterdir() if p.name != "lib")
    return {
        "first": results[0] if results else None,
        "later": results[1:],
        "later_median": summary(results[1:]),
        "files_beside_lib": extra,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--busy", type=int, default=0, help="Busy loops running meanwhile.")
    parser.add_argument("--no-archive", action="store_true", help="Start without the class archive.")
    args = parser.parse_args(argv)
    settings = Neo4jSettings()  # refuses a bad RECMEM_NEO4J_* value before any run
    archive = settings.class_archive and not args.no_archive
    java = LocalNeo4j(settings).java_binary()
    report = {
        "runs": args.runs,
        "busy_loops": args.busy,
        "class_archive": archive,
        "java": str(java),
        "java_major": java_major(java),
        "machine": machine_info(),
        **measure(args.runs, args.busy, archive),
        "load_average_at_end": loadavg(),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
