"""Episodes and merges: a title and an extractive summary, continued when the topic goes on.

- Episode: title = the three most frequent topical informative words; summary as `summary` says.
- Merge: the new turns continue the episode when they share at least min(2, n) of their n
  distinct content words with the summary and the shared words are at least 30% of n. The merged
  summary is selected again, under the same cap, from the old summary's sentences (a v1
  "On YYYY-MM-DD, Speaker said: text" summary is read back as turns) followed by the new turns'
  sentences.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime

from consolidation.consolidating.consolidator import EpisodeDraft, MergeDecision, MergeInput, Turn
from consolidation.consolidating.offline.declarative import declarative
from consolidation.consolidating.offline.splitting import sentences
from consolidation.consolidating.offline.statements import DATE_PREFIX
from consolidation.consolidating.offline.summary import summary
from consolidation.consolidating.offline.units import Unit, turn_units
from consolidation.consolidating.offline.words import (
    PAST_VERBS,
    STOPWORDS,
    VERBS,
    content_words,
    informative,
    name_words,
)

MERGE_MIN_SHARED = 2
MERGE_MIN_FRACTION = 0.3

_V1_TURN = re.compile(r"On (\d{4}-\d{2}-\d{2}), (.+?) said: ")


def episode(turns: list[Turn]) -> EpisodeDraft:
    names = name_words(turn.speaker for turn in turns)
    units = turn_units(turns, names)
    counts = Counter(word for unit in units for word in unit.words if _topical(word))
    # Ties go to the word said first, then alphabetically: a unit's words are a set, whose order
    # changes with the hash seed, so most_common's insertion order would give one episode
    # different titles in two processes.
    first_unit: dict[str, int] = {}
    for index, unit in enumerate(units):
        for word in unit.words:
            first_unit.setdefault(word, index)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], first_unit[item[0]], item[0]))
    top = [word.capitalize() for word, _ in ranked[:3]]
    return EpisodeDraft(title=", ".join(top) or "Conversation", summary=summary(units, turns))


def _topical(word: str) -> bool:
    """Title material: not one of the common verbs ("love", "went", "going")."""
    stem = word[:-1] if word.endswith("s") else word
    return not (stem in VERBS or word in PAST_VERBS or word.endswith(("ing", "ed")))


def merge(inp: MergeInput) -> MergeDecision:
    new_words = {word for turn in inp.new_turns for word in content_words(turn.text)}
    shared = new_words & set(content_words(inp.episode_summary))
    needed = min(MERGE_MIN_SHARED, len(new_words))
    continues = bool(new_words) and len(shared) >= needed
    continues = continues and len(shared) / len(new_words) >= MERGE_MIN_FRACTION
    listed = ", ".join(sorted(shared)[:6]) or "none"
    reason = f"{len(shared)} of {len(new_words)} content words shared with the episode ({listed})"
    merged = _merged_summary(inp) if continues else None
    return MergeDecision(continues=continues, summary=merged, reason=reason)


def _merged_summary(inp: MergeInput) -> str:
    """The old summary's sentences and the new turns', selected again under the same cap."""
    old_turns = _v1_turns(inp.episode_summary)
    speakers = {turn.speaker for turn in [*old_turns, *inp.new_turns]}
    everyone = [*old_turns, *inp.new_turns]
    if old_turns:
        names = name_words(speakers)
        old = [replace(u, new=False) for u in turn_units(old_turns, names, among=everyone)]
    else:
        names = name_words(speakers | _summary_speakers(inp.episode_summary))
        old = [
            Unit(text, informative(text, names), index, new=False, declarative=declarative(text, names))
            for index, text in enumerate(sentences(inp.episode_summary))
        ]
    new = turn_units(inp.new_turns, names, start=len(old), among=everyone)
    return summary([*old, *new], inp.new_turns)


def _v1_turns(text: str) -> list[Turn]:
    """An extractive-v1 summary ("On YYYY-MM-DD, Speaker said: text" stitched) read back as turns."""
    marks = list(_V1_TURN.finditer(text))
    if not marks or marks[0].start() != 0:
        return []
    turns = []
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        said_on = datetime.fromisoformat(mark[1]).replace(tzinfo=UTC)
        turns.append(
            Turn(id=f"v1-{index}", speaker=mark[2], occurred_at=said_on, text=text[mark.end() : end])
        )
    return turns


def _summary_speakers(text: str) -> set[str]:
    """Who the sentences of a v2 summary are about: the capitalized word after the date."""
    found = set()
    for sentence in sentences(text):
        body = DATE_PREFIX.sub("", sentence)
        first = body.split(" ", 1)[0].strip(",.;:!?").removesuffix("'s")
        if first[:1].isupper() and first.lower() not in STOPWORDS:
            found.add(first)
    return found
