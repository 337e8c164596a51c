"""Per-key request rate limiting: a token bucket in each process.

Each service process limits on its own; with N processes behind a balancer a key gets at most N
times the configured rate. That bounds abuse without a shared store; a gateway can do the rest.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

# Buckets of keys idle this long are dropped, so the table does not grow without bound.
IDLE_S = 600.0


@dataclass
class _Bucket:
    tokens: float
    at: float


class RateLimiter:
    def __init__(self, per_second: float, burst: int) -> None:
        self.per_second = per_second
        self.burst = burst
        self._buckets: dict[str, _Bucket] = {}

    @property
    def enabled(self) -> bool:
        return self.per_second > 0

    def allow(self, key: str, now: float | None = None) -> bool:
        """Take one token for `key`; False when its bucket is empty."""
        if not self.enabled:
            return True
        now = time.monotonic() if now is None else now
        bucket = self._buckets.get(key) or _Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) * self.per_second)
        bucket.at = now
        self._buckets[key] = bucket
        if len(self._buckets) > 10_000:
            self._forget_idle(now)
        if bucket.tokens < 1.0:
            return False
        bucket.tokens -= 1.0
        return True

    def retry_after(self) -> int:
        """Whole seconds until one token is back."""
        return max(1, int(1.0 / self.per_second + 0.999)) if self.enabled else 0

    def _forget_idle(self, now: float) -> None:
        for key in [k for k, b in self._buckets.items() if now - b.at > IDLE_S]:
            del self._buckets[key]
