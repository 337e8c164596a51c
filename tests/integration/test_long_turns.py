"""Long interactions: a 256 KB turn is accepted, every part of it is searchable, it is counted once,
shown by its matching part, and forgetting erases its parts."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.forgetting.forgetter import Forgetter
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.reembedding import Reembedder
from consolidation.types import Budgets, Unit
from consolidation.writing.parts import LONG_CHARS, PART_CHARS, part_spans
from graph.database import Database
from graph.errors import InvalidInput
from graph.models import Interaction, Owner
from graph.schema import EmbeddingSpec
from graph.vocabulary import DEFAULT_MAX_TEXT_BYTES
from tests.integration.test_reembed import TEMPLATE_B, restored
from tests.support.engines import DIMENSION, engine_settings
from tests.support.graph_reads import owned_count

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
__all__ = ["restored"]  # the fixture that puts the session's guard back after re-embedding
FILLER = "The committee reviewed the quarterly figures for the northern region in detail. "
LATE = (
    "Where is my passport kept? My passport is kept in the blue cedar drawer upstairs, "
    "the drawer where my passport is always kept."
)
QUERY = "where is my passport kept, which drawer"


def _long_text(size: int) -> str:
    """About `size` bytes of filler with LATE as its very last sentence, in a part of its own (the
    filler fills whole parts)."""
    per_part = PART_CHARS // len(FILLER)
    return FILLER * ((size - len(LATE)) // len(FILLER) // per_part * per_part) + LATE


def _engine(db: Database, **settings: object) -> MemoryEngine:
    """Salience off: a passport's place is an identifier, which salience consolidates at once, and
    these tests read the raw turns' layer."""
    chosen = {"salience": "off"} | settings
    return MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**chosen))


def test_parts_cover_the_text_in_order_within_their_size() -> None:
    text = _long_text(20_000) + " " + "x" * 2_000  # one "sentence" longer than a part
    spans = part_spans(text)
    assert spans[0].start == 0 and spans[-1].end == len(text)
    assert all(a.end == b.start for a, b in itertools.pairwise(spans))
    assert all(0 < s.end - s.start <= PART_CHARS for s in spans)
    assert part_spans("short turn " * 10) == [] and len("short turn " * 10) <= LONG_CHARS


async def test_a_256_kb_turn_is_stored_and_its_last_sentence_is_found(db: Database, owner: Owner) -> None:
    assert DEFAULT_MAX_TEXT_BYTES >= 256 * 1024
    engine = _engine(db)
    text = _long_text(256 * 1024)
    assert len(text.encode()) <= 256 * 1024
    # Short turns that share a word or two with the query: without its parts, the long turn's
    # one vector (all filler) would rank below them.
    others = ["I renewed my passport last year.", "The drawer of the desk sticks.", "Which one is kept?"]
    for n, other in enumerate(others):
        await engine.remember(owner, Unit(text=other, speaker="Ann", occurred_at=T0 + timedelta(hours=n)))
    # Its write cost is measured by bench/long_turns.py (a time bound here would flake under load).
    long = await engine.remember(owner, Unit(text=text, speaker="Ann", occurred_at=T0 + timedelta(days=1)))
    assert await owned_count(db, owner, "InteractionPart") == len(part_spans(text)) > 300

    dense = await engine.recall(owner, QUERY, budgets=Budgets(10, 0, 0), lexical=False)
    ids = [h.id for h in dense.subconscious]
    assert ids[0] == long.interaction_id
    assert ids.count(long.interaction_id) == 1 and len(ids) == len(others) + 1

    found = await engine.recall(owner, QUERY, tokens=500)
    assert found.context is not None
    lines = [i for i in found.context.items if i.hit.id == long.interaction_id]
    assert len(lines) == 1  # counted once, lexical and dense views together
    assert LATE in lines[0].line and lines[0].line.startswith("- Ann: … ")
    assert found.context.tokens <= 500


async def test_a_raw_context_shows_a_long_turn_whole_or_not_at_all(db: Database, owner: Owner) -> None:
    engine = _engine(db, context_focus=False)
    long = await engine.remember(owner, Unit(text=_long_text(20_000), speaker="Ann", occurred_at=T0))
    found = await engine.recall(owner, QUERY, tokens=500)
    assert found.context is not None
    assert long.interaction_id not in {i.hit.id for i in found.context.items}


