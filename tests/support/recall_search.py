"""A recaller over fixed candidates, for unit tests of what recall makes of them (contexts,
withdrawn beliefs): the search statements answered from memory, no database."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.recall.recaller import Recaller
from consolidation.stores import Stores
from consolidation.types import Budgets, Recall
from graph.models import Episode, Fact, Hit, Interaction, Owner
from graph.recall import Candidates, RecallCandidates, Sources


class CannedSearch:
    """The statements a `Recaller` reads, answered with these hits as the only candidates (the
    dense view; the lexical view finds none), no provenance, no sentences or parts, nothing
    replaced. Subclass to answer one differently."""

    def __init__(
        self,
        turns: Sequence[Hit[Interaction]] = (),
        episodes: Sequence[Hit[Episode]] = (),
        facts: Sequence[Hit[Fact]] = (),
    ) -> None:
        self.turns, self.episodes, self.facts = list(turns), list(episodes), list(facts)

    async def candidates(self, *args: Any, **kwargs: Any) -> RecallCandidates:
        return RecallCandidates(
            Candidates(self.turns, []), Candidates(self.episodes, []), Candidates(self.facts, [])
        )

    async def sources(self, *args: Any, **kwargs: Any) -> Sources:
        return Sources({}, {}, [])

    async def sentence_vectors(self, *args: Any) -> dict[str, bytes]:
        return {}

    async def part_scores(self, *args: Any) -> dict[str, list[tuple[int, int, float]]]:
        return {}

    async def replaced(self, *args: Any) -> dict[str, list[str]]:
        return {}


async def canned_recall(
    search: CannedSearch,
    owner: Owner,
    question: str,
    *,
    tokens: int | None = 1000,
    asked_at: datetime | None = None,
) -> Recall:
    """`question` recalled for `owner` over `search`, as the API asks it: consolidated layers and
    the lexical view on, no asOf, a context of `tokens` (none for None)."""
    stores = cast(Stores, type("CannedStores", (), {"search": search})())
    return await Recaller(stores, HashingEmbedder(384)).recall(
        owner,
        question,
        Budgets(),
        as_of=None,
        include_consolidated=True,
        lexical=True,
        tokens=tokens,
        asked_at=asked_at,
    )
