"""Pages of stored nodes to re-embed, and their new vectors written back (`recmem db reembed`).

Every node written back carries the target's key (`embedding_key`), so a rerun after an
interruption reads only what is left. The store stores strings and vectors; what text a node is
embedded from, and with what, is the caller's business.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from graph.database import Database
from graph.models import NewPart, said_at
from graph.records import instant
from graph.validation import VectorValues
from graph.vectors import vector_param

Layer = Literal["Interaction", "Episode", "Fact"]
LAYERS: tuple[Layer, ...] = ("Interaction", "Episode", "Fact")
_PAGES: dict[Layer, str] = {
    "Interaction": "queries/reembed/page_interactions",
    "Episode": "queries/reembed/page_episodes",
    "Fact": "queries/reembed/page_facts",
}
_WRITES: dict[Layer, str] = {
    "Interaction": "queries/reembed/write_interactions",
    "Episode": "queries/reembed/write_episodes",
    "Fact": "queries/reembed/write_facts",
}


@dataclass(frozen=True)
class StaleNode:
    """A node whose vector was not made for the target yet. `text` is what its layer embeds (an
    episode's summary); interactions also bring what the template renders beside it."""

    id: str
    text: str
    speaker: str | None = None
    occurred_at: datetime | None = None


class ReembedStore:
    """Reads and writes one target's vectors; `tenant` narrows it to one tenant (tests), None
    means every tenant."""

    def __init__(self, db: Database, key: str, dimension: int, tenant: str | None = None) -> None:
        self.db = db
        self.key = key
        self.dimension = dimension
        self.tenant = tenant

    async def remaining(self) -> dict[Layer, int]:
        rows = await self.db.read("queries/reembed/remaining", key=self.key, tenant=self.tenant)
        row = rows[0]
        return {"Interaction": row["interactions"], "Episode": row["episodes"], "Fact": row["facts"]}

    async def page(self, layer: Layer, after: str, limit: int) -> list[StaleNode]:
        """Up to `limit` stale nodes of the layer whose id sorts after `after`, in id order."""
        rows = await self.db.read(_PAGES[layer], key=self.key, tenant=self.tenant, after=after, limit=limit)
        return [_stale(row) for row in rows]

    async def write(
        self,
        layer: Layer,
        nodes: Sequence[StaleNode],
        vectors: Sequence[VectorValues],
        sentence_vectors: Sequence[bytes | None] | None = None,
        parts: Sequence[Sequence[NewPart]] | None = None,
    ) -> int:
        """Store the vectors (and an interaction's packed sentence vectors) and mark the nodes, in
        one transaction; how many were written (a node changed or erased since it was read is not)."""
        sentences = sentence_vectors if sentence_vectors is not None else [None] * len(nodes)
        each = parts if parts is not None else [()] * len(nodes)
        rows = [
            {
                "id": node.id,
                "text": node.text,
                "embedding": vector_param(f"vector of {node.id}", v, self.dimension),
                "sentence_vectors": packed,
                "parts": [
                    {
                        "index": i,
                        "start": p.start,
                        "end": p.end,
                        "embedding": vector_param(f"part {i} of {node.id}", p.embedding, self.dimension),
                    }
                    for i, p in enumerate(found)
                ],
            }
            for node, v, packed, found in zip(nodes, vectors, sentences, each, strict=True)
        ]
        written = await self.db.write(_WRITES[layer], rows=rows, key=self.key)
        return int(written[0]["written"]) if written else 0


def _stale(row: dict[str, Any]) -> StaleNode:
    occurred_at = row.get("occurred_at")
    return StaleNode(
        id=row["id"],
        text=row["text"],
        speaker=row.get("speaker"),
        occurred_at=None
        if occurred_at is None
        else said_at(instant(occurred_at), row.get("utc_offset_s") or 0),
    )
