"""What one recall reads from the three layers: dense and lexical candidates, then provenance."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

import numpy as np

from graph.database import Database, Row
from graph.interactions import SEARCH_POOL
from graph.lexical import query_terms, rank
from graph.lucene import lucene_terms
from graph.models import Episode, Fact, Hit, Interaction, Owner
from graph.records import episode_from, fact_from, interaction_from
from graph.scopes import NO_FILTER, ScopeFilter
from graph.validation import require_aware
from graph.vector_cache import LAYERS, Shortlist, VectorCache
from graph.vectors import vector_param
from graph.vocabulary import CORRECTION_TRIGGER, PERSON_PROVIDER, FactStatus

T = TypeVar("T", Interaction, Episode, Fact)
# Up to this many nodes of a user in a layer, dense search scans them all in the graph; above it,
# it re-scores a shortlist ranked from the user's cached vectors (graph/vector_cache.py). Both are
# exact per user, whatever other tenants store: docs/design/algorithm.md#exact-per-user.
EXACT_LIMIT = 1_000
# How many of a layer's cached nodes the graph re-scores at least (k when more are asked for): as
# many as the vector index's pool was, so that superseded or consolidated nodes among them rarely
# leave fewer than k that qualify; when they do, the shortlist grows by SHORTLIST_GROWTH and the
# statement runs again. Twice as many cost 10% more recall time at 10,000 interactions.
SHORTLIST = SEARCH_POOL
SHORTLIST_GROWTH = 4
# Which facts a person withdrew: retracted, or superseded by a person's correction.
WITHDRAWN_RULE = {
    "retracted": FactStatus.RETRACTED.value,
    "superseded": FactStatus.SUPERSEDED.value,
    "person": PERSON_PROVIDER,
    "correction": CORRECTION_TRIGGER,
}


@dataclass(frozen=True)
class Candidates(Generic[T]):
    """One layer's hits: by embedding (plain cosine) and by words (BM25 over the user's own
    items, graph/lexical.py), best first."""

    dense: list[Hit[T]]
    lexical: list[Hit[T]]


@dataclass(frozen=True)
class RecallCandidates:
    interactions: Candidates[Interaction]
    episodes: Candidates[Episode]
    facts: Candidates[Fact]
    # The user's speakers among the lexical query's `names`, sorted.
    speakers: list[str] = field(default_factory=list)
    # Whether the user holds a belief a person withdrew, as the dense statement found when it had
    # no episode and no fact among its candidates; None: not asked.
    withdrawn: bool | None = None


@dataclass(frozen=True)
class LexicalQuery:
    """The lexical view of one recall, in one statement with the speakers lookup it depends on:
    `words` find the candidates (every item of the user holding one), `names` are looked up
    among the user's speakers, and `scored(speakers found)` gives the text whose words score the
    candidates (graph/lexical.py). Its words must be among `words`, or they match nothing."""

    words: list[str]
    names: list[str] = field(default_factory=list)
    scored: Callable[[list[str]], str] | None = None

    @classmethod
    def of(cls, text: str) -> LexicalQuery:
        """A query of `text`'s words alone."""
        return cls(query_terms(text), scored=lambda _: text)

    def text(self, speakers: list[str]) -> str:
        return " ".join(self.words) if self.scored is None else self.scored(speakers)


@dataclass(frozen=True)
class Sources:
    # Episode id -> [(interaction id, recurrence similarity)] in stream order.
    episodes: dict[str, list[tuple[str, float | None]]]
    # Fact id -> (episode ids, interaction ids) it was derived from.
    facts: dict[str, tuple[list[str], list[str]]]
    # The beliefs a person withdrew that rest on the candidates, each with the candidate episode
    # and turn ids it reaches, the most recently withdrawn first.
    withdrawn: list[tuple[Fact, list[str]]] = field(default_factory=list)


