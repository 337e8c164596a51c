"""The subconscious layer: raw interactions, written durably and searched per user."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from neo4j.vector import Vector

from graph.database import Database, Row
from graph.errors import InvalidInput
from graph.lexical import length
from graph.models import Hit, Interaction, NewInteraction, Owner, StoredInteraction, new_id, utc_offset_s
from graph.records import interaction_from
from graph.scopes import NO_FILTER, ScopeFilter, metadata_json, scope_tokens
from graph.validation import require_aware
from graph.vectors import vector_param
from graph.vocabulary import INTERACTION_ID_PREFIX

# The most rows one write statement carries (what a transaction of Neo4j's holds comfortably).
MAX_BATCH = 10_000
WRITE = "queries/interactions/write_batch"
# Candidates the vector index returns per search, of which the k most similar are kept.
SEARCH_POOL = 100


class InteractionStore:
    """Writes and reads `Interaction` nodes, always scoped to one owner.

    A write's units are checked once, where they enter (consolidation/writing/checks.py: the owner, the
    texts and names; the `Unit` model: the times). The store checks what is its own: the
    vectors against its index's dimension, and the size of one statement."""

    def __init__(self, db: Database, dimension: int) -> None:
        self.db = db
        self.dimension = dimension

    async def write_batch(self, owner: Owner, items: list[NewInteraction]) -> list[StoredInteraction]:
        """Store items durably in one statement; a known source_ref returns the existing id."""
        if not items:
            return []  # nothing to send: the statement would create the user all the same
        return (await self.write_prepared([self.prepare(owner, items)]))[0]

    def prepare(self, owner: Owner, items: list[NewInteraction]) -> PreparedWrite:
        """Check and pack a write without sending anything: what can fail on its input fails here,
        so a write that joins others in one transaction (consolidation/writing/write_groups.py) cannot
        fail them for its own input."""
        if len(items) > MAX_BATCH:
            raise InvalidInput(f"a batch holds at most {MAX_BATCH} interactions")
        return PreparedWrite(owner, items, self.dimension)

    async def write_prepared(self, writes: list[PreparedWrite]) -> list[list[StoredInteraction]]:
        """Prepared writes in one transaction, all committed or none. Writes of one user share one
        statement, in the given order (rows keep their order, so seq and NEXT follow it); a write
        repeating a sourceRef of an earlier one goes in a later statement, which sees it as known."""
        if len(writes) == 1:
            # One statement: the same path as ever (one transaction, retried within the window).
            only = writes[0]
            rows = await self.db.write(WRITE, **only.owner.params(), rows=only.rows)
            return [only.stored(rows[0]["known"], rows[0]["created"])]
        statements = _Statements(writes)
        answers = await self.db.write_many(statements.sent())
        return statements.stored([a[0] for a in answers])

    async def pending(self, owner: Owner, limit: int) -> list[tuple[Interaction, list[float]]]:
        """Interactions the recurrence gate has not seen yet, oldest first, with their vectors."""
        rows = await self.db.read("queries/interactions/pending", **owner.params(), limit=limit)
        return [(interaction_from(r["interaction"]), list(r["embedding"])) for r in rows]

    async def get(self, owner: Owner, ids: list[str]) -> list[Interaction]:
        rows = await self.db.read("queries/interactions/get", **owner.params(), ids=ids)
        return [interaction_from(row["interaction"]) for row in rows]

    async def search(
        self,
        owner: Owner,
        vector: list[float],
        k: int,
        *,
        include_consolidated: bool = True,
        as_of: datetime | None = None,
        scope: ScopeFilter = NO_FILTER,
    ) -> list[Hit[Interaction]]:
        """The k most similar interactions of this owner, scores as plain cosine; `scope` filters
        an as-of search (recall's present one filters in graph/recall.py)."""
        # The index searches with a beam as wide as the pool it returns; with a beam of k it
        # missed most of the true top 10 (docs/benchmarks/vector-search.md), so the k best of a
        # wider pool are kept. Users with fewer interactions than the pool are scanned exactly.
        candidates = max(k, SEARCH_POOL)
        query = vector_param("query vector", vector, self.dimension)
        params: dict[str, Any] = {
            **owner.params(),
            "vector": query,
            "k": k,
            "candidates": candidates,
        }
        if as_of is not None:
            require_aware("as_of", as_of)
            name = "queries/interactions/search_vector_as_of"
            params |= {"as_of": as_of, "include_consolidated": include_consolidated, **scope.params()}
        elif scope.active:
            raise InvalidInput("a filtered search is an as-of one here; recall filters the present")
        else:
            name = "queries/interactions/search_vector"
            params["consolidated"] = [False, True] if include_consolidated else [False]
        rows = await self.db.read(name, **params)
        return [Hit(interaction_from(r["interaction"]), float(r["score"])) for r in rows]


