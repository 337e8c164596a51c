"""Builds the service from settings: the one place that chooses providers (consolidation/assembly.py
connects the parts)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from consolidation.assembly import Memory, assemble
from consolidation.consolidating.consolidator import Consolidator
from consolidation.consolidating.llm_consolidator import LLMConsolidator
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders import build_embedder
from consolidation.providers.llm import LanguageModel, build_language_model
from consolidation.settings import EmbedderSettings, EngineSettings, LLMSettings
from graph.database import Database
from graph.settings import Neo4jSettings

log = logging.getLogger(__name__)


@dataclass
class AppSettings:
    """All settings of the service; each part reads its own RECMEM_* environment variables."""

    neo4j: Neo4jSettings = field(default_factory=Neo4jSettings)
    embedder: EmbedderSettings = field(default_factory=EmbedderSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    engine: EngineSettings = field(default_factory=EngineSettings)


def build_consolidator(
    settings: LLMSettings, *, warn_offline: bool = True, model: LanguageModel | None = None
) -> Consolidator:
    """`warn_offline`: log that consolidation is offline. The service does, once per start; the
    CLI does not, since most of its commands never consolidate (`recmem ingest` says it itself).
    `model`: a client already built from `settings` (shared with the LLM planner)."""
    model = model or build_language_model(settings)
    if model is None:
        if warn_offline:
            log.warning(
                "no LLM endpoint configured (RECMEM_LLM_BASE_URL / RECMEM_LLM_API_KEY): "
                "using the offline extractive consolidator; its runs are labelled 'offline'"
            )
        return OfflineConsolidator()
    return LLMConsolidator(model)


def build_memory(db: Database, settings: AppSettings | None = None, *, warn_offline: bool = True) -> Memory:
    """Every part of the service, over one set of stores."""
    settings = settings or AppSettings()
    # One client for the endpoint: the consolidator's, and the LLM planner's (RECMEM_PLANNER=llm).
    model = build_language_model(settings.llm)
    consolidator = build_consolidator(settings.llm, warn_offline=warn_offline, model=model)
    return assemble(db, build_embedder(settings.embedder), consolidator, settings.engine, planner_model=model)


def build_engine(
    db: Database, settings: AppSettings | None = None, *, warn_offline: bool = True
) -> MemoryEngine:
    return build_memory(db, settings, warn_offline=warn_offline).engine


@asynccontextmanager
async def open_engine(settings: AppSettings, *, warn_offline: bool = True) -> AsyncIterator[MemoryEngine]:
    """Connect, migrate the schema (refusing another embedder's database), run, then close."""
    db = Database.connect(settings.neo4j)
    try:
        await db.ping()
        memory = build_memory(db, settings, warn_offline=warn_offline)
        await memory.storage.migrate()
        engine = memory.engine
        engine.start()
        try:
            yield engine
        finally:
            await engine.stop()
    finally:
        await db.close()
