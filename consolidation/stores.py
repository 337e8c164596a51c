"""The graph's stores of one database, built once per service and shared by its parts.

The engine, its pipeline and recall, the forgetter, the audit and the keys all read and write
through one `Stores` (consolidation/assembly.py hands it out), so no part builds a store of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graph.api_keys import ApiKeyStore
from graph.beliefs import BeliefStore
from graph.browse import BrowseStore
from graph.consolidations import ConsolidationStore
from graph.database import Database
from graph.episodes import EpisodeStore
from graph.event_log import EventLog
from graph.facts import FactStore
from graph.forget import ForgetStore
from graph.interactions import InteractionStore
from graph.leases import LeaseStore
from graph.portability import PortabilityStore
from graph.recall import RecallSearch
from graph.thresholds import ThresholdStore
from graph.vector_cache import DEFAULT_BUDGET_BYTES, VectorCache
from graph.waiting import WaitingStore


@dataclass(frozen=True)
class Stores:
    db: Database
    interactions: InteractionStore
    episodes: EpisodeStore
    facts: FactStore
    consolidations: ConsolidationStore
    waiting: WaitingStore
    leases: LeaseStore
    search: RecallSearch
    events: EventLog
    forget: ForgetStore
    browse: BrowseStore
    keys: ApiKeyStore
    portability: PortabilityStore
    beliefs: BeliefStore
    thresholds: ThresholdStore

    @classmethod
    def open(
        cls,
        db: Database,
        dimension: int,
        *,
        on_takeover: Callable[[], None] | None = None,
        vector_cache_bytes: int = DEFAULT_BUDGET_BYTES,
    ) -> Stores:
        """`on_takeover`: called when a lease another holder let expire is taken (a metric);
        `vector_cache_bytes`: recall's memory for large users' vectors (graph/vector_cache.py)."""
        return cls(
            db=db,
            interactions=InteractionStore(db, dimension),
            episodes=EpisodeStore(db, dimension),
            facts=FactStore(db, dimension),
            consolidations=ConsolidationStore(db, dimension),
            waiting=WaitingStore(db),
            leases=LeaseStore(db, on_takeover=on_takeover),
            search=RecallSearch(db, dimension, vectors=VectorCache(db, dimension, vector_cache_bytes)),
            events=EventLog(db),
            forget=ForgetStore(db, dimension),
            browse=BrowseStore(db),
            keys=ApiKeyStore(db),
            portability=PortabilityStore(db, dimension),
            beliefs=BeliefStore(db, dimension),
            thresholds=ThresholdStore(db),
        )
