"""In-process fan-out of consolidation outcomes to subscribers (the GraphQL subscription)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator

from consolidation.types import ConsolidationOutcome
from graph.models import Owner

QUEUE_LIMIT = 1000


class EventHub:
    """Each subscriber gets its own bounded queue; a slow one drops its oldest events, never blocks."""

    def __init__(self) -> None:
        self._queues: dict[Owner, set[asyncio.Queue[ConsolidationOutcome]]] = defaultdict(set)

    def publish(self, owner: Owner, outcome: ConsolidationOutcome) -> None:
        for queue in list(self._queues.get(owner, ())):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(outcome)

    async def subscribe(self, owner: Owner) -> AsyncIterator[ConsolidationOutcome]:
        queue: asyncio.Queue[ConsolidationOutcome] = asyncio.Queue(QUEUE_LIMIT)
        self._queues[owner].add(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            self._queues[owner].discard(queue)
            if not self._queues[owner]:
                del self._queues[owner]
