"""`recmem neo4j status` as a process: an empty home reports stopped (exit 3)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_neo4j_status_reports_stopped_for_an_empty_home(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "recmem"), "neo4j", "status"],
        env={"RECMEM_NEO4J_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 3, done.stderr
    assert "stopped" in done.stdout
