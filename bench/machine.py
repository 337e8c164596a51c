"""What every benchmark report records about the machine it ran on (one definition for all)."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import TypedDict

import numpy as np


class MachineInfo(TypedDict):
    """The machine a report was measured on: figures from two machines are not comparable."""

    platform: str
    python: str
    cpus: int | None
    processor: str
    cpu_model: str | None
    mem_total_gb: float | None
    numpy: str
    # Other work on a shared machine moves latencies; the load when the run started says how busy.
    load_average_at_start: list[float] | None


def machine_info() -> MachineInfo:
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
        "cpu_model": _proc_field("/proc/cpuinfo", "model name"),
        "mem_total_gb": _mem_total_gb(),
        "numpy": np.__version__,
        "load_average_at_start": loadavg(),
    }


def loadavg() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (None where the platform has none)."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def _mem_total_gb() -> float | None:
    total = _proc_field("/proc/meminfo", "MemTotal")
    return round(int(total.split()[0]) / 1024 / 1024, 1) if total else None


def _proc_field(path: str, name: str) -> str | None:
    """The value of the first `name: value` line of a /proc file (None off Linux)."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition(":")
        if key.strip() == name:
            return value.strip()
    return None