class _Statements:
    """Several users' prepared writes as the fewest statements that keep each user's order."""

    def __init__(self, writes: list[PreparedWrite]) -> None:
        self.writes = writes
        # Per statement: its owner, rows, and sourceRefs; per write: the statement it joined.
        self.owners: list[Owner] = []
        self.rows: list[list[dict[str, Any]]] = []
        self.refs: list[set[str]] = []
        self.joined: list[int] = []
        latest: dict[Owner, int] = {}
        for write in writes:
            index = latest.get(write.owner)
            refs = {r for r in write.refs if r is not None}
            if index is None or refs & self.refs[index]:
                index = len(self.rows)
                self.owners.append(write.owner)
                self.rows.append([])
                self.refs.append(set())
                latest[write.owner] = index
            self.rows[index] += write.rows
            self.refs[index] |= refs
            self.joined.append(index)

    def sent(self) -> list[tuple[str, dict[str, Any]]]:
        return [(WRITE, {**o.params(), "rows": r}) for o, r in zip(self.owners, self.rows, strict=True)]

    def stored(self, answers: list[Row]) -> list[list[StoredInteraction]]:
        # A write finds its own rows by id and its known sourceRefs by ref in its statement's answer.
        return [
            w.stored(answers[i]["known"], answers[i]["created"])
            for w, i in zip(self.writes, self.joined, strict=True)
        ]


class PreparedWrite:
    """One user's checked write, ready to send: ids assigned, vectors packed, and the mapping of
    the statement's answer back to every item (an item repeating a source_ref of an earlier item
    in the batch gets that item's id)."""

    def __init__(self, owner: Owner, items: list[NewInteraction], dimension: int) -> None:
        self.owner = owner
        self.refs: list[str | None] = [item.source_ref for item in items]
        self.ids: list[str] = []
        self.rows: list[dict[str, Any]] = []
        first: dict[str, str] = {}
        for index, item in enumerate(items):
            # Checked (and packed) for every item before anything is written, repeats included.
            embedding = vector_param(f"interaction {index} embedding", item.embedding, dimension)
            _check_sentence_vectors(f"interaction {index} sentence vectors", item.sentence_vectors, dimension)
            ref = item.source_ref
            if ref is not None and ref in first:
                self.ids.append(first[ref])
                continue
            record_id = new_id(INTERACTION_ID_PREFIX)
            first.update({ref: record_id} if ref is not None else {})
            self.ids.append(record_id)
            parts = [
                {
                    "id": f"{record_id}_p{number}",
                    "index": number,
                    "start": part.start,
                    "end": part.end,
                    "embedding": vector_param(
                        f"interaction {index} part {number}", part.embedding, dimension
                    ),
                }
                for number, part in enumerate(item.parts)
            ]
            self.rows.append(_row(record_id, item, embedding) | {"parts": parts})

    @property
    def size(self) -> int:
        return len(self.ids)

    def stored(self, known: list[Row], created: list[Row]) -> list[StoredInteraction]:
        by_ref = {k["source_ref"]: k for k in known}
        seq_of = {c["id"]: int(c["seq"]) for c in created}
        result: list[StoredInteraction] = []
        reported: set[str] = set()
        for record_id, ref in zip(self.ids, self.refs, strict=True):
            if ref is not None and ref in by_ref:
                result.append(StoredInteraction(by_ref[ref]["id"], int(by_ref[ref]["seq"]), False, ref))
                continue
            result.append(StoredInteraction(record_id, seq_of[record_id], record_id not in reported, ref))
            reported.add(record_id)
        return result


def _row(record_id: str, item: NewInteraction, embedding: Vector) -> dict[str, Any]:
    return {
        "id": record_id,
        "session_id": item.session_id,
        "speaker": item.speaker,
        "text": item.text,
        "lex_length": length(item.text),
        # The instant in UTC (Neo4j orders one instant in two offsets apart), beside its offset.
        "occurred_at": _in_utc(item.occurred_at).isoformat(),
        "utc_offset_s": utc_offset_s(item.occurred_at),
        "source_ref": item.source_ref,
        "embedding": embedding,
        "sentence_vectors": item.sentence_vectors,
        "agent_id": item.agent_id,
        "metadata": metadata_json(item.metadata),
        "scopes": scope_tokens(item.agent_id, item.session_id, item.speaker, item.metadata),
    }


def _in_utc(moment: datetime) -> datetime:
    """An aware time as its UTC instant; a naive one as it is (Neo4j reads it as UTC)."""
    return moment if moment.utcoffset() is None else moment.astimezone(UTC)


def _check_sentence_vectors(where: str, packed: bytes | None, dimension: int) -> None:
    """Whole float16 rows of the index's dimension, or nothing."""
    if packed is not None and (not packed or len(packed) % (2 * dimension)):
        rows = f"{dimension}-d float16 rows"
        raise InvalidInput(f"{where}: {len(packed)} bytes is not a whole number of {rows}")
