"""The many-tenants bench's progress log (stderr: stdout carries the report)."""

from __future__ import annotations

import sys
import time


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)
