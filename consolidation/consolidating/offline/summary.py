"""The extractive episode summary: a few informative sentences chosen greedily, in stream order.

At most `SUMMARY_MAX_SENTENCES` sentences and `SUMMARY_MAX_WORDS` words (about 120 o200k tokens;
a longer sentence is cut to 90 words), chosen greedily among the informative declarative
sentences (`Unit.statement`): each step takes the sentence with the largest weight of
informative words not yet covered, divided by the square root of its length in words, where a
word weighs 1 + ln(number of candidate sentences containing it), earliest first on ties; a
sentence that no longer fits the word budget, adds no new word, or shares at least 60% of its
informative words (Jaccard) with a kept sentence is skipped. The kept sentences are joined in
stream order. Turns without such a sentence are summarized by their one sentence with the most
informative words. In a merge, the best new sentence is kept first, so the summary shows the
update.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from consolidation.consolidating.consolidator import Turn
from consolidation.consolidating.offline.dates import day_of, day_str
from consolidation.consolidating.offline.units import Unit
from consolidation.consolidating.offline.words import jaccard

SUMMARY_MAX_SENTENCES = 6
SUMMARY_MAX_WORDS = 90  # about 120 o200k tokens
SUMMARY_REDUNDANT = 0.6  # Jaccard of informative words at which a sentence repeats a kept one


def summary(units: list[Unit], turns: Sequence[Turn]) -> str:
    """At most SUMMARY_MAX_SENTENCES sentences and SUMMARY_MAX_WORDS words, in stream order."""
    if not units:
        speakers = " and ".join(dict.fromkeys(turn.speaker for turn in turns))
        return f"On {day_str(day_of(turns[0].occurred_at))} {speakers} talked."
    pool = [_clipped(u) for u in units if u.statement]
    if not pool:  # chatter only: the one sentence with the most informative words
        return _clipped(max(units, key=lambda u: (len(u.words), -u.position))).text
    weight = {w: 1.0 + math.log(n) for w, n in Counter(w for u in pool for w in u.words).items()}
    covered: set[str] = set()

    def gain(unit: Unit) -> float:
        return sum(weight[w] for w in unit.words - covered) / math.sqrt(unit.length)

    kept: list[Unit] = []
    fresh = [u for u in pool if u.new]
    if fresh and len(fresh) < len(pool):  # a merge: the update must show
        kept.append(max(fresh, key=lambda u: (gain(u), -u.position)))
        covered |= kept[0].words
    budget = SUMMARY_MAX_WORDS - sum(u.length for u in kept)
    while len(kept) < SUMMARY_MAX_SENTENCES:
        fitting = [
            u
            for u in pool
            if all(u.position != k.position for k in kept)
            and u.length <= budget
            and gain(u) > 0
            and all(jaccard(u.words, k.words) < SUMMARY_REDUNDANT for k in kept)
        ]
        if not fitting:
            break
        best = max(fitting, key=lambda u: (gain(u), -u.position))
        kept.append(best)
        covered |= best.words
        budget -= best.length
    return " ".join(u.text for u in sorted(kept, key=lambda u: u.position))


def _clipped(unit: Unit) -> Unit:
    words = unit.text.split()
    if len(words) <= SUMMARY_MAX_WORDS:
        return unit
    return replace(unit, text=" ".join(words[: SUMMARY_MAX_WORDS - 1]).rstrip(",;:") + " ...")
