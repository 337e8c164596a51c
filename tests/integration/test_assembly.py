"""One place builds the stores: every part of the service works over the same set."""

from __future__ import annotations

import ast
from pathlib import Path

from api.app import create_app
from api.services import Services
from consolidation.assembly import assemble
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.stores import Stores
from consolidation.wiring import AppSettings
from graph.database import Database
from tests.support.api import make_api_settings, make_engine
from tests.support.engines import DIMENSION, engine_settings

ROOT = Path(__file__).resolve().parents[2]
# Every store of the service (the fields of Stores but its database).
STORE_CLASSES = {
    "InteractionStore",
    "EpisodeStore",
    "FactStore",
    "ConsolidationStore",
    "WaitingStore",
    "LeaseStore",
    "RecallSearch",
    "EventLog",
    "ForgetStore",
    "BrowseStore",
    "ApiKeyStore",
    "PortabilityStore",
    "BeliefStore",
    "ThresholdStore",
}
# Where a store may be built: the one module, and the key facade's bare-database path (the CLI
# and library callers manage keys without a service).
ALLOWED = {"consolidation/stores.py": STORE_CLASSES, "consolidation/forgetting/keys.py": {"ApiKeyStore"}}


def built_stores(path: Path) -> set[str]:
    calls = (node for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Call))
    return {c.func.id for c in calls if isinstance(c.func, ast.Name) and c.func.id in STORE_CLASSES}


def test_the_store_classes_match_the_fields_of_stores() -> None:
    fields = Stores.__dataclass_fields__
    assert {f.type for name, f in fields.items() if name != "db"} == STORE_CLASSES


def test_no_other_module_above_the_graph_builds_a_store() -> None:
    found = {}
    for folder in ("consolidation", "api", "cli"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            extra = built_stores(path) - ALLOWED.get(where, set())
            if extra:
                found[where] = sorted(extra)
    assert found == {}


async def test_the_parts_of_an_assembly_share_one_set_of_stores(db: Database) -> None:
    memory = assemble(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    stores = memory.engine.stores
    assert memory.forgetter.interactions is stores.interactions
    assert memory.forgetter.leases is stores.leases is memory.engine.leases
    assert memory.forgetter.store is stores.forget
    assert memory.engine.recaller.stores is stores and memory.engine.pipeline.stores is stores
    assert memory.audit._facts is stores.facts and memory.audit._browse is stores.browse
    assert memory.keys._store is stores.keys
    # A lease this process takes over counts in the engine's metrics, whoever took it.
    assert stores.leases.on_takeover == memory.engine.metrics.lease_taken_over


async def test_the_api_is_given_the_parts_over_its_engine_stores(db: Database) -> None:
    engine = make_engine(db)
    app = create_app(AppSettings(), make_api_settings(), engine=engine)
    async with app.router.lifespan_context(app):
        services: Services = app.state.services
        assert services.engine is engine
        assert services.forgetter.interactions is engine.stores.interactions
        assert services.forgetter.leases is engine.leases
        assert services.audit._facts is engine.stores.facts
        assert services.keys._store is engine.stores.keys
        assert services.authenticator.keys is services.keys and services.readiness.migrated
