"""Recall under a token budget: one ranking across the three layers, filled greedily, no turn twice.

Turns rank by reciprocal-rank fusion of their dense and lexical ranks; a fact enters just before
the best-ranked turn it rests on, an episode just before the k-th best of its turns (k: how many
turns its summary costs in tokens, at least two); an item none of whose turns is a candidate is
left out. A fact a person stated (added or corrected by hand, on no turn) ranks among the facts
as a turn ranks among the turns. A turn's facts stand in for it only together, an episode takes
out the turns it holds, and what does not fit is skipped. The context lists facts, then
episodes, then turns under a header per day (of the question's calendar: `Calendar`), each
group in time order. Why these rules:
docs/design/context-assembly.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, tzinfo

from consolidation.providers.embedding_template import day_text
from consolidation.recall.planning.relative import before
from consolidation.times import local
from consolidation.types import Context, ContextItem, RecallHit
from graph.models import Episode, Fact, Interaction

# The usual reciprocal-rank-fusion constant: no single list's top hit dominates.
RRF_K = 60
# An episode is placed at its second best-ranked turn at the earliest: it must stand for two.
EPISODE_ANCHORS = 2
# Far below the gap between two fused ranks (about 1e-4 at rank 100).
ANCHOR_STEP = 1e-9
SECTIONS = (("semantic", "Facts:"), ("episodic", "Episodes:"), ("subconscious", "Conversation:"))


@dataclass(frozen=True)
class Calendar:
    """How a context writes its days: on the calendar of `zone` (the question's offset), and,
    with `asked_at`, how long before the question each day was (`8 May 2023 (3 weeks before):`).
    With `now` (the question's instant), a fact that holds only from a later day is marked so."""

    zone: tzinfo = UTC
    asked_at: datetime | None = None
    now: datetime | None = None


@dataclass(frozen=True)
class Ranked:
    hit: RecallHit
    rank_score: float


def rank(
    turns_dense: Sequence[RecallHit],
    turns_lexical: Sequence[RecallHit],
    memory: Sequence[RecallHit],
    count: Callable[[str], int],
    adjust: Callable[[list[Ranked]], list[Ranked]] | None = None,
    stated: Sequence[Ranked] = (),
) -> list[Ranked]:
    """The fused order of the turns, with each fact and episode of `memory` placed just before
    the turn it is anchored to (see the module docstring), and the facts of `stated` (a
    person's, on no turn) at their own fused rank among the facts. `adjust` rescores and
    reorders the fused turns before anything is placed (a plan's window and order,
    planning/ranking.py)."""
    turns = _fused(turns_dense, turns_lexical)
    if adjust is not None:
        turns = adjust(turns)
    position = {r.hit.id: index for index, r in enumerate(turns)}
    lengths: dict[str, int] = {}  # turn id -> tokens of its line, counted once per recall
    placed: list[Ranked] = list(stated)
    for hit in {h.id: h for h in memory}.values():
        anchors = sorted(position[i] for i in hit.interaction_ids if i in position)
        needed = _anchors_needed(hit, [turns[a].hit for a in anchors], count, lengths)
        if not anchors or len(anchors) < needed:
            continue
        anchor = turns[anchors[needed - 1]].rank_score
        # Just above its anchor; of two items on one anchor, the one resting on more turns first.
        placed.append(Ranked(hit, anchor + ANCHOR_STEP * len(anchors)))
    return sorted([*turns, *placed], key=lambda r: r.rank_score, reverse=True)


def shown_as(ranked: Sequence[Ranked], texts: Mapping[str, str]) -> list[Ranked]:
    """`ranked` with the items of `texts` (id -> text) shown by that text instead of theirs: a
    turn focused on the query (consolidation/recall/sentences.py), an item marked as the latest
    or earlier statement on its topic (planning/ranking.py). Its rank and provenance stay."""
    return [
        Ranked(replace(r.hit, text=texts[r.hit.id]), r.rank_score) if r.hit.id in texts else r for r in ranked
    ]


def _anchors_needed(
    hit: RecallHit, turns: Sequence[RecallHit], count: Callable[[str], int], lengths: dict[str, int]
) -> int:
    """A fact: its best turn. An episode: as many of its ranked turns as its summary costs."""
    if hit.layer != "episodic" or not turns:
        return 1
    for turn in turns:
        if turn.id not in lengths:
            lengths[turn.id] = count(render(turn))
    mean = sum(lengths[t.id] for t in turns) / len(turns)
    return max(EPISODE_ANCHORS, math.ceil(count(render(hit)) / max(mean, 1.0)))


def _fused(dense: Sequence[RecallHit], lexical: Sequence[RecallHit]) -> list[Ranked]:
    """Reciprocal-rank fusion of two views: ranks, since cosine and BM25 do not compare. Each hit
    keeps its cosine as `score` (0.0 when only the lexical view found it)."""
    fused: dict[str, float] = {}
    for view in (dense, lexical):
        for position, hit in enumerate(sorted(view, key=lambda h: h.score, reverse=True)):
            fused[hit.id] = fused.get(hit.id, 0.0) + 1.0 / (RRF_K + position + 1)
    hits = cosine_hits(dense, lexical)
    order = sorted(fused, key=lambda i: fused[i], reverse=True)
    return [Ranked(hits[i], fused[i]) for i in order]


def cosine_hits(dense: Sequence[RecallHit], lexical: Sequence[RecallHit]) -> dict[str, RecallHit]:
    """Id -> the hit of either view, scored by its cosine: the dense view's hit where there is
    one, else the lexical one with score 0.0 (a BM25 score does not compare with a cosine)."""
    hits = {h.id: h for h in dense}
    for hit in lexical:
        hits.setdefault(hit.id, replace(hit, score=0.0))
    return hits


def render(hit: RecallHit, calendar: Calendar = Calendar()) -> str:
    """One context line. Facts and episode summaries carry their own dates (they are written
    self-contained); an episode's span is on the context's calendar; a turn gets its speaker,
    and its day from the day header it is listed under (`day_header`), which turns of one day share.
    A fact that holds only from a day after the calendar's `now` says from when:
    `- (from 30 June 2027) ...` (docs/design/context-assembly.md#facts-not-yet-in-force)."""
    item = hit.item
    if isinstance(item, Interaction):
        return f"- {item.speaker}: {hit.text}"
    if isinstance(item, Episode):
        first, last = day_text(item.first_at, calendar.zone), day_text(item.last_at, calendar.zone)
        span = first if first == last else f"{first} to {last}"
        return f"- [{span}] {item.summary}"
    if isinstance(item, Fact) and _later_day(item.valid_from, calendar):
        return f"- (from {day_text(item.valid_from, calendar.zone)}) {hit.text}"
    return f"- {hit.text}"


def _later_day(moment: datetime, calendar: Calendar) -> bool:
    """Whether `moment` falls on a later day than the calendar's `now`, both on its calendar."""
    return (
        calendar.now is not None
        and local(moment, calendar.zone).date() > local(calendar.now, calendar.zone).date()
    )


def day_header(hit: RecallHit, calendar: Calendar = Calendar()) -> str | None:
    """`8 May 2023:`, the line the turns of that day (on the calendar's) are listed under; None
    for a fact or episode. With the calendar's `asked_at`, how long before the question the day
    was: `8 May 2023 (3 weeks before):`."""
    item = hit.item
    if not isinstance(item, Interaction):
        return None
    day = day_text(item.occurred_at, calendar.zone)
    if calendar.asked_at is None:
        return f"{day}:"
    return f"{day} ({before(item.occurred_at, calendar.asked_at)}):"


def assemble(
    ranked: Sequence[Ranked], budget: int, count: Callable[[str], int], calendar: Calendar = Calendar()
) -> Context:
    """The best-ranked items whose rendered lines, with section headers, fit in `budget` tokens,
    their days written on `calendar`."""
    facts_of = _facts_by_turn(ranked)
    chosen: dict[str, ContextItem] = {}
    held: dict[str, str] = {}  # interaction id -> id of the chosen fact or episode standing for it
    used = 0
    for entry in ranked:
        hit = entry.hit
        if hit.id in chosen or hit.id in held or _redundant(hit, chosen, held):
            continue
        line = render(hit, calendar)
        cost = count(line) + 1  # the newline
        freed = _freed(hit, chosen)
        header = _header_cost(hit, chosen, freed, count, calendar)
        if used + cost + header - sum(chosen[i].tokens for i in freed) > budget:
            continue
        for turn in freed:
            used -= chosen.pop(turn).tokens
        chosen[hit.id] = ContextItem(hit, line, cost, round(entry.rank_score, 6))
        used += cost + header
        held |= dict.fromkeys(_stood_for(hit, chosen, facts_of), hit.id)
    items = list(chosen.values())
    context = _context(items, budget, count, calendar)
    # Tokens of joined lines can differ from the sum of the lines' by a few: drop the
    # lowest-ranked item until the text itself fits.
    while context.tokens > budget and items:
        items.remove(min(items, key=lambda c: c.rank_score))
        context = _context(items, budget, count, calendar)
    return context


def _facts_by_turn(ranked: Sequence[Ranked]) -> dict[str, set[str]]:
    """Interaction id -> the ids of the ranked facts resting on it."""
    facts: dict[str, set[str]] = {}
    for entry in ranked:
        if entry.hit.layer == "semantic":
            for interaction in entry.hit.interaction_ids:
                facts.setdefault(interaction, set()).add(entry.hit.id)
    return facts


def _stood_for(hit: RecallHit, chosen: dict[str, ContextItem], facts_of: dict[str, set[str]]) -> list[str]:
    """The turns `hit`, just chosen, stands in for: all of an episode's; those of a fact's whose
    every fact is now in."""
    if hit.layer == "episodic":
        return list(hit.interaction_ids)
    if hit.layer == "semantic":
        return [i for i in hit.interaction_ids if facts_of.get(i, set()) <= chosen.keys()]
    return []


def _redundant(hit: RecallHit, chosen: dict[str, ContextItem], held: dict[str, str]) -> bool:
    """A fact adds nothing when every turn it rests on is in the context already."""
    if hit.layer != "semantic" or not hit.interaction_ids:
        return False
    return all(i in chosen or i in held for i in hit.interaction_ids)


def _freed(hit: RecallHit, chosen: dict[str, ContextItem]) -> list[str]:
    """Turns already chosen that an episode about to enter holds."""
    if hit.layer != "episodic":
        return []
    return [i for i in hit.interaction_ids if i in chosen and chosen[i].hit.layer == "subconscious"]


def _header_cost(
    hit: RecallHit,
    chosen: dict[str, ContextItem],
    freed: list[str],
    count: Callable[[str], int],
    calendar: Calendar,
) -> int:
    """The headers `hit` would be the first under: its section's, and a turn's day header."""
    present = [c.hit for i, c in chosen.items() if i not in freed]
    cost = 0 if hit.layer in {h.layer for h in present} else count(dict(SECTIONS)[hit.layer]) + 1
    day = day_header(hit, calendar)
    if day is not None and day not in {day_header(h, calendar) for h in present}:
        cost += count(day) + 1
    return cost


def _context(
    items: list[ContextItem], budget: int, count: Callable[[str], int], calendar: Calendar
) -> Context:
    lines: list[str] = []
    ordered: list[ContextItem] = []
    for layer, header in SECTIONS:
        group = sorted((c for c in items if c.hit.layer == layer), key=_when)
        if group:
            lines.append(header)
            lines += _with_day_headers(group, calendar)
            ordered += group
    text = "\n".join(lines)
    return Context(text=text, tokens=count(text) if text else 0, budget=budget, items=ordered)


def _with_day_headers(group: list[ContextItem], calendar: Calendar) -> list[str]:
    """The group's lines in time order, a day header before the first turn of each day."""
    lines: list[str] = []
    last: str | None = None
    for item in group:
        day = day_header(item.hit, calendar)
        if day is not None and day != last:
            lines.append(day)
            last = day
        lines.append(item.line)
    return lines


def _when(item: ContextItem) -> float:
    at = item.hit.at
    return at.timestamp() if at is not None else 0.0
