"""A typed Python client for the recmem-graph memory service (GraphQL over HTTP, on httpx).

    from recmem_client import MemoryClient

    with MemoryClient(api_key) as memory:
        memory.remember("alice", "My dog is called Rex.", speaker="alice")
        context = memory.recall("alice", "pets", tokens=800).context

AsyncMemoryClient has the same methods as coroutines. Errors are MemoryClientError subclasses
named after the service's `extensions.code`; see client.py for retries and idempotency.
"""

from recmem_client.client import AsyncMemoryClient, MemoryClient
from recmem_client.errors import (
    BadUserInput,
    ConnectionFailed,
    InternalError,
    MemoryClientError,
    NotFound,
    ProtocolError,
    RateLimited,
    Unauthenticated,
    Unavailable,
)
from recmem_client.generated import (
    Answer,
    AuditedEpisode,
    BeliefChanged,
    ConsolidationAction,
    ConsolidationEvent,
    ConsolidationRun,
    ContextItem,
    Episode,
    EpisodeHit,
    EpisodeSource,
    Fact,
    FactAudit,
    FactChange,
    FactHit,
    FactKind,
    FactStatus,
    Interaction,
    InteractionForgotten,
    InteractionHit,
    Layer,
    MetadataFilter,
    Recall,
    RecallContext,
    RecallFilter,
    Remembered,
    UserForgotten,
    UserStats,
)
from recmem_client.operations import GENERATED_REF_PREFIX
from recmem_client.protocol import DEFAULT_BASE_URL, NO_RETRY, RetryPolicy
from recmem_client.types import Layers, Unit

__all__ = [
    "DEFAULT_BASE_URL",
    "GENERATED_REF_PREFIX",
    "NO_RETRY",
    "Answer",
    "AsyncMemoryClient",
    "AuditedEpisode",
    "BadUserInput",
    "BeliefChanged",
    "ConnectionFailed",
    "ConsolidationAction",
    "ConsolidationEvent",
    "ConsolidationRun",
    "ContextItem",
    "Episode",
    "EpisodeHit",
    "EpisodeSource",
    "Fact",
    "FactAudit",
    "FactChange",
    "FactHit",
    "FactKind",
    "FactStatus",
    "Interaction",
    "InteractionForgotten",
    "InteractionHit",
    "InternalError",
    "Layer",
    "Layers",
    "MemoryClient",
    "MemoryClientError",
    "MetadataFilter",
    "NotFound",
    "ProtocolError",
    "RateLimited",
    "Recall",
    "RecallContext",
    "RecallFilter",
    "Remembered",
    "RetryPolicy",
    "Unauthenticated",
    "Unavailable",
    "Unit",
    "UserForgotten",
    "UserStats",
]
