"""What a plan does to a recall: wider pools for counts and windows, a boost in the fused
ranking for items inside the window, the latest (or earliest) statements on the topic first,
and marks on what is older. Figures and reasons: docs/design/planner.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from consolidation.consolidating.prompts.answer import EARLIER_MARK, FIRST_MARK, LATEST_MARK
from consolidation.recall.planning.plan import Order, Plan, QuestionKind
from consolidation.types import Budgets
from graph.models import Episode, Fact, Interaction

T = TypeVar("T")
# One list's top reciprocal rank (1 / (60 + 1)): an item in the window ranks as if one view
# had put it one place higher than the best, so the window decides among close candidates only
# when the query matches them less well.
WINDOW_BOOST = 1.0 / 61
# The newest of the topic's best turns gains this much, the oldest nothing, linearly between.
ORDER_BOOST = 1.0 / 61
# The topic of an order question: this many of the best-ranked items of a layer, less those
# whose cosine to the query is below this share of the layer's best: in a small memory the ten
# best are everything, the unrelated included.
TOPIC_SIZE = 10
TOPIC_SHARE = 0.5
# Counts and windows search this many times deeper.
WIDEN = 2
POOL_CAP = 400
REPLACED_MARK = "(earlier: "


def widened(plan: Plan | None, budgets: Budgets) -> Budgets:
    """The pools a plan searches: deeper for a count or a window, since what it needs is spread
    over sessions or may rank low by wording."""
    if plan is None or (plan.kind is not QuestionKind.AGGREGATE and plan.window is None):
        return budgets
    return Budgets(
        subconscious=min(POOL_CAP, budgets.subconscious * WIDEN),
        episodic=min(POOL_CAP, budgets.episodic * WIDEN),
        semantic=min(POOL_CAP, budgets.semantic * WIDEN),
    )


def moment(item: Interaction | Episode | Fact) -> datetime:
    """When an item was said: a turn's time, an episode's last turn, a fact's start."""
    if isinstance(item, Interaction):
        return item.occurred_at
    if isinstance(item, Episode):
        return item.last_at
    return item.valid_from


def _in_window(plan: Plan, item: Interaction | Episode | Fact) -> bool:
    window = plan.window
    if window is None:
        return False
    if isinstance(item, Episode):
        return window.overlaps(item.first_at, item.last_at)
    return window.holds(moment(item))


def rescored(
    plan: Plan | None,
    entries: Sequence[T],
    item_of: Callable[[T], Interaction | Episode | Fact],
    score_of: Callable[[T], float],
    cosine_of: Callable[[T], float],
) -> list[tuple[T, float]]:
    """`entries` with their scores moved by the plan, highest first: the window's boost, then
    the order's among each layer's topic (`topic`)."""
    scores = [score_of(e) for e in entries]
    if plan is None or plan.empty:
        return sorted(zip(entries, scores, strict=True), key=lambda p: p[1], reverse=True)
    if plan.window is not None:
        scores = [
            s + (WINDOW_BOOST if _in_window(plan, item_of(e)) else 0.0)
            for e, s in zip(entries, scores, strict=True)
        ]
    if plan.order is not None:
        cosines = [cosine_of(e) for e in entries]
        for index, gain in _order_gains(plan.order, entries, item_of, scores, cosines).items():
            scores[index] += gain
    return sorted(zip(entries, scores, strict=True), key=lambda p: p[1], reverse=True)


def topic(
    entries: Sequence[T],
    item_of: Callable[[T], Interaction | Episode | Fact],
    scores: Sequence[float],
    cosines: Sequence[float],
) -> list[int]:
    """Indexes of each layer's `TOPIC_SIZE` best-scored entries, less those the query matches
    less than `TOPIC_SHARE` as well as the layer's best by cosine (an entry found by its words
    alone, cosine 0, is not on the topic). The floor only takes out: what ranks below the ten
    best never enters, so a lower-ranked statement cannot take a mark."""
    layer_of = [type(item_of(e)) for e in entries]
    floor: dict[type, float] = {}
    for layer, cosine in zip(layer_of, cosines, strict=True):
        floor[layer] = max(floor.get(layer, 0.0), cosine * TOPIC_SHARE)
    best: dict[type, list[int]] = {}
    for index in sorted(range(len(entries)), key=lambda i: scores[i], reverse=True):
        group = best.setdefault(layer_of[index], [])
        if len(group) < TOPIC_SIZE:
            group.append(index)
    return [
        i for group in best.values() for i in group if cosines[i] > 0.0 and cosines[i] >= floor[layer_of[i]]
    ]


def _order_gains(
    order: Order,
    entries: Sequence[T],
    item_of: Callable[[T], Interaction | Episode | Fact],
    scores: Sequence[float],
    cosines: Sequence[float],
) -> dict[int, float]:
    gains: dict[int, float] = {}
    chosen = topic(entries, item_of, scores, cosines)
    by_layer: dict[type, list[int]] = {}
    for index in chosen:
        by_layer.setdefault(type(item_of(entries[index])), []).append(index)
    for group in by_layer.values():
        timed = sorted(group, key=lambda i: moment(item_of(entries[i])), reverse=order is Order.LATEST)
        last = max(len(timed) - 1, 1)
        for place, index in enumerate(timed):
            gains[index] = ORDER_BOOST * (1.0 - place / last) if len(timed) > 1 else 0.0
    return gains


def marks(plan: Plan | None, ranked: Sequence[tuple[Interaction | Episode | Fact, float]]) -> dict[str, str]:
    """Item id -> the mark its line starts with for an order question: in each layer's topic
    (`topic`, of `ranked`: items with their cosines, best first), the newest statement is
    `(latest)` and the others `(earlier)` (`(earliest)` first for "first" questions). Nothing
    for other plans."""
    if plan is None or plan.order is None:
        return {}
    found: dict[str, str] = {}
    items = [item for item, _ in ranked]
    on_topic = topic(items, lambda item: item, [-float(i) for i in range(len(items))], [c for _, c in ranked])
    layers: dict[type, list[Interaction | Episode | Fact]] = {}
    for index in sorted(on_topic):
        layers.setdefault(type(items[index]), []).append(items[index])
    for group in layers.values():
        if len(group) < 2 or len({moment(i) for i in group}) < 2:
            continue
        timed = sorted(group, key=moment)
        if plan.order is Order.LATEST:
            found |= {i.id: EARLIER_MARK for i in timed[:-1]} | {timed[-1].id: LATEST_MARK}
        else:
            found |= {timed[0].id: FIRST_MARK}
    return found


def with_replaced(
    items: Sequence[tuple[str, str]], shown: dict[str, str], replaced: dict[str, list[str]]
) -> dict[str, str]:
    """`shown` (id -> text) with each fact that superseded others followed by the value it
    replaced: "... (earlier: <the newest replaced fact>)", so a reader sees an update as one."""
    found = dict(shown)
    for item_id, text in items:
        older = replaced.get(item_id)
        if older:
            found[item_id] = f"{shown.get(item_id, text)} {REPLACED_MARK}{older[0]})"
    return found
