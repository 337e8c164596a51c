"""The subconscious layer: raw interactions, written durably and searched per user."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.database import Database, Row, run
from graph.errors import InvalidInput
from graph.lucene import lucene_query
from graph.models import (
    Hit,
    Interaction,
    NewInteraction,
    Owner,
    StoredInteraction,
    new_id,
)
from graph.records import interaction_from
from graph.validation import (
    require_aware,
    require_name,
    require_owner,
    require_text,
    require_vector,
)

MAX_BATCH = 10_000


class InteractionStore:
    """Writes and reads `Interaction` nodes, always scoped to one owner."""

    def __init__(self, db: Database, dimension: int, max_text_bytes: int = 32 * 1024) -> None:
        self.db = db
        self.dimension = dimension
        self.max_text_bytes = max_text_bytes

    async def write(self, owner: Owner, item: NewInteraction) -> StoredInteraction:
        return (await self.write_batch(owner, [item]))[0]

    async def write_batch(self, owner: Owner, items: list[NewInteraction]) -> list[StoredInteraction]:
        """Store items durably in one transaction; a known source_ref returns the existing id."""
        self._validate(owner, items)

        async def work(tx: AsyncManagedTransaction) -> list[StoredInteraction]:
            refs = [i.source_ref for i in items if i.source_ref is not None]
            state = (
                await run(tx, "queries/interactions/lock_owner", {**owner.params(), "source_refs": refs})
            )[0]
            known = {e["source_ref"]: e for e in state["existing"] if e["source_ref"] is not None}
            stored, rows = _plan(items, known, int(state["seq"]))
            if rows:
                await run(
                    tx,
                    "queries/interactions/create_batch",
                    {
                        **owner.params(),
                        "rows": rows,
                        "last_id": state["last_id"],
                        "last_seq": max(r["seq"] for r in rows),
                    },
                )
            return stored

        return await self.db.write_transaction(work)

    async def pending(self, owner: Owner, limit: int) -> list[tuple[Interaction, list[float]]]:
        """Interactions the recurrence gate has not seen yet, oldest first, with their vectors."""
        rows = await self.db.read("queries/interactions/pending", **owner.params(), limit=limit)
        return [(interaction_from(r["interaction"]), list(r["embedding"])) for r in rows]

    async def mark_checked(self, owner: Owner, ids: list[str]) -> None:
        await self.db.write("queries/interactions/mark_checked", **owner.params(), ids=ids)

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
    ) -> list[Hit[Interaction]]:
        """The k most similar interactions of this owner, scores as plain cosine."""
        require_vector("query vector", vector, self.dimension)
        # The index searches with a beam as wide as the pool it returns; a beam of k alone missed
        # most of the true top 10 in bench/vector_search.py, a pool of 100 keeps recall >= 0.95.
        candidates = max(k, 100)
        params: dict[str, Any] = {
            **owner.params(), "vector": vector, "k": k, "candidates": candidates,
        }
        if as_of is not None:
            require_aware("as_of", as_of)
            name = "queries/interactions/search_vector_as_of"
            params |= {"as_of": as_of, "include_consolidated": include_consolidated}
        elif include_consolidated:
            name = "queries/interactions/search_vector"
        else:
            name = "queries/interactions/search_vector_unconsolidated"
        rows = await self.db.read(name, **params)
        return [Hit(interaction_from(r["interaction"]), float(r["score"])) for r in rows]

    async def search_text(
        self, owner: Owner, text: str, k: int, *, include_consolidated: bool = True
    ) -> list[Hit[Interaction]]:
        lucene = lucene_query(text, owner)
        if lucene is None:
            return []
        rows = await self.db.read(
            "queries/interactions/search_text",
            **owner.params(),
            lucene=lucene,
            k=k,
            include_consolidated=include_consolidated,
        )
        return [Hit(interaction_from(r["interaction"]), float(r["score"])) for r in rows]

    def _validate(self, owner: Owner, items: list[NewInteraction]) -> None:
        require_owner(owner.tenant, owner.user_id)
        if not items:
            raise InvalidInput("a batch needs at least one interaction")
        if len(items) > MAX_BATCH:
            raise InvalidInput(f"a batch holds at most {MAX_BATCH} interactions")
        for index, item in enumerate(items):
            where = f"interaction {index}"
            require_name(f"{where} speaker", item.speaker)
            require_text(f"{where} text", item.text, self.max_text_bytes)
            require_vector(f"{where} embedding", item.embedding, self.dimension)
            require_aware(f"{where} occurred_at", item.occurred_at)
            if item.source_ref is not None:
                require_name(f"{where} source_ref", item.source_ref)


def _plan(
    items: list[NewInteraction], known: dict[str, Row], seq: int
) -> tuple[list[StoredInteraction], list[dict[str, Any]]]:
    """Ids and sequence numbers for the new items; known or repeated source_refs map to one id."""
    stored: list[StoredInteraction] = []
    rows: list[dict[str, Any]] = []
    seen: dict[str, StoredInteraction] = {}
    for item in items:
        ref = item.source_ref
        if ref is not None and ref in known:
            stored.append(StoredInteraction(known[ref]["id"], int(known[ref]["seq"]), False, ref))
            continue
        if ref is not None and ref in seen:
            stored.append(StoredInteraction(seen[ref].id, seen[ref].seq, False, ref))
            continue
        seq += 1
        record = StoredInteraction(new_id("int"), seq, True, ref)
        seen.update({ref: record} if ref is not None else {})
        stored.append(record)
        rows.append(
            {
                "id": record.id,
                "seq": seq,
                "session_id": item.session_id,
                "speaker": item.speaker,
                "text": item.text,
                "occurred_at": item.occurred_at.isoformat(),
                "source_ref": ref,
                "embedding": item.embedding,
            }
        )
    return stored, rows
