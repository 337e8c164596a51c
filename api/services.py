"""Everything a request needs, built once per process in the app's lifespan."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from api.auth import Authenticator
from api.limits import RateLimiter
from api.settings import ApiSettings
from consolidation.assembly import Memory
from graph.errors import StoreTimeout, StoreUnavailable

log = logging.getLogger("api.services")


@dataclass
class Readiness:
    """`/readyz` is green once the schema has been migrated and while Neo4j answers."""

    migrated: bool = False
    error: str | None = None
    # The probe query in flight, and when it started (the event loop's clock).
    probe: asyncio.Task[None] | None = None
    probe_started: float = 0.0


@dataclass(frozen=True)
class Services(Memory):
    """The memory's parts, and what the API adds to serve them."""

    authenticator: Authenticator
    limiter: RateLimiter
    settings: ApiSettings
    # The bound on one interaction's text the memory was assembled with (RECMEM_MAX_TEXT_BYTES):
    # the API checks a remember against it at its entry point (api/schema/mutation.py).
    max_text_bytes: int
    readiness: Readiness = field(default_factory=Readiness)
    _migrating: asyncio.Lock = field(default_factory=asyncio.Lock)

    @classmethod
    def build(cls, memory: Memory, settings: ApiSettings) -> Services:
        return cls(
            **vars(memory),
            authenticator=Authenticator(memory.keys, settings.auth_cache_s),
            limiter=RateLimiter(settings.rate_limit_per_s, settings.rate_limit_burst),
            settings=settings,
            max_text_bytes=memory.storage.settings.max_text_bytes,
        )

    async def ensure_ready(self) -> None:
        """Migrate the schema if that has not succeeded yet (Neo4j may have been down at start).

        Raises StoreUnavailable while Neo4j cannot be reached; SchemaMismatch is a configuration
        error and propagates as such.
        """
        if self.readiness.migrated:
            return
        async with self._migrating:
            if self.readiness.migrated:
                return
            try:
                result = await self.storage.migrate()
            except (OSError, StoreUnavailable) as error:
                self.readiness.error = f"Neo4j is not reachable: {error}"
                raise StoreUnavailable(self.readiness.error) from error
            self.readiness.migrated, self.readiness.error = True, None
            if result.created:
                log.info("schema migrated: created %s", ", ".join(result.created))
            if result.backfilled.total:
                log.info("older data brought up to date: %s", result.backfilled)
            if result.backfilled.misordered_left:
                log.warning(
                    "%d facts valid at no instant left as they are, held by %s; list a tenant's with"
                    " `recmem cypher run facts_valid_at_no_instant --tenant T`"
                    " (docs/operations.md#upgrading)",
                    result.backfilled.misordered_left,
                    _holders(result.backfilled.misordered_tenants, result.backfilled.misordered_left),
                )

    async def check_ready(self) -> str | None:
        """None when ready (migrated, and a real probe query answered within its bound,
        graph/database.py Database.ping), else why not: any failure of either is a reason."""
        try:
            await self.ensure_ready()
            await self._probe()
        except StoreUnavailable as error:
            return str(error)
        except Exception as error:
            log.warning("readiness probe failed: %r", error)
            return f"the readiness probe failed: {type(error).__name__}: {error}"
        return None

    async def _probe(self) -> None:
        """Raises unless a probe query answers within `probe_timeout_s` of its start. A probe
        that outlasts its bound is not cancelled but left to finish (within the statement
        timeout) while readiness says no: on a cold Neo4j each cancelled probe would otherwise
        throw away the server's warm-up, and readiness would never come."""
        db, state = self.storage.db, self.readiness
        loop = asyncio.get_running_loop()
        if state.probe is None or state.probe.done():
            state.probe = asyncio.create_task(db.ping(db.statement_timeout_s), name="recmem-readiness-probe")
            state.probe.add_done_callback(_retrieved)
            state.probe_started = loop.time()
        probe = state.probe
        left = state.probe_started + db.probe_timeout_s - loop.time()
        done, _ = await asyncio.wait({probe}, timeout=max(0.0, left))
        if not done:
            raise StoreTimeout(f"Neo4j did not answer a probe query within {db.probe_timeout_s:g}s")
        state.probe = None
        probe.result()


def _retrieved(task: asyncio.Task[None]) -> None:
    """A late probe's failure was reported as its timeout already."""
    if not task.cancelled():
        task.exception()


def _holders(held: dict[str, int], total: int) -> str:
    """The tenants holding the facts, with their counts, and how many facts the rest hold."""
    named = ", ".join(f"tenant {tenant} ({facts})" for tenant, facts in held.items())
    rest = total - sum(held.values())
    return f"{named} and {rest} in other tenants" if rest else named
