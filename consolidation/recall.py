"""Layered recall: one query embedding, three scoped searches, lexical fusion by rank."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

from consolidation.embedders import Embedder
from consolidation.pipeline import Stores
from consolidation.types import Budgets, Recall, RecallHit
from graph.models import Episode, Fact, Hit, Interaction, Owner
from graph.recall import Candidates, RecallCandidates, RecallSearch, Sources

T = TypeVar("T", Interaction, Episode, Fact)
# Reciprocal-rank-fusion constant: the usual 60 keeps one list's top hit from dominating.
RRF_K = 60


class Recaller:
    def __init__(self, stores: Stores, search: RecallSearch, embedder: Embedder) -> None:
        self.stores = stores
        self.search = search
        self.embedder = embedder

    async def recall(
        self,
        owner: Owner,
        query: str,
        budgets: Budgets,
        *,
        as_of: datetime | None,
        include_consolidated: bool,
        lexical: bool,
    ) -> Recall:
        vector = (await self.embedder.embed([query]))[0].tolist()
        if as_of is not None:
            found = await self._as_of(owner, vector, budgets, as_of, include_consolidated)
        else:
            found = await self.search.candidates(
                owner,
                vector,
                query if lexical else None,
                interactions=budgets.subconscious,
                episodes=budgets.episodic,
                facts=budgets.semantic,
                include_consolidated=include_consolidated,
            )
        sub = fuse(found.interactions.dense, found.interactions.lexical, k=budgets.subconscious)
        epi = fuse(found.episodes.dense, found.episodes.lexical, k=budgets.episodic)
        sem = fuse(found.facts.dense, found.facts.lexical, k=budgets.semantic)
        # Provenance only for what survived fusion.
        sources = await self.search.sources(owner, [h.item.id for h in epi], [h.item.id for h in sem])
        return _assemble(query, as_of, sub, epi, sem, sources)

    async def _as_of(
        self, owner: Owner, vector: list[float], budgets: Budgets, as_of: datetime, include_consolidated: bool
    ) -> RecallCandidates:
        """Memory as it stood at `as_of`: vector-only (full-text indexes hold present state only),
        by exact scans of the user's nodes, since time filters are not in the vector indexes."""
        stores = self.stores
        sub, epi, sem = await asyncio.gather(
            stores.interactions.search(
                owner, vector, budgets.subconscious, include_consolidated=include_consolidated, as_of=as_of
            )
            if budgets.subconscious > 0
            else _nothing(),
            stores.episodes.search(owner, vector, budgets.episodic, as_of=as_of)
            if budgets.episodic > 0
            else _nothing(),
            stores.facts.search(owner, vector, budgets.semantic, as_of=as_of)
            if budgets.semantic > 0
            else _nothing(),
        )
        return RecallCandidates(interactions=_dense(sub), episodes=_dense(epi), facts=_dense(sem))


async def _nothing() -> list[Any]:
    return []


def _dense(hits: list[Hit[T]]) -> Candidates[T]:
    return Candidates(hits, [])


def _assemble(
    query: str,
    as_of: datetime | None,
    sub: list[Hit[Interaction]],
    epi: list[Hit[Episode]],
    sem: list[Hit[Fact]],
    sources: Sources,
) -> Recall:
    subconscious = [
        RecallHit("subconscious", h.item.id, h.item.text, h.score, h.item.occurred_at, [h.item.id], h.item)
        for h in sub
    ]
    episodic = [
        RecallHit(
            "episodic",
            h.item.id,
            h.item.summary,
            h.score,
            h.item.last_at,
            [i for i, _ in sources.episodes.get(h.item.id, [])],
            h.item,
        )
        for h in epi
    ]
    semantic = [
        RecallHit(
            "semantic",
            h.item.id,
            h.item.text,
            h.score,
            h.item.valid_from,
            sources.facts.get(h.item.id, ([], []))[1],
            h.item,
        )
        for h in sem
    ]
    return Recall(query, as_of, subconscious, episodic, semantic)


def fuse(dense: Sequence[Hit[T]], lexical: Sequence[Hit[T]], *, k: int) -> list[Hit[T]]:
    """Reciprocal rank fusion: ranks, not raw scores, since cosine and BM25 are not comparable.

    A fused hit keeps its dense cosine as `score` when it has one (else 0.0), so scores stay
    meaningful to callers; the order is the fused one.
    """
    fused: dict[str, float] = {}
    items: dict[str, Hit[T]] = {}
    for hits in (dense, lexical):
        for rank, hit in enumerate(hits):
            fused[hit.item.id] = fused.get(hit.item.id, 0.0) + 1.0 / (RRF_K + rank + 1)
            items.setdefault(hit.item.id, hit)
    cosine = {h.item.id: h.score for h in dense}
    order = sorted(fused, key=lambda i: fused[i], reverse=True)[:k]
    return [Hit(items[i].item, cosine.get(i, 0.0)) for i in order]
