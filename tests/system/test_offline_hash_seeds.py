"""The offline consolidator across processes: its output does not follow the hash seed."""

from __future__ import annotations

import os
import subprocess
import sys


def test_an_episode_title_is_the_same_in_every_process() -> None:
    """Tied word counts must not fall back on set order, which follows the hash seed."""
    script = (
        "from datetime import datetime, UTC\n"
        "from consolidation.consolidating.offline.episodes import episode\n"
        "from consolidation.consolidating.prompts.common import Turn\n"
        "t = datetime(2023, 5, 8, tzinfo=UTC)\n"
        "turns = [Turn(id='i1', speaker='Ann', occurred_at=t, "
        "text='We painted the garage, the canoe and the fence today.')]\n"
        "print(episode(turns).title)\n"
    )
    titles = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("0", "1", "2", "3", "12345")
    }
    assert len(titles) == 1, titles