async def test_forgetting_a_long_turn_erases_its_parts(db: Database, owner: Owner) -> None:
    engine = _engine(db)
    kept = await engine.remember(owner, Unit(text=_long_text(5_000), speaker="Ann", occurred_at=T0))
    gone = await engine.remember(owner, Unit(text=_long_text(9_000), speaker="Ann", occurred_at=T0))
    before = await owned_count(db, owner, "InteractionPart")
    assert before == len(part_spans(_long_text(5_000))) + len(part_spans(_long_text(9_000)))
    await Forgetter(engine).forget_interaction(owner, gone.interaction_id, by="tests (key_test)")
    assert await owned_count(db, owner, "InteractionPart") == len(part_spans(_long_text(5_000)))
    dense = await engine.recall(owner, QUERY, budgets=Budgets(10, 0, 0), lexical=False)
    assert [h.id for h in dense.subconscious] == [kept.interaction_id]
    await Forgetter(engine).forget_user(owner)
    assert await owned_count(db, owner, "InteractionPart") == 0


async def _long_interactions(db: Database, owner: Owner) -> tuple[int | None, int]:
    """The user node's count of long interactions, and a recount of those with parts."""
    rows = await db.driver.execute_query(
        "MATCH (u:User {tenant: $t, id: $u}) "
        "OPTIONAL MATCH (n:Interaction {tenant: $t, user_id: $u}) WHERE EXISTS { (n)-[:HAS_PART]->() } "
        "RETURN u.long_interactions AS kept, count(n) AS counted",
        t=owner.tenant,
        u=owner.user_id,
        database_=db.name,
    )
    return rows.records[0]["kept"], int(rows.records[0]["counted"])


async def test_the_count_of_long_turns_matches_a_recount_through_writes_and_forgets(
    db: Database, owner: Owner
) -> None:
    engine = _engine(db)
    short = await engine.remember(owner, Unit(text="My passport is at home.", speaker="Ann", occurred_at=T0))
    assert await _long_interactions(db, owner) == (0, 0)
    # Without parts to read, dense recall still finds the short turn (the parts are skipped).
    dense = await engine.recall(owner, QUERY, budgets=Budgets(10, 0, 0), lexical=False)
    assert [h.id for h in dense.subconscious] == [short.interaction_id]
    batch = [
        Unit(text=_long_text(size), speaker="Ann", occurred_at=T0 + timedelta(minutes=i))
        for i, size in enumerate((5_000, 900, 9_000, 3_000))
    ]
    written = await engine.remember_batch(owner, batch, consolidate=False)
    assert await _long_interactions(db, owner) == (3, 3)
    forgetter = Forgetter(engine)
    await forgetter.forget_interaction(
        owner, written[1].interaction_id, by="tests (key_test)"
    )  # short: no part
    assert await _long_interactions(db, owner) == (3, 3)
    await forgetter.forget_interaction(owner, written[2].interaction_id, by="tests (key_test)")
    assert await _long_interactions(db, owner) == (2, 2)
    for gone in (written[0], written[3]):
        await forgetter.forget_interaction(owner, gone.interaction_id, by="tests (key_test)")
    assert await _long_interactions(db, owner) == (0, 0)
    dense = await engine.recall(owner, QUERY, budgets=Budgets(10, 0, 0), lexical=False)
    assert [h.id for h in dense.subconscious] == [short.interaction_id]


async def test_a_turn_over_the_limit_names_the_limit_and_the_setting(db: Database, owner: Owner) -> None:
    engine = _engine(db, max_text_bytes=1_000)
    with pytest.raises(InvalidInput, match=r"the limit is 1000 bytes \(RECMEM_MAX_TEXT_BYTES\)"):
        await engine.remember(owner, Unit(text="y" * 1_001, speaker="Ann", occurred_at=T0))
    assert await engine.recall(owner, "y", budgets=Budgets(10, 0, 0)) is not None
    dense = await engine.recall(owner, "y", budgets=Budgets(10, 0, 0))
    assert [h for h in dense.subconscious if isinstance(h.item, Interaction)] == []


async def test_reembedding_rebuilds_a_long_turns_parts(
    db: Database, owner: Owner, restored: EmbeddingSpec
) -> None:
    engine = _engine(db)
    text = _long_text(5_000)
    await engine.remember(owner, Unit(text=text, speaker="Ann", occurred_at=T0), consolidate=False)
    assert await owned_count(db, owner, "InteractionPart") == len(part_spans(text))
    await Reembedder(db, HashingEmbedder(DIMENSION), TEMPLATE_B, tenant=owner.tenant).run()
    rows = await db.driver.execute_query(
        "MATCH (p:InteractionPart {tenant: $t}) RETURN p.start AS start, p.end AS end, p.embedding AS v",
        t=owner.tenant,
        database_=db.name,
    )
    assert len(rows.records) == len(part_spans(text))
    last = max(rows.records, key=lambda r: r["start"])
    expected = HashingEmbedder(DIMENSION).embed_sync(
        [TEMPLATE_B.render(text[last["start"] : last["end"]].strip(), "Ann", T0)]
    )[0]
    assert np.allclose(np.asarray(last["v"], dtype=np.float32), expected, atol=1e-6)