class RecallSearch:
    """Every layer in one statement per view: on a small server each statement costs
    milliseconds of fixed overhead, and the dense and lexical views run side by side."""

    def __init__(
        self,
        db: Database,
        dimension: int,
        exact_limit: int = EXACT_LIMIT,
        vectors: VectorCache | None = None,
    ) -> None:
        """`vectors` None: a cache of the default budget; a budget of 0 scans in the graph."""
        self.db = db
        self.dimension = dimension
        self.exact_limit = exact_limit
        self.vectors = VectorCache(db, dimension) if vectors is None else vectors

    async def candidates(
        self,
        owner: Owner,
        vector: list[float],
        text: str | LexicalQuery | None,
        *,
        interactions: int,
        episodes: int,
        facts: int,
        include_consolidated: bool,
        scope: ScopeFilter = NO_FILTER,
        parts: bool = True,
    ) -> RecallCandidates:
        """`text` None (or without a searchable word) skips the lexical view, but not the speakers
        lookup of a `LexicalQuery`'s names; a budget of 0 skips its layer. `scope` filters both
        views inside their statements (the lexical one's statistics stay the user's). `parts`
        False scores a long interaction by its own vector alone."""
        query = LexicalQuery.of(text) if isinstance(text, str) else text
        budgets = {"k_interactions": interactions, "k_episodes": episodes, "k_facts": facts}
        shared = {
            **owner.params(),
            **budgets,
            "consolidated": [False, True] if include_consolidated else [False],
            **scope.params(),
        }
        dense = self._dense(owner, vector, shared, budgets, filtered=scope.active, parts=parts)
        lucene = lucene_terms(query.words, owner) if query is not None else None
        lexical_row: Row | None = None
        if query is None or lucene is None:
            names = [] if query is None else query.names
            dense_row, speakers = await asyncio.gather(dense, self.speakers(owner, names))
        else:
            lexical = self.db.read("queries/recall/lexical", **shared, lucene=lucene, names=query.names)
            dense_row, lexical_rows = await asyncio.gather(dense, lexical)
            lexical_row = lexical_rows[0]
            speakers = sorted(str(s) for s in lexical_row["speakers"] if s)
        terms = query_terms(query.text(speakers)) if lexical_row is not None and query is not None else []
        return RecallCandidates(
            interactions=_layer(
                dense_row, lexical_row, terms, "interactions", "text", interactions, interaction_from
            ),
            episodes=_layer(dense_row, lexical_row, terms, "episodes", "summary", episodes, episode_from),
            facts=_layer(dense_row, lexical_row, terms, "facts", "text", facts, fact_from),
            speakers=speakers,
            withdrawn=dense_row["withdrawn_held"],
        )

    async def _dense(
        self,
        owner: Owner,
        vector: list[float],
        shared: dict[str, Any],
        budgets: dict[str, int],
        *,
        filtered: bool,
        parts: bool,
    ) -> Row:
        """The dense statement's row: with the user's cached vectors, a shortlist per layer that
        grows until it settles the top k; then the cache starts catching up with what the graph
        holds, in the background."""
        held = None if filtered else self.vectors.get(owner)
        query = vector_param("query vector", vector, self.dimension)
        if held is not None:
            unit = np.asarray(vector, dtype=np.float32)
            unit /= float(np.linalg.norm(unit)) or 1.0
        size = max(*budgets.values(), SHORTLIST)
        while True:
            # A layer not asked for (a budget of 0) is not ranked: its statement block is skipped.
            lists: dict[str, Shortlist] = {
                layer: held.layers[layer].shortlist(unit, size)
                for layer in LAYERS
                if held is not None and budgets[f"k_{layer}"] > 0
            }
            ids = {f"ids_{layer}": lists[layer].ids if layer in lists else None for layer in LAYERS}
            floor = lists["interactions"].floor if "interactions" in lists else -2.0
            row = (
                await self.db.read(
                    "queries/recall/dense",
                    **shared,
                    **ids,
                    vector=query,
                    exact_limit=self.exact_limit,
                    filtered=filtered,
                    parts=parts,
                    epoch=held.epoch if held is not None else "",
                    known=held.known if held is not None else 0,
                    floor_interactions=floor,
                    **WITHDRAWN_RULE,
                )
            )[0]
            if all(_settled(row, layer, lists.get(layer), budgets[f"k_{layer}"]) for layer in LAYERS):
                break
            size *= SHORTLIST_GROWTH
        if not filtered and any(row[f"{layer}_large"] for layer in LAYERS):
            self.vectors.refresh(owner, str(row["epoch"]), int(row["written"]))
        elif held is not None and held.epoch != row["epoch"]:
            # No longer large in any layer, or erased: its old vectors are not kept.
            self.vectors.drop(owner)
        return row

    async def speakers(self, owner: Owner, candidates: list[str]) -> list[str]:
        """Those `candidates` that are speakers of the user's interactions (the user's alone),
        sorted; no statement for none."""
        if not candidates:
            return []
        rows = await self.db.read("queries/recall/speakers", **owner.params(), candidates=candidates)
        return sorted(str(row["speaker"]) for row in rows if row["speaker"])

    async def sentence_vectors(self, owner: Owner, ids: list[str]) -> dict[str, bytes]:
        """Interaction id -> its packed sentence vectors, for those of `ids` that have them."""
        if not ids:
            return {}
        rows = await self.db.read("queries/recall/sentence_vectors", **owner.params(), ids=ids)
        return {row["id"]: bytes(row["vectors"]) for row in rows}

    async def replaced(self, owner: Owner, fact_ids: list[str]) -> dict[str, list[str]]:
        """Fact id -> the texts of the facts it superseded, newest first, for those of `fact_ids`
        that superseded any."""
        if not fact_ids:
            return {}
        rows = await self.db.read("queries/recall/replaced", **owner.params(), ids=fact_ids)
        return {row["id"]: list(row["texts"]) for row in rows}

    async def part_scores(
        self, owner: Owner, ids: list[str], vector: list[float]
    ) -> dict[str, list[tuple[int, int, float]]]:
        """Interaction id -> its parts as (start, end, cosine to `vector`) in text order, for those
        of `ids` that have parts (long turns: consolidation/writing/parts.py)."""
        if not ids:
            return {}
        rows = await self.db.read(
            "queries/recall/part_scores",
            **owner.params(),
            ids=ids,
            vector=vector_param("query vector", vector, self.dimension),
        )
        found: dict[str, list[tuple[int, int, float]]] = {}
        for row in rows:
            found.setdefault(row["id"], []).append((int(row["start"]), int(row["end"]), float(row["score"])))
        return found

    async def sources(
        self,
        owner: Owner,
        episode_ids: list[str],
        fact_ids: list[str],
        interaction_ids: Sequence[str] = (),
        as_of: datetime | None = None,
        *,
        withdrawn: bool = True,
    ) -> Sources:
        """The provenance of these episodes and facts, and the beliefs a person withdrew (retracted,
        or superseded by a person's correction; with `as_of`, those withdrawn at or before it)
        that derive from these episodes, their turns or these turns, directly or through an
        episode: one statement (cypher/queries/recall/sources.cypher). None for no episode and no
        fact when there are no turns either, or `withdrawn` False: the user holds no such belief."""
        if not episode_ids and not fact_ids and (not interaction_ids or not withdrawn):
            return Sources({}, {})
        if as_of is not None:
            require_aware("as_of", as_of)
        row = (
            await self.db.read(
                "queries/recall/sources",
                **owner.params(),
                episode_ids=episode_ids,
                fact_ids=fact_ids,
                interaction_ids=list(interaction_ids),
                as_of=as_of,
                **WITHDRAWN_RULE,
            )
        )[0]
        return Sources(
            episodes={
                e["id"]: [(s["id"], s["similarity"]) for s in e["sources"]] for e in row["episode_sources"]
            },
            facts={f["id"]: (f["episode_ids"], f["interaction_ids"]) for f in row["fact_sources"]},
            withdrawn=_latest_first([(fact_from(w["fact"]), list(w["reach"])) for w in row["withdrawn"]]),
        )


