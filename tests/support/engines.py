"""What the tests' engines are built with: the embedding dimension and template, engine settings,
an engine over the local LLM server, and who holds a user's lease."""

from __future__ import annotations

from typing import Any

from consolidation.consolidating.llm_consolidator import LLMConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.llm import build_language_model
from consolidation.settings import EngineSettings, LLMSettings
from graph.database import Database
from graph.models import Owner
from local_llm_server import LocalLLMServer

DIMENSION = 384
# What the tests' engines embed, and what the session database records: the gate tests' texts and
# thresholds are chosen on bare-text similarities, which a shared "On <date>, <speaker> said:"
# would lift. Services and benchmarks that tests start get it too (RECMEM_EMBEDDING_TEMPLATE).
# The default template itself is tested in test_recall_context.py.
TEST_TEMPLATE = "{text}"


def engine_settings(**overrides: Any) -> EngineSettings:
    # Inline, so that a test sees each remember's consolidation in its result.
    # Any: EngineSettings checks each value, as it does a RECMEM_* variable.
    base: dict[str, Any] = {
        "theta_sim": 0.3,
        "theta_count": 3,
        "merge_threshold": 0.75,
        # A merge per turn, which most tests assert; tests/integration/test_gated_merge.py covers the batches.
        "merge_batch": 1,
        "consolidation_mode": "inline",
        "embedding_template": TEST_TEMPLATE,
    }
    return EngineSettings(**(base | overrides))


def llm_engine(db: Database, server: LocalLLMServer, **overrides: object) -> MemoryEngine:
    """An engine whose consolidator (and LLM planner, with planner="llm") talks real HTTP to the
    local server through the openai client."""
    llm_settings = LLMSettings(
        base_url=server.base_url, api_key="test-key", model="local-test-model", timeout_s=2.0, max_retries=1
    )
    model = build_language_model(llm_settings)
    assert model is not None
    return MemoryEngine(
        db,
        HashingEmbedder(DIMENSION),
        LLMConsolidator(model),
        engine_settings(**overrides),
        planner_model=model,
    )


async def lease_of(db: Database, owner: Owner) -> object:
    """Who holds the user's consolidation lease (None: nobody, or no such user yet)."""
    rows = await db.driver.execute_query(
        "MATCH (u:User {tenant: $t, id: $u}) RETURN u.lease_holder AS holder",
        t=owner.tenant,
        u=owner.user_id,
        database_=db.name,
    )
    return rows.records[0]["holder"] if rows.records else None
