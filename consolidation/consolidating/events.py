"""Fan-out of consolidation outcomes to subscribers (the GraphQL subscription), across processes.

An outcome of this process reaches its subscribers at once (`publish`). Consolidations another
process committed reach them through the database: while a user has subscribers here, one feed
per user reads the user's event log (graph/event_log.py) every `poll_s` seconds, resuming from the
last sequence it saw, and passes on the events another holder committed (this engine's own were
published already). So a subscriber sees every CREATED and MERGED of its user whichever process
ran it, those of other processes within about `poll_s`; NONE and DEFERRED decisions write no
event and are reported by the process that made them only.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Gauge

from consolidation.types import ConsolidationOutcome
from graph.event_log import PAGE, Coverage, EventLog, LoggedEvent, Position
from graph.models import Owner

log = logging.getLogger(__name__)
QUEUE_LIMIT = 1000
FAILED_POLL_MAX_S = 10.0


@dataclass
class _Feed:
    """The database feed of one user: its polling task, and the episode versions this process
    published itself since the last poll (so that the poll does not deliver them again)."""

    task: asyncio.Task[None] | None = None
    published: set[str] = field(default_factory=set)


class EventHub:
    """Each subscriber gets its own bounded queue; a slow one drops its oldest events, never blocks.

    Without `event_log` only this process's outcomes are delivered. `origin`: the lease holder
    this process commits as. A logged event of that origin was published here already, unless no
    publish of it has come by the next poll (a commit path that publishes nothing): it is then
    delivered from the log, one poll late."""

    def __init__(
        self,
        event_log: EventLog | None = None,
        origin: str | None = None,
        poll_s: float = 0.5,
        registry: CollectorRegistry | None = None,
    ) -> None:
        self._queues: dict[Owner, set[asyncio.Queue[ConsolidationOutcome]]] = defaultdict(set)
        self._feeds: dict[Owner, _Feed] = {}
        self.event_log = event_log
        self.origin = origin
        self.poll_s = poll_s
        self.feeds = Gauge(
            "recmem_event_feeds",
            "Users whose consolidation events this process reads from the database for its "
            "subscribers (counted once the feed knows where to start).",
            registry=registry,
        )

    def publish(self, owner: Owner, outcome: ConsolidationOutcome) -> None:
        """An outcome of this process, delivered at once."""
        feed = self._feeds.get(owner)
        if feed is not None and outcome.episode_id is not None:
            feed.published.add(outcome.episode_id)
        self._deliver(owner, outcome)

    def _deliver(self, owner: Owner, outcome: ConsolidationOutcome) -> None:
        for queue in list(self._queues.get(owner, ())):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(outcome)

    async def subscribe(self, owner: Owner) -> AsyncIterator[ConsolidationOutcome]:
        queue: asyncio.Queue[ConsolidationOutcome] = asyncio.Queue(QUEUE_LIMIT)
        self._queues[owner].add(queue)
        if self.event_log is not None and owner not in self._feeds:
            feed = self._feeds[owner] = _Feed()
            feed.task = asyncio.create_task(self._poll(owner, feed, self.event_log), name="recmem-event-feed")
        try:
            while True:
                yield await queue.get()
        finally:
            self._queues[owner].discard(queue)
            if not self._queues[owner]:
                del self._queues[owner]
                # The last subscriber of the user left: its feed stops polling.
                gone = self._feeds.pop(owner, None)
                if gone is not None and gone.task is not None:
                    gone.task.cancel()

    async def close(self) -> None:
        """Stop every feed (the subscribers' iterators stay open until their clients leave)."""
        tasks = [f.task for f in self._feeds.values() if f.task is not None]
        self._feeds.clear()
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    async def _poll(self, owner: Owner, feed: _Feed, event_log: EventLog) -> None:
        """Reads the user's event log while it has subscribers (cancelled when the last leaves)."""
        position = await self._start(owner, event_log)
        after, incarnation = position.seq, position.incarnation
        self.feeds.inc()
        delay = self.poll_s
        # Events of this origin the last poll found unpublished here, by episode version.
        held: dict[str, ConsolidationOutcome] = {}
        try:
            while True:
                try:
                    page = await event_log.since(owner, after)
                except Exception:
                    # Neo4j away: fewer polls (and warnings) until it answers again.
                    log.warning("reading consolidation events failed; trying again", exc_info=True)
                    await asyncio.sleep(delay)
                    delay = min(2 * delay, FAILED_POLL_MAX_S)
                    continue
                delay = self.poll_s
                if page.incarnation != incarnation:
                    # The user was forgotten, or written again after that: its log starts over.
                    after, incarnation = 0, page.incarnation
                    continue
                held = self._pass_on(owner, feed, page.events, held)
                if page.events:
                    after = page.events[-1].seq
                if len(page.events) < PAGE:
                    await asyncio.sleep(self.poll_s)
        finally:
            self.feeds.dec()

    def _pass_on(
        self, owner: Owner, feed: _Feed, events: list[LoggedEvent], held: dict[str, ConsolidationOutcome]
    ) -> dict[str, ConsolidationOutcome]:
        """Deliver what another process committed, and what this one committed without
        publishing it (held over one poll first); return the events to hold until the next poll."""
        for episode_id, outcome in held.items():
            if episode_id not in feed.published:
                self._deliver(owner, outcome)
            feed.published.discard(episode_id)
        still: dict[str, ConsolidationOutcome] = {}
        for event in events:
            outcome = outcome_of(event)
            if event.origin != self.origin or event.episode_id is None:
                self._deliver(owner, outcome)
            elif event.episode_id in feed.published:
                feed.published.discard(event.episode_id)
            else:
                still[event.episode_id] = outcome
        return still

    async def _start(self, owner: Owner, event_log: EventLog) -> Position:
        """Where the feed starts: after what the user's log holds when it is opened."""
        while True:
            try:
                return await event_log.latest(owner)
            except Exception:
                log.warning("reading the consolidation event log failed; trying again", exc_info=True)
                await asyncio.sleep(self.poll_s)


def outcome_of(event: LoggedEvent) -> ConsolidationOutcome:
    return ConsolidationOutcome(
        trigger_id=event.trigger_id,
        action=event.action,
        episode_id=event.episode_id,
        previous_episode_id=event.previous_episode_id,
        fact_ids=event.fact_ids,
        superseded_fact_ids=event.superseded_fact_ids,
        consolidated_ids=event.consolidated_ids,
        llm_calls=event.llm_calls,
    )


def covered_outcome(coverage: Coverage) -> ConsolidationOutcome | None:
    """The decision a pass (of any process) made on one interaction, as read back from the
    database; None while it is still waiting for the gate.

    Absorbed into an episode: that commit's event (its trigger may be another interaction). Through
    the gate without recurrence: NONE, with the episode it waits for when it awaits a batch merge.
    """
    if coverage.consolidated:
        if coverage.event is not None:
            return outcome_of(coverage.event)
        if coverage.episode_id is None:
            return None  # the absorbing commit not visible whole yet: read again
        return ConsolidationOutcome(
            trigger_id=coverage.interaction_id,
            action="merged" if coverage.previous_episode_id else "created",
            episode_id=coverage.episode_id,
            previous_episode_id=coverage.previous_episode_id,
            consolidated_ids=[coverage.interaction_id],
        )
    if coverage.checked:
        return ConsolidationOutcome(
            trigger_id=coverage.interaction_id, action="none", waiting_for=coverage.awaits
        )
    return None