def _latest_first(withdrawn: list[tuple[Fact, list[str]]]) -> list[tuple[Fact, list[str]]]:
    """The most recently withdrawn first; of one instant, by id."""
    by_id = sorted(withdrawn, key=lambda w: w[0].id)
    return sorted(by_id, key=lambda w: w[0].valid_to or datetime.min.replace(tzinfo=UTC), reverse=True)


def _settled(row: Row, layer: str, shortlist: Shortlist | None, k: int) -> bool:
    """Whether the layer's hits are final: scanned in the graph, or settled by its shortlist."""
    if not row[f"{layer}_cached"] or shortlist is None or k <= 0:
        return True
    hits = row[f"{layer}_dense"]
    return shortlist.settles(len(hits), k, float(hits[-1]["score"]) if hits else None)


def _layer(
    dense: Row,
    lexical: Row | None,
    terms: list[str],
    layer: str,
    field: str,
    k: int,
    record: Callable[[dict[str, Any]], T],
) -> Candidates[T]:
    """The layer's dense hits as read; its lexical hits ranked by the user's own BM25."""
    found = [Hit(record(h["item"]), float(h["score"])) for h in dense[f"{layer}_dense"]]
    if lexical is None:
        return Candidates(found, [])
    best = rank(
        lexical[f"{layer}_lexical"],
        field,
        terms,
        lexical[f"{layer}_held"],
        k,
        lexical[f"{layer}_length"],
    )
    return Candidates(found, [Hit(record(dict(item)), score) for item, score in best])
