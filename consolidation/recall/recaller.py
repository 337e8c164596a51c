"""Layered recall: one query embedding, three scoped searches, lexical fusion by rank."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, replace
from datetime import UTC, datetime, tzinfo
from typing import Any, TypeVar

import numpy as np

from consolidation.consolidating.offline import annotate_relative_dates
from consolidation.consolidating.offline.words import name_words
from consolidation.providers.embedders import Embedder
from consolidation.recall import context as contexts
from consolidation.recall import diversity, names
from consolidation.recall.long_turns import focus_part
from consolidation.recall.planning import Order, Plan, QuestionKind
from consolidation.recall.planning import ranking as planned
from consolidation.recall.relevance import anything_relevant
from consolidation.recall.sentences import MARGIN_TURNS, WHOLE_TURNS, Matrix, focus, without_reactions
from consolidation.recall.tokens import count_tokens
from consolidation.stores import Stores
from consolidation.times import aware, local
from consolidation.types import Budgets, Context, Recall, RecallHit
from consolidation.writing.parts import LONG_CHARS
from graph.models import Episode, Fact, Hit, Interaction, Owner
from graph.recall import Candidates, RecallCandidates, Sources
from graph.scopes import NO_FILTER, ScopeFilter

T = TypeVar("T", Interaction, Episode, Fact)
# Reciprocal-rank-fusion constant: the usual 60 keeps one list's top hit from dominating.
RRF_K = 60
# Candidate pools of a token-budgeted recall (context_pools).
POOL_MIN = 20
POOL_MAX = 200
TOKENS_PER_SHORT = 15
TOKENS_PER_EPISODE = 100
# How many withdrawn beliefs a recall names at most (the most recently withdrawn).
WITHDRAWN = 10


@dataclass(eq=False)
class Recaller:
    stores: Stores
    embedder: Embedder
    _: KW_ONLY
    # Whether a context shows lower-ranked turns by their sentences closest to the query, and
    # the absolute date beside each relative one ("yesterday (7 May 2023)").
    focus: bool = True
    dates: bool = True
    # Whether a context none of whose candidates is relevant is left empty (relevance.py), and
    # the dense view's floor for that (the embedder's recurrence threshold).
    relevance: bool = False
    dense_floor: float = 1.0

    async def recall(
        self,
        owner: Owner,
        query: str,
        budgets: Budgets,
        *,
        as_of: datetime | None,
        include_consolidated: bool,
        lexical: bool,
        tokens: int | None = None,
        scope: ScopeFilter = NO_FILTER,
        min_score: float | None = None,
        plan: Plan | None = None,
        asked_at: datetime | None = None,
    ) -> Recall:
        """The per-layer lists under `budgets`; with `tokens`, also one assembled context of at
        most that many tokens, drawn from a pool sized to fill it (consolidation/recall/context.py),
        its days on the calendar of `asked_at`'s offset (else the plan's; else UTC).
        `scope` narrows every layer inside the store's statements (docs/scopes.md#filters); a
        `plan` widens the pools and moves the ranking (consolidation/recall/planning/ranking.py)."""
        pools = planned.widened(plan, budgets if tokens is None else context_pools(budgets, tokens))
        # A context may hold a consolidated turn whose episode it leaves out.
        wide = include_consolidated or tokens is not None
        # The question's speaker names scope the ranking instead of matching words (names.py);
        # the lexical statement looks them up itself.
        if as_of is not None:
            vectors, speakers = await asyncio.gather(
                self.embedder.embed([query]),
                self.stores.search.speakers(owner, names.speaker_candidates(query)),
            )
            vector = vectors[0].tolist()
            found = await self._as_of(owner, vector, pools, as_of, wide, scope)
        else:
            vector = (await self.embedder.embed([query]))[0].tolist()
            found = await self.stores.search.candidates(
                owner,
                vector,
                names.lexical_query(query, search=lexical),
                interactions=pools.subconscious,
                episodes=pools.episodic,
                facts=pools.semantic,
                include_consolidated=wide,
                scope=scope,
            )
            speakers = found.speakers
        named = names.named_speakers(query, speakers)
        visible = _subconscious_filter(include_consolidated, as_of)
        sub_ranked = _planned(
            plan,
            [h for h in found.interactions.dense if visible(h.item)],
            [h for h in found.interactions.lexical if visible(h.item)],
            budgets.subconscious,
            named,
        )
        # Episodes gain nothing from the names (names.scoped): they tell an exchange.
        epi_ranked = _planned(plan, found.episodes.dense, found.episodes.lexical, budgets.episodic)
        sem_ranked = _planned(plan, found.facts.dense, found.facts.lexical, budgets.semantic, named)
        if min_score is not None:
            sub_ranked = _reaching(sub_ranked, min_score)
            epi_ranked = _reaching(epi_ranked, min_score)
            sem_ranked = _reaching(sem_ranked, min_score)
        sub, epi, sem = _hits(sub_ranked), _hits(epi_ranked), _hits(sem_ranked)
        wanted = (
            (sub, epi, sem)
            if tokens is None
            else (_all(found.interactions), _all(found.episodes), _all(found.facts))
        )
        # Provenance only for what is returned, and the withdrawn beliefs near it, in one statement;
        # none for turns alone when the user holds no withdrawn belief.
        sources = await self.stores.search.sources(
            owner,
            _ids(wanted[1]),
            _ids(wanted[2]),
            _ids(wanted[0]),
            as_of,
            withdrawn=found.withdrawn is not False,
        )
        context = None
        if tokens is not None:
            calendar = _calendar(plan, asked_at)
            context = await self._context(
                owner, found, sources, tokens, vector, min_score, plan, named, calendar
            )
        recall = Recall(
            query,
            as_of,
            _with_ranks(_interaction_hits(sub), sub_ranked),
            _with_ranks(_episode_hits(epi, sources), epi_ranked),
            _with_ranks(_fact_hits(sem, sources), sem_ranked),
            context,
            plan,
        )
        return replace(recall, withdrawn=_withdrawn(sources, recall.evidence()))

    async def _context(
        self,
        owner: Owner,
        found: RecallCandidates,
        sources: Sources,
        tokens: int,
        vector: list[float],
        min_score: float | None,
        plan: Plan | None,
        named: list[str],
        calendar: contexts.Calendar,
    ) -> Context:
        nothing_relevant = not anything_relevant(found, self.dense_floor)
        if nothing_relevant and self.relevance:
            return Context(text="", tokens=0, budget=tokens, items=[], nothing_relevant=True)
        ranked = _ranked(found, sources, plan, named)
        if min_score is not None:
            ranked = [r for r in ranked if r.rank_score >= min_score]
        shown: dict[str, str] = {}  # item id -> its text as the context shows it
        if self.focus:
            shown = await self._focused(owner, ranked, np.asarray(vector, dtype=np.float32))
        if self.dates:
            shown = _dated(ranked, shown, calendar.zone)
        shown = _marked(plan, ranked, shown)
        if plan is not None and plan.order is Order.LATEST:
            facts = [r.hit.id for r in ranked if r.hit.layer == "semantic"]
            shown = planned.with_replaced(
                ranked_items(ranked), shown, await self.stores.search.replaced(owner, facts)
            )
        context = contexts.assemble(contexts.shown_as(ranked, shown), tokens, count_tokens, calendar)
        return replace(context, nothing_relevant=nothing_relevant)

    async def _focused(self, owner: Owner, ranked: list[contexts.Ranked], query: Matrix) -> dict[str, str]:
        """Each turn without its reactions and, below the best `WHOLE_TURNS`, when it has stored
        sentence vectors, by its sentences closest to the query (consolidation/recall/sentences.py;
        fewer of them below the best `MARGIN_TURNS`), where that cuts something."""
        turns = [r.hit for r in ranked if r.hit.layer == "subconscious"]
        speakers = name_words(h.item.speaker for h in turns if isinstance(h.item, Interaction))
        later = turns[WHOLE_TURNS:]
        # Long turns, wherever they rank, by their best part (consolidation/recall/long_turns.py).
        long = [h for h in turns if len(h.text) > LONG_CHARS]
        stored, parts = await asyncio.gather(
            self.stores.search.sentence_vectors(owner, [h.id for h in later]),
            self.stores.search.part_scores(owner, [h.id for h in long], query.tolist()),
        )
        shown: dict[str, str] = {}
        for hit in turns[:WHOLE_TURNS]:
            if (text := without_reactions(hit.text, speakers)) is not None:
                shown[hit.id] = text
        for rank, hit in enumerate(later, start=WHOLE_TURNS):
            if hit.id not in stored:
                continue
            text = focus(hit.text, stored[hit.id], query, narrow=rank >= MARGIN_TURNS, names=speakers)
            if text is not None:
                shown[hit.id] = text
        for hit in long:
            if hit.id in parts and (text := focus_part(hit.text, parts[hit.id])) is not None:
                shown[hit.id] = text
        return shown

    async def _as_of(
        self,
        owner: Owner,
        vector: list[float],
        budgets: Budgets,
        as_of: datetime,
        include_consolidated: bool,
        scope: ScopeFilter = NO_FILTER,
    ) -> RecallCandidates:
        """Memory as it stood at `as_of`: vector-only (full-text indexes hold present state only),
        by exact scans of the user's nodes, since time filters are not in the vector indexes."""
        stores = self.stores
        sub, epi, sem = await asyncio.gather(
            stores.interactions.search(
                owner,
                vector,
                budgets.subconscious,
                include_consolidated=include_consolidated,
                as_of=as_of,
                scope=scope,
            )
            if budgets.subconscious > 0
            else _nothing(),
            stores.episodes.search(owner, vector, budgets.episodic, as_of=as_of, scope=scope)
            if budgets.episodic > 0
            else _nothing(),
            stores.facts.search(owner, vector, budgets.semantic, as_of=as_of, scope=scope)
            if budgets.semantic > 0
            else _nothing(),
        )
        return RecallCandidates(interactions=_dense(sub), episodes=_dense(epi), facts=_dense(sem))


