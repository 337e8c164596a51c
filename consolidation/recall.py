"""Layered recall: one query embedding, three scoped searches, optional lexical fusion by rank."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import TypeVar

from consolidation.embedders import Embedder
from consolidation.types import Budgets, Recall, RecallHit
from graph.episodes import EpisodeStore
from graph.facts import FactStore
from graph.interactions import InteractionStore
from graph.models import Episode, Fact, Hit, Interaction, Owner

T = TypeVar("T", Interaction, Episode, Fact)
# Reciprocal-rank-fusion constant: the usual 60 keeps one list's top hit from dominating.
RRF_K = 60


class Recaller:
    def __init__(
        self, interactions: InteractionStore, episodes: EpisodeStore, facts: FactStore, embedder: Embedder
    ) -> None:
        self.interactions = interactions
        self.episodes = episodes
        self.facts = facts
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
        vector = [float(x) for x in (await self.embedder.embed([query]))[0]]
        # Full-text indexes hold present state only, so as-of recall is vector-only.
        lexical = lexical and as_of is None
        sub, epi, sem = await asyncio.gather(
            self._interactions(
                owner, query, vector, budgets.subconscious, as_of, include_consolidated, lexical
            ),
            self._episodes(owner, query, vector, budgets.episodic, as_of, lexical),
            self._facts(owner, query, vector, budgets.semantic, as_of, lexical),
        )
        episodic, semantic = await asyncio.gather(self._episode_hits(owner, epi), self._fact_hits(owner, sem))
        subconscious = [
            RecallHit(
                "subconscious", h.item.id, h.item.text, h.score, h.item.occurred_at, [h.item.id], h.item
            )
            for h in sub
        ]
        return Recall(query, as_of, subconscious, episodic, semantic)

    async def _interactions(
        self,
        owner: Owner,
        query: str,
        vector: list[float],
        k: int,
        as_of: datetime | None,
        include_consolidated: bool,
        lexical: bool,
    ) -> list[Hit[Interaction]]:
        if k <= 0:
            return []
        dense = self.interactions.search(
            owner, vector, k, include_consolidated=include_consolidated, as_of=as_of
        )
        if not lexical:
            return await dense
        text = self.interactions.search_text(owner, query, k, include_consolidated=include_consolidated)
        return fuse(*(await asyncio.gather(dense, text)), k=k)

    async def _episodes(
        self, owner: Owner, query: str, vector: list[float], k: int, as_of: datetime | None, lexical: bool
    ) -> list[Hit[Episode]]:
        if k <= 0:
            return []
        dense = self.episodes.search(owner, vector, k, as_of=as_of)
        if not lexical:
            return await dense
        return fuse(*(await asyncio.gather(dense, self.episodes.search_text(owner, query, k))), k=k)

    async def _facts(
        self, owner: Owner, query: str, vector: list[float], k: int, as_of: datetime | None, lexical: bool
    ) -> list[Hit[Fact]]:
        if k <= 0:
            return []
        dense = self.facts.search(owner, vector, k, as_of=as_of)
        if not lexical:
            return await dense
        return fuse(*(await asyncio.gather(dense, self.facts.search_text(owner, query, k))), k=k)

    async def _episode_hits(self, owner: Owner, hits: list[Hit[Episode]]) -> list[RecallHit]:
        sources = await self.episodes.sources(owner, [h.item.id for h in hits]) if hits else {}
        return [
            RecallHit(
                "episodic",
                h.item.id,
                h.item.summary,
                h.score,
                h.item.last_at,
                [i for i, _ in sources.get(h.item.id, [])],
                h.item,
            )
            for h in hits
        ]

    async def _fact_hits(self, owner: Owner, hits: list[Hit[Fact]]) -> list[RecallHit]:
        sources = await self.facts.sources(owner, [h.item.id for h in hits]) if hits else {}
        return [
            RecallHit(
                "semantic",
                h.item.id,
                h.item.text,
                h.score,
                h.item.valid_from,
                sources.get(h.item.id, ([], []))[1],
                h.item,
            )
            for h in hits
        ]


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
