"""The subconscious layer against the real server: durable writes, idempotency, scoping, search."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import pytest
from neo4j.time import DateTime

from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.database import Database
from graph.errors import InvalidInput
from graph.interactions import InteractionStore
from graph.models import Hit, Interaction, NewInteraction, Owner
from graph.recall import RecallSearch
from graph.records import instant
from tests.support.api import make_engine
from tests.support.engines import DIMENSION
from tests.support.graph_reads import owned_count

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def _items(embedder: HashingEmbedder, texts: list[str], refs: bool = True) -> list[NewInteraction]:
    vectors = embedder.embed_sync(texts)
    return [
        NewInteraction(
            speaker="alice",
            text=text,
            occurred_at=T0 + timedelta(minutes=i),
            embedding=vectors[i].tolist(),
            session_id="s1",
            source_ref=f"D1:{i}" if refs else None,
        )
        for i, text in enumerate(texts)
    ]


async def _lexical(db: Database, owner: Owner, text: str, k: int) -> list[Hit[Interaction]]:
    """Full-text search over the owner's interactions, as recall runs it (its lexical view)."""
    found = await RecallSearch(db, DIMENSION).candidates(
        owner, [1.0] * DIMENSION, text, interactions=k, episodes=0, facts=0, include_consolidated=True
    )
    return found.interactions.lexical


async def test_batch_write_assigns_sequence_and_chains_next(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    store = InteractionStore(db, DIMENSION)
    stored = await store.write_batch(owner, _items(embedder, ["one", "two", "three"]))
    more = await store.write_batch(owner, _items(embedder, ["four"], refs=False))
    assert [s.seq for s in stored + more] == [1, 2, 3, 4]
    result = await db.driver.execute_query(
        "MATCH p = (:Interaction {id: $first})-[:NEXT*]->(:Interaction {id: $last}) RETURN length(p) AS hops",
        first=stored[0].id,
        last=more[0].id,
        database_=db.name,
    )
    assert result.records[0]["hops"] == 3


async def test_batch_write_is_idempotent_on_source_ref(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    store = InteractionStore(db, DIMENSION)
    items = _items(embedder, ["I love sushi", "We met in Paris"])
    first = await store.write_batch(owner, items)
    again = await store.write_batch(owner, [*items, items[0]])
    assert all(s.created for s in first)
    assert not any(s.created for s in again)
    assert [s.id for s in again] == [first[0].id, first[1].id, first[0].id]
    assert await owned_count(db, owner, "Interaction") == 2


async def test_reads_are_scoped_to_the_owner(db: Database, owner: Owner, embedder: HashingEmbedder) -> None:
    store = InteractionStore(db, DIMENSION)
    other_user = Owner(owner.tenant, "bob")
    other_tenant = Owner(owner.tenant + "-x", owner.user_id)
    mine = await store.write_batch(owner, _items(embedder, ["sushi dinner plans"]))
    await store.write_batch(other_user, _items(embedder, ["sushi dinner plans"]))
    await store.write_batch(other_tenant, _items(embedder, ["sushi dinner plans"]))
    query = embedder.embed_sync(["sushi dinner"])[0].tolist()
    for hits in (
        await store.search(owner, query, 10),
        await store.search(owner, query, 10, include_consolidated=False),
        await store.search(owner, query, 10, as_of=T0 + timedelta(days=1)),
        await _lexical(db, owner, "sushi", 10),
    ):
        assert [h.item.id for h in hits] == [mine[0].id]
        assert {(h.item.tenant, h.item.user_id) for h in hits} == {(owner.tenant, owner.user_id)}
    assert await store.get(other_user, [mine[0].id]) == []


async def test_vector_search_returns_k_hits_with_plain_cosine(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    store = InteractionStore(db, DIMENSION)
    texts = [f"note number {i} about topic {i % 3}" for i in range(15)]
    await store.write_batch(owner, _items(embedder, texts))
    query = embedder.embed_sync(["note about topic 1"])[0]
    hits = await store.search(owner, query.tolist(), 10)
    assert len(hits) == 10
    expected = {t: float(v @ query) for t, v in zip(texts, embedder.embed_sync(texts), strict=True)}
    for hit in hits:
        assert hit.score == pytest.approx(expected[hit.item.text], abs=1e-4)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


async def test_full_text_escapes_lucene_syntax(db: Database, owner: Owner, embedder: HashingEmbedder) -> None:
    store = InteractionStore(db, DIMENSION)
    await store.write_batch(owner, _items(embedder, ["C++ (and Rust) are fun: really!"]))
    hits = await _lexical(db, owner, 'rust) OR owner_key:* AND "fun', 5)
    assert [h.item.text for h in hits] == ["C++ (and Rust) are fun: really!"]
    assert await _lexical(db, owner, "*** ???", 5) == []


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda i: i.__class__(**{**i.__dict__, "embedding": [0.1] * 7}), "dimensions"),
        (lambda i: i.__class__(**{**i.__dict__, "embedding": [float("nan")] * DIMENSION}), "NaN"),
    ],
)
async def test_invalid_input_raises_and_writes_nothing(
    db: Database,
    owner: Owner,
    embedder: HashingEmbedder,
    mutate: Callable[[NewInteraction], NewInteraction],
    message: str,
) -> None:
    """What the store checks itself: the vectors, against its index."""
    store = InteractionStore(db, DIMENSION)
    good, bad = _items(embedder, ["fine text", "bad text"])
    with pytest.raises(InvalidInput, match=message):
        await store.write_batch(owner, [good, mutate(bad)])
    assert await owned_count(db, owner, "Interaction") == 0


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"text": "   "}, "empty"),
        ({"text": "x" * (256 * 1024 + 1)}, "limit is 262144 bytes"),
        ({"speaker": "   "}, "empty"),
        ({"source_ref": "   "}, "empty"),
    ],
)
async def test_invalid_units_raise_through_the_engine_and_write_nothing(
    db: Database, owner: Owner, fields: dict[str, str], message: str
) -> None:
    """The rest is checked where a remember enters (consolidation/writing/checks.py), for every caller."""
    engine = make_engine(db)
    with pytest.raises(InvalidInput, match=message):
        await engine.remember_batch(owner, [Unit(text="fine text"), Unit(**{"text": "bad text", **fields})])
    assert await owned_count(db, owner, "Interaction") == 0


