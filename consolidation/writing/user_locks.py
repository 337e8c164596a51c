"""One asyncio lock per user, kept only while someone holds or waits for it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from graph.models import Owner


class UserLocks:
    """The coroutines of one engine queue per user here (the database lease is re-entrant for its
    holder, so it does not serialize them). A user's lock goes when its last taker leaves, so the
    map holds the users being worked on, not every user ever served."""

    def __init__(self) -> None:
        self._locks: dict[Owner, asyncio.Lock] = {}
        # Coroutines holding or waiting for each lock: it is dropped when none is left.
        self._takers: dict[Owner, int] = {}

    def __len__(self) -> int:
        return len(self._locks)

    def busy(self, owner: Owner) -> bool:
        lock = self._locks.get(owner)
        return lock is not None and lock.locked()

    @asynccontextmanager
    async def hold(self, owner: Owner) -> AsyncIterator[None]:
        lock = self._locks.setdefault(owner, asyncio.Lock())
        self._takers[owner] = self._takers.get(owner, 0) + 1
        try:
            async with lock:
                yield
        finally:
            left = self._takers[owner] - 1
            if left:
                self._takers[owner] = left
            else:
                del self._takers[owner], self._locks[owner]
