"""Recall under a token budget: one ranking across the three layers, filled greedily, no turn twice.

The per-layer lists (10 / 5 / 10 by default) say what each layer found; an LLM needs one context
of bounded size. `rank` and `assemble` build it:

- **Evidence first.** The user's turns (consolidated ones too) are ranked by reciprocal-rank
  fusion of the dense view (cosine) and the lexical view (Lucene rank), as plain retrieval would.
- **Memory where its evidence ranks.** A fact enters the ranking just before the best-ranked turn
  it rests on (`DERIVED_FROM`), an episode just before the second best of its turns: a summary is
  worth its tokens only where it stands for several turns that matter. An item none of whose
  turns is among the candidates is left out. Cosines of a fact, an episode and a turn do not
  compare (a turn is embedded with its speaker and date, a fact as a sentence, a summary as a
  paragraph), so layers are not ranked against each other by score; ranking them by their
  evidence also keeps a layer full of small talk from crowding out the turns that answer.
- **No interaction spent twice.** A turn is skipped when a fact or an episode in the context rests
  on it; an episode that enters removes the turns it holds that were taken before it, giving their
  tokens back; a fact whose turns are all in already is skipped.
- **Greedy by rank, skipping what does not fit**, so a long item cannot block the short ones
  ranked after it.
- **Ordered for an LLM to read**: facts, then episodes, then conversation turns, each group in
  time order, every item carrying its date.

On the LoCoMo dev file this order keeps recmem's context at or above plain retrieval's evidence
recall at 500 to 2,000 tokens; ranking the three layers' cosines against each other instead cost
0.13 of evidence recall at 500 tokens (bench/locomo.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from consolidation.embedding_template import day_text
from consolidation.types import Context, ContextItem, RecallHit
from graph.models import Episode, Interaction

# The usual reciprocal-rank-fusion constant: no single list's top hit dominates.
RRF_K = 60
# An episode is placed at its second best-ranked turn: it must stand for at least two.
EPISODE_ANCHORS = 2
# Far below the gap between two fused ranks (about 1e-4 at rank 100).
ANCHOR_STEP = 1e-9
SECTIONS = (("semantic", "Facts:"), ("episodic", "Episodes:"), ("subconscious", "Conversation:"))


@dataclass(frozen=True)
class Ranked:
    hit: RecallHit
    rank_score: float


def rank(
    turns_dense: Sequence[RecallHit], turns_lexical: Sequence[RecallHit], memory: Sequence[RecallHit]
) -> list[Ranked]:
    """The fused order of the turns, with each fact and episode of `memory` placed just before
    the turn it is anchored to (see the module docstring)."""
    turns = _fused(turns_dense, turns_lexical)
    position = {r.hit.id: index for index, r in enumerate(turns)}
    placed: list[Ranked] = []
    for hit in {h.id: h for h in memory}.values():
        anchors = sorted(position[i] for i in hit.interaction_ids if i in position)
        needed = EPISODE_ANCHORS if hit.layer == "episodic" else 1
        if len(anchors) < needed:
            continue
        anchor = turns[anchors[needed - 1]].rank_score
        # Just above its anchor; of two items on one anchor, the one resting on more turns first.
        placed.append(Ranked(hit, anchor + ANCHOR_STEP * len(anchors)))
    return sorted([*turns, *placed], key=lambda r: r.rank_score, reverse=True)


def _fused(dense: Sequence[RecallHit], lexical: Sequence[RecallHit]) -> list[Ranked]:
    """Reciprocal-rank fusion of two views: ranks, since cosine and BM25 do not compare."""
    fused: dict[str, float] = {}
    hits: dict[str, RecallHit] = {}
    for view in (dense, lexical):
        for position, hit in enumerate(sorted(view, key=lambda h: h.score, reverse=True)):
            fused[hit.id] = fused.get(hit.id, 0.0) + 1.0 / (RRF_K + position + 1)
            hits.setdefault(hit.id, hit)
    order = sorted(fused, key=lambda i: fused[i], reverse=True)
    return [Ranked(hits[i], fused[i]) for i in order]


def render(hit: RecallHit) -> str:
    """One context line. Facts and episode summaries carry their own dates (they are written
    self-contained); a turn gets the day it was said and its speaker."""
    item = hit.item
    if isinstance(item, Interaction):
        return f"- [{day_text(item.occurred_at)}] {item.speaker}: {item.text}"
    if isinstance(item, Episode):
        first, last = day_text(item.first_at), day_text(item.last_at)
        span = first if first == last else f"{first} to {last}"
        return f"- [{span}] {item.summary}"
    return f"- {hit.text}"


def assemble(ranked: Sequence[Ranked], budget: int, count: Callable[[str], int]) -> Context:
    """The best-ranked items whose rendered lines, with section headers, fit in `budget` tokens."""
    chosen: dict[str, ContextItem] = {}
    held: dict[str, str] = {}  # interaction id -> id of the chosen fact or episode resting on it
    used = 0
    for entry in ranked:
        hit = entry.hit
        if hit.id in chosen or hit.id in held or _redundant(hit, chosen, held):
            continue
        line = render(hit)
        cost = count(line) + 1  # the newline
        freed = _freed(hit, chosen)
        header = _header_cost(hit.layer, chosen, freed, count)
        if used + cost + header - sum(chosen[i].tokens for i in freed) > budget:
            continue
        for turn in freed:
            used -= chosen.pop(turn).tokens
        chosen[hit.id] = ContextItem(hit, line, cost, round(entry.rank_score, 6))
        used += cost + header
        if hit.layer != "subconscious":
            held |= dict.fromkeys(hit.interaction_ids, hit.id)
    items = list(chosen.values())
    context = _context(items, budget, count)
    # Tokens of joined lines can differ from the sum of the lines' by a few: drop the
    # lowest-ranked item until the text itself fits.
    while context.tokens > budget and items:
        items.remove(min(items, key=lambda c: c.rank_score))
        context = _context(items, budget, count)
    return context


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
    layer: str, chosen: dict[str, ContextItem], freed: list[str], count: Callable[[str], int]
) -> int:
    """A section's header is paid by the first item of its layer."""
    present = {c.hit.layer for i, c in chosen.items() if i not in freed}
    return 0 if layer in present else count(dict(SECTIONS)[layer]) + 1


def _context(items: list[ContextItem], budget: int, count: Callable[[str], int]) -> Context:
    lines: list[str] = []
    ordered: list[ContextItem] = []
    for layer, header in SECTIONS:
        group = sorted((c for c in items if c.hit.layer == layer), key=_when)
        if group:
            lines.append(header)
            lines += [c.line for c in group]
            ordered += group
    text = "\n".join(lines)
    return Context(text=text, tokens=count(text) if text else 0, budget=budget, items=ordered)


def _when(item: ContextItem) -> float:
    at = item.hit.at
    return at.timestamp() if at is not None else 0.0
