"""What one recall reads from all three layers, fetched in a single statement."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from graph.database import Database, Row
from graph.interactions import SEARCH_POOL
from graph.lucene import lucene_query
from graph.models import Episode, Fact, Hit, Interaction, Owner
from graph.records import episode_from, fact_from, interaction_from
from graph.vectors import vector_param

T = TypeVar("T", Interaction, Episode, Fact)


@dataclass(frozen=True)
class Candidates(Generic[T]):
    """One layer's hits: by embedding (plain cosine) and by full-text (Lucene score), best first."""

    dense: list[Hit[T]]
    lexical: list[Hit[T]]


@dataclass(frozen=True)
class RecallCandidates:
    interactions: Candidates[Interaction]
    episodes: Candidates[Episode]
    facts: Candidates[Fact]
    # Episode id -> [(interaction id, recurrence similarity)] in stream order.
    episode_sources: dict[str, list[tuple[str, float | None]]]
    # Fact id -> (episode ids, interaction ids) it was derived from.
    fact_sources: dict[str, tuple[list[str], list[str]]]


class RecallSearch:
    """Dense and lexical candidates of every layer plus their provenance: one round trip, because
    on a small server each statement costs milliseconds of fixed overhead."""

    def __init__(self, db: Database, dimension: int) -> None:
        self.db = db
        self.dimension = dimension

    async def candidates(
        self,
        owner: Owner,
        vector: list[float],
        text: str | None,
        *,
        interactions: int,
        episodes: int,
        facts: int,
        include_consolidated: bool,
    ) -> RecallCandidates:
        """`text` None skips the lexical lists; a budget of 0 skips its layer."""
        query = vector_param("query vector", vector, self.dimension)
        rows = await self.db.read(
            "queries/recall/candidates",
            **owner.params(),
            vector=query,
            lucene=lucene_query(text, owner) if text is not None else None,
            k_interactions=interactions,
            k_episodes=episodes,
            k_facts=facts,
            pool=max(interactions, episodes, facts, SEARCH_POOL),
            consolidated=[False, True] if include_consolidated else [False],
        )
        row = rows[0]
        return RecallCandidates(
            interactions=_layer(row, "interactions", interaction_from),
            episodes=_layer(row, "episodes", episode_from),
            facts=_layer(row, "facts", fact_from),
            episode_sources={
                e["id"]: [(s["id"], s["similarity"]) for s in e["sources"]] for e in row["episode_sources"]
            },
            fact_sources={f["id"]: (f["episode_ids"], f["interaction_ids"]) for f in row["fact_sources"]},
        )


def _layer(row: Row, layer: str, record: Callable[[dict[str, Any]], T]) -> Candidates[T]:
    def hits(key: str) -> list[Hit[T]]:
        return [Hit(record(h["item"]), float(h["score"])) for h in row[key]]

    return Candidates(hits(f"{layer}_dense"), hits(f"{layer}_lexical"))
