"""A user's consolidation lease as its takers use it (the engine's passes, forgetting): the holder
ids, the bounded wait to take it, and the heartbeat that keeps it while long work runs."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from graph.errors import GraphError
from graph.leases import LeaseStore
from graph.models import Owner

log = logging.getLogger(__name__)


class Busy(GraphError):
    """The user's consolidation lease stayed taken for the whole wait; retry later."""


def holder_id(role: str | None = None) -> str:
    """`host:pid:random`, unique per taker; `role` prefixes it, so that a lease says who holds it."""
    base = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    return f"{role}:{base}" if role else base


async def take_lease(leases: LeaseStore, owner: Owner, holder: str, seconds: float, *, wait: bool) -> bool:
    """Take the user's lease for `seconds`; with `wait`, wait at most that long for another holder.

    Cancellation-safe: cancelled while the lease is being taken, LeaseStore gives it back.
    """
    return await leases.wait_acquire(owner, holder, seconds, seconds if wait else 0.0)


@asynccontextmanager
async def renewing(leases: LeaseStore, owner: Owner, holder: str, seconds: float) -> AsyncIterator[None]:
    """Renews the lease every third of its duration while the block runs, so work longer than the
    lease keeps it; the heartbeat has stopped when this exits."""
    heartbeat = asyncio.create_task(_heartbeat(leases, owner, holder, seconds), name="recmem-lease-heartbeat")
    try:
        yield
    finally:
        heartbeat.cancel()
        await asyncio.wait([heartbeat])


async def _heartbeat(leases: LeaseStore, owner: Owner, holder: str, seconds: float) -> None:
    while True:
        await asyncio.sleep(seconds / 3)
        try:
            if not await leases.renew(owner, holder, seconds):
                log.warning("lost the consolidation lease of %r; the pass's commits are refused", owner)
                return
        except Exception:
            log.warning("could not renew the consolidation lease; trying again", exc_info=True)