def test_the_unit_model_refuses_an_empty_speaker_and_a_naive_time() -> None:
    """A time without a zone and an empty speaker never become a Unit (GraphQL: tests/integration/test_api_limits.py)."""
    with pytest.raises(ValueError, match="timezone"):
        Unit(text="x", occurred_at=datetime(2024, 1, 1))
    with pytest.raises(ValueError, match="at least 1 character"):
        Unit(text="x", speaker="")


async def test_empty_owner_and_empty_batch_are_refused(db: Database) -> None:
    engine = make_engine(db)
    with pytest.raises(InvalidInput):
        await engine.remember_batch(Owner("", "alice"), [Unit(text="x")])
    with pytest.raises(InvalidInput):
        await engine.remember_batch(Owner("t", "alice"), [])
    assert await owned_count(db, Owner("t", "alice"), "Interaction") == 0


async def test_recall_candidates_keep_the_exact_instant(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    """Recall reads instants as ISO strings (fast to decode): microseconds and offsets survive."""
    at = datetime(2024, 5, 1, 9, 0, 0, 123456, tzinfo=timezone(timedelta(hours=2)))
    vector = embedder.embed_sync(["violin lesson on thursday"])[0].tolist()
    item = NewInteraction(speaker="alice", text="violin lesson on thursday", occurred_at=at, embedding=vector)
    await InteractionStore(db, DIMENSION).write_batch(owner, [item])
    found = await RecallSearch(db, DIMENSION).candidates(
        owner, vector, "violin", interactions=5, episodes=0, facts=0, include_consolidated=False
    )
    dense, lexical = found.interactions.dense, found.interactions.lexical
    assert len(dense) == 1 and len(lexical) == 1
    assert dense[0].item.occurred_at == lexical[0].item.occurred_at == at
    assert dense[0].item.consolidated_at is None


def test_instants_decode_from_strings_and_driver_values() -> None:
    assert instant("2024-05-01T07:00:00.123456789Z") == datetime(2024, 5, 1, 7, 0, 0, 123456, tzinfo=UTC)
    # A named zone keeps its offset in the text: the instant is exact without the zone name.
    berlin = instant("2024-05-01T09:00:00+02:00[Europe/Berlin]")
    assert berlin == datetime(2024, 5, 1, 7, 0, tzinfo=UTC)
    assert instant(DateTime(2024, 5, 1, 7, 0, 0, tzinfo=UTC)) == datetime(2024, 5, 1, 7, 0, tzinfo=UTC)
    assert instant(None) is None
