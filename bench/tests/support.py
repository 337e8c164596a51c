"""A benchmark run as its README shows it: `python -m <bench>` against the test Neo4j."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from graph.settings import Neo4jSettings


def run_bench(
    module: str,
    neo4j: Neo4jSettings,
    options: list[str],
    *,
    timeout_s: float,
    cwd: Path,
    env: dict[str, str] | None = None,
) -> tuple[dict[str, Any], str | None]:
    """`python -m MODULE --neo4j-uri URI OPTIONS [--neo4j-password P]`, which must succeed: the
    JSON report it printed, and the password it was given (a report must never show it)."""
    command = [sys.executable, "-m", module, "--neo4j-uri", neo4j.uri, *options]
    password = neo4j.resolved_password()
    if password is not None:
        command += ["--neo4j-password", password]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout)), password