def _withdrawn(sources: Sources, evidence: Sequence[RecallHit]) -> list[Fact]:
    """The withdrawn beliefs of `sources` that reach the evidence: one of its turns or episodes,
    or a turn one of its episodes rests on (its summary may say what that turn said where the
    belief derives from an earlier version of it). At most WITHDRAWN, latest first."""
    near: set[str] = set()
    for hit in evidence:
        if hit.layer in ("subconscious", "episodic"):
            near.add(hit.id)
        if hit.layer == "episodic":
            near.update(hit.interaction_ids)
    return [fact for fact, reach in sources.withdrawn if near.intersection(reach)][:WITHDRAWN]


def context_pools(budgets: Budgets, tokens: int) -> Budgets:
    """Candidates per layer for a context of `tokens`: enough short items (a turn or a fact is
    some 15 to 40 tokens) to fill it, and never fewer than the per-layer budgets."""
    short = min(POOL_MAX, max(POOL_MIN, tokens // TOKENS_PER_SHORT))
    episodes = min(POOL_MAX // 4, tokens // TOKENS_PER_EPISODE)
    return Budgets(
        subconscious=max(budgets.subconscious, short),
        episodic=max(budgets.episodic, episodes),
        semantic=max(budgets.semantic, short),
    )


def _subconscious_filter(include_consolidated: bool, as_of: datetime | None) -> Callable[[Interaction], bool]:
    """Which interactions the subconscious list may show: all, or those not yet consolidated
    (at `as_of` when given)."""

    def visible(item: Interaction) -> bool:
        if include_consolidated or item.consolidated_at is None:
            return True
        return as_of is not None and item.consolidated_at > as_of

    return visible


def _all(candidates: Candidates[T]) -> list[Hit[T]]:
    return candidates.dense + candidates.lexical


def _ids(hits: Sequence[Hit[T]]) -> list[str]:
    return list(dict.fromkeys(h.item.id for h in hits))


def _calendar(plan: Plan | None, asked_at: datetime | None) -> contexts.Calendar:
    """The question's calendar: the days of its offset, its instant (else now: what a fact that
    holds only later is marked against) and, for a temporal plan, how long before it each day was."""
    asked = asked_at if asked_at is not None else plan.asked_at if plan is not None else None
    if asked is None:
        return contexts.Calendar(now=datetime.now(UTC))
    asked = aware(asked)
    return contexts.Calendar(
        asked.tzinfo or UTC, asked if plan is not None and plan.temporal else None, now=asked
    )


def _dated(ranked: list[contexts.Ranked], shown: dict[str, str], zone: tzinfo) -> dict[str, str]:
    """`shown` with the absolute date after each relative one in every turn (an LLM reading
    "yesterday" in a turn listed under a day header may miss it), against the day the turn was
    said: on its speaker's calendar, the offset it was sent in; for a turn in UTC (or stored
    before offsets were kept) on that of `zone`, the one its day header is on."""
    dated = dict(shown)
    for entry in ranked:
        hit = entry.hit
        if isinstance(hit.item, Interaction):
            text = shown.get(hit.id, hit.text)
            turn = hit.item
            said = turn.local_occurred_at if turn.utc_offset_s else local(turn.occurred_at, zone)
            annotated = annotate_relative_dates(text, said.date())
            if annotated != hit.text:
                dated[hit.id] = annotated
    return dated


def _ranked(
    found: RecallCandidates, sources: Sources, plan: Plan | None = None, named: Sequence[str] = ()
) -> list[contexts.Ranked]:
    episodes = contexts.cosine_hits(
        _episode_hits(found.episodes.dense, sources), _episode_hits(found.episodes.lexical, sources)
    )
    facts = contexts.cosine_hits(
        _fact_hits(found.facts.dense, sources), _fact_hits(found.facts.lexical, sources)
    )
    memory = [*episodes.values(), *facts.values()]
    turns = found.interactions
    dense, lexical = _interaction_hits(turns.dense), _interaction_hits(turns.lexical)

    def adjust(fused_turns: list[contexts.Ranked]) -> list[contexts.Ranked]:
        moved = planned.rescored(plan, fused_turns, *_RANKED)
        turns = [contexts.Ranked(r.hit, score) for r, score in moved]
        if named:
            scoped = names.scoped(named, turns, lambda r: r.hit.item, lambda r: r.rank_score)
            turns = [contexts.Ranked(r.hit, score) for r, score in scoped]
        if plan is not None and plan.kind is QuestionKind.AGGREGATE:
            spread = diversity.spread(turns, lambda r: _turn(r.hit.item), lambda r: r.rank_score)
            turns = [contexts.Ranked(r.hit, score) for r, score in spread]
        return turns

    moves = named or (plan is not None and not plan.empty)
    adjusted = contexts.rank(
        dense, lexical, memory, count_tokens, adjust if moves else None, _stated(found.facts, sources)
    )
    if plan is None or plan.order is None:
        return adjusted
    # Facts and episodes on the topic in the plan's order too (their anchors moved with the
    # window already); the turns keep the order `adjust` gave them.
    moved = planned.rescored(replace(plan, window=None), adjusted, *_RANKED)
    final = [contexts.Ranked(r.hit, score) if r.hit.layer != "subconscious" else r for r, score in moved]
    return sorted(final, key=lambda r: r.rank_score, reverse=True)


def _stated(facts: Candidates[Fact], sources: Sources) -> list[contexts.Ranked]:
    """The facts a person stated (derived from no episode and no turn), each with its fused
    score among the layer's candidates: nothing anchors them, so they rank by their own match."""
    ranked = fused(facts.dense, facts.lexical, k=len(facts.dense) + len(facts.lexical))
    hits = _fact_hits([hit for hit, _ in ranked], sources)
    # sources.facts: id -> (episode ids, interaction ids); both empty for a person's fact.
    return [
        contexts.Ranked(hit, score)
        for hit, (_, score) in zip(hits, ranked, strict=True)
        if not any(sources.facts.get(hit.id, ([], [])))
    ]


# How planned.rescored reads a context's ranked entry: its item, fused score and cosine.
_RANKED: tuple[
    Callable[[contexts.Ranked], Interaction | Episode | Fact],
    Callable[[contexts.Ranked], float],
    Callable[[contexts.Ranked], float],
] = (lambda r: r.hit.item, lambda r: r.rank_score, lambda r: r.hit.score)


def ranked_items(ranked: list[contexts.Ranked]) -> list[tuple[str, str]]:
    """(id, text) of each ranked hit."""
    return [(r.hit.id, r.hit.text) for r in ranked]


def _marked(plan: Plan | None, ranked: list[contexts.Ranked], shown: dict[str, str]) -> dict[str, str]:
    """`shown` with the order marks of `plan` in front of each marked item's text."""
    marks = planned.marks(plan, [(r.hit.item, r.hit.score) for r in ranked])
    if not marks:
        return shown
    marked = dict(shown)
    for entry in ranked:
        mark = marks.get(entry.hit.id)
        if mark is not None:
            marked[entry.hit.id] = mark + shown.get(entry.hit.id, entry.hit.text)
    return marked


def _planned(
    plan: Plan | None,
    dense: Sequence[Hit[T]],
    lexical: Sequence[Hit[T]],
    k: int,
    named: Sequence[str] = (),
) -> list[tuple[Hit[T], float]]:
    """A layer's fused list of `k`, moved by `plan` and the question's `named` speakers (the
    whole pool first, then cut)."""
    if (plan is None or plan.empty) and not named:
        return fused(dense, lexical, k=k)
    pool = fused(dense, lexical, k=len(dense) + len(lexical))
    moved = planned.rescored(plan, pool, lambda p: p[0].item, lambda p: p[1], lambda p: p[0].score)
    ranked = [(hit, score) for (hit, _), score in moved]
    if named:
        scoped = names.scoped(named, ranked, lambda p: p[0].item, lambda p: p[1])
        ranked = [(hit, score) for (hit, _), score in scoped]
    return ranked[:k]


def _turn(item: Interaction | Episode | Fact) -> Interaction:
    """The turn a fused turn's hit holds."""
    if not isinstance(item, Interaction):
        raise TypeError(f"a fused turn holds {type(item).__name__}")
    return item


async def _nothing() -> list[Any]:
    return []


def _dense(hits: list[Hit[T]]) -> Candidates[T]:
    return Candidates(hits, [])


# What a hit shows of its item: the text, its time, and the interactions it rests on.
Shown = tuple[str, datetime, list[str]]


def _interaction_hits(hits: Sequence[Hit[Interaction]]) -> list[RecallHit]:
    return _layer_hits("subconscious", hits, lambda turn: (turn.text, turn.occurred_at, [turn.id]))


def _episode_hits(hits: Sequence[Hit[Episode]], sources: Sources) -> list[RecallHit]:
    def shown(episode: Episode) -> Shown:
        return episode.summary, episode.last_at, [i for i, _ in sources.episodes.get(episode.id, [])]

    return _layer_hits("episodic", hits, shown)


def _fact_hits(hits: Sequence[Hit[Fact]], sources: Sources) -> list[RecallHit]:
    def shown(fact: Fact) -> Shown:
        return fact.text, fact.valid_from, sources.facts.get(fact.id, ([], []))[1]

    return _layer_hits("semantic", hits, shown)


def _layer_hits(layer: str, hits: Sequence[Hit[T]], shown: Callable[[T], Shown]) -> list[RecallHit]:
    found = []
    for hit in hits:
        text, at, interaction_ids = shown(hit.item)
        found.append(RecallHit(layer, hit.item.id, text, hit.score, at, interaction_ids, hit.item))
    return found


def fuse(dense: Sequence[Hit[T]], lexical: Sequence[Hit[T]], *, k: int) -> list[Hit[T]]:
    """Reciprocal rank fusion: ranks, not raw scores, since cosine and BM25 are not comparable.

    A fused hit keeps its dense cosine as `score` when it has one (else 0.0), so scores stay
    meaningful to callers; the order is the fused one.
    """
    return [hit for hit, _ in fused(dense, lexical, k=k)]


def _reaching(ranked: list[tuple[Hit[T], float]], min_score: float) -> list[tuple[Hit[T], float]]:
    """The ranked hits whose fused score reaches `min_score` (a prefix: they come sorted)."""
    return [(hit, score) for hit, score in ranked if score >= min_score]


def _hits(ranked: Sequence[tuple[Hit[T], float]]) -> list[Hit[T]]:
    return [hit for hit, _ in ranked]


def _with_ranks(hits: list[RecallHit], ranked: Sequence[tuple[Hit[T], float]]) -> list[RecallHit]:
    """Each hit with the fused score its layer was ranked by (the two lists are in one order)."""
    return [replace(hit, rank_score=score) for hit, (_, score) in zip(hits, ranked, strict=True)]


def fused(dense: Sequence[Hit[T]], lexical: Sequence[Hit[T]], *, k: int) -> list[tuple[Hit[T], float]]:
    """`fuse`, each hit with its fused score, highest first."""
    scores: dict[str, float] = {}
    items: dict[str, Hit[T]] = {}
    for hits in (dense, lexical):
        for rank, hit in enumerate(hits):
            scores[hit.item.id] = scores.get(hit.item.id, 0.0) + 1.0 / (RRF_K + rank + 1)
            items.setdefault(hit.item.id, hit)
    cosine = {h.item.id: h.score for h in dense}
    order = sorted(scores, key=lambda i: scores[i], reverse=True)[:k]
    return [(Hit(items[i].item, cosine.get(i, 0.0)), scores[i]) for i in order]
