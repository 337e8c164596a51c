"""Assembles the service's parts over one set of stores: the one place that connects them.

The engine (with its pipeline and recall), the forgetter, the audit and the API keys share the
same `Stores`, so every store is built once; the API receives the parts and reaches into none.
"""

from __future__ import annotations

from dataclasses import dataclass

from consolidation.consolidating.consolidator import Consolidator
from consolidation.engine import MemoryEngine
from consolidation.forgetting.forgetter import Forgetter
from consolidation.forgetting.keys import AccessKeys
from consolidation.portability import Portability
from consolidation.providers.embedders import Embedder
from consolidation.providers.llm.base import LanguageModel
from consolidation.recall.audit import MemoryAudit
from consolidation.settings import EngineSettings
from graph.database import Database
from graph.schema import Migration, migrate


@dataclass(frozen=True)
class Storage:
    """The database as readiness sees it: migrated for this embedder, and answering."""

    db: Database
    embedder: Embedder
    settings: EngineSettings

    async def migrate(self) -> Migration:
        """Create what the schema lacks; refuse (SchemaMismatch) another embedder's database."""
        embedder = self.embedder
        return await migrate(self.db, embedder.name, embedder.dimension, self.settings.embedding_template)

    async def ping(self) -> None:
        await self.db.ping()


@dataclass(frozen=True)
class Memory:
    """The service's parts, all over one `Stores`."""

    engine: MemoryEngine
    forgetter: Forgetter
    audit: MemoryAudit
    keys: AccessKeys
    storage: Storage
    # Export and import of a user's memory (consolidation/portability.py).
    portability: Portability


def assemble(
    db: Database,
    embedder: Embedder,
    consolidator: Consolidator,
    settings: EngineSettings,
    *,
    planner_model: LanguageModel | None = None,
) -> Memory:
    """Build the stores once (the engine opens them over `db`) and every part over them;
    `planner_model`: the endpoint of the LLM planner (RECMEM_PLANNER=llm)."""
    return around(MemoryEngine(db, embedder, consolidator, settings, planner_model=planner_model))


def around(engine: MemoryEngine) -> Memory:
    """The other parts over an engine's stores (for an engine its caller built, as tests do)."""
    stores = engine.stores
    return Memory(
        engine=engine,
        forgetter=Forgetter(engine),
        audit=MemoryAudit(stores),
        keys=AccessKeys(stores.keys),
        storage=Storage(stores.db, engine.embedder, engine.settings),
        portability=Portability(stores.portability, engine.embedder, engine.settings.template),
    )
