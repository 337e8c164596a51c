"""A turn is embedded dated on the calendar of the offset it was said in (the day its relative
words and its facts are on), by the write path, an import and a re-embedding alike."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone

import numpy as np

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.portability import Portability, dump, parse
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.embedding_template import EmbeddingTemplate
from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from graph.portability import PortabilityStore
from tests.support.engines import DIMENSION, engine_settings

# 00:30 on 5 December in Karachi: 19:30 UTC on the 4th.
SAID = datetime(2026, 12, 5, 0, 30, tzinfo=timezone(timedelta(hours=5)))
PATTERN = "{time} | On {date}, {speaker} said: {text}"
EXPECTED = "5 December 2026, 00:30 +05:00 | On 5 December 2026, Bob said: I saw the dentist today."


async def _vector(db: Database, owner: Owner) -> np.ndarray:
    result = await db.driver.execute_query(
        "MATCH (n:Interaction {tenant: $t}) RETURN n.embedding AS embedding",
        {"t": owner.tenant},
        database_=db.name,
    )
    [record] = result.records
    return np.asarray(record["embedding"], dtype=np.float32)


def test_the_template_dates_a_turn_on_its_own_calendar() -> None:
    template = EmbeddingTemplate(PATTERN)
    assert template.render("I saw the dentist today.", "Bob", SAID) == EXPECTED
    # In UTC, or naive (taken as UTC), as before.
    utc = SAID.astimezone(UTC)
    expected_utc = "4 December 2026, 19:30 UTC | On 4 December 2026, Bob said: x"
    assert template.render("x", "Bob", utc) == expected_utc
    assert template.render("x", "Bob", utc.replace(tzinfo=None)) == expected_utc


async def test_write_and_import_embed_the_day_it_was_said(db: Database, owner: Owner) -> None:
    embedder = HashingEmbedder(DIMENSION)
    expected = (await embedder.embed([EXPECTED]))[0]
    engine = MemoryEngine(db, embedder, OfflineConsolidator(), engine_settings(embedding_template=PATTERN))
    await engine.remember(owner, Unit(text="I saw the dentist today.", speaker="Bob", occurred_at=SAID))
    assert np.allclose(await _vector(db, owner), expected, atol=1e-6)

    portability = Portability(PortabilityStore(db, DIMENSION), embedder, EmbeddingTemplate(PATTERN))
    lines = [dump(line) + "\n" async for line in portability.export(owner)]
    elsewhere = Owner(tenant=f"t-{uuid.uuid4().hex[:12]}", user_id=owner.user_id)
    await portability.import_user(parse(lines), elsewhere)
    assert np.allclose(await _vector(db, elsewhere), expected, atol=1e-6)
