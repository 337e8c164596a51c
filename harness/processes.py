"""CPU time and memory of processes the benchmarks watch (the service, Neo4j), from /proc."""

from __future__ import annotations

import os
import time
from pathlib import Path


def settle(pid: int | None, idle_share: float = 0.1, window_s: float = 5.0, limit_s: float = 900.0) -> float:
    """Seconds until Neo4j uses under `idle_share` of a core over `window_s`. After a bulk load
    Lucene merges the vector index's small segments for minutes; recall measured meanwhile would
    report the merge, not the steady state a service runs in."""
    started = time.monotonic()
    before = cpu_seconds(pid)
    while before is not None and time.monotonic() - started < limit_s:
        time.sleep(window_s)
        after = cpu_seconds(pid)
        if after is None or after - before < idle_share * window_s:
            break
        before = after
    return round(time.monotonic() - started, 1)


def cpu_seconds(pid: int | None) -> float | None:
    """utime + stime of a process (all its threads) from /proc/PID/stat."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_status(pid: int) -> dict[str, int]:
    """VmHWM / VmRSS in kB from /proc (psutil is not a dependency)."""
    out: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                out[key] = int(value.split()[0])
    except OSError:
        pass
    return out
