"""Aggregation gathers distinct statements (docs/design/context-assembly.md#aggregation).

For a count or list question, turns are spread over sessions: in fused order, each session's
first `PER_SESSION` turns keep their score, each further `PER_SESSION` of that session count
`DECAY` times less (a session is a turn's session id, else its day), and a turn whose words
repeat a better one's (the same set) drops out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from graph.lexical import words
from graph.models import Interaction

T = TypeVar("T")
PER_SESSION = 2
DECAY = 0.5


def spread(
    entries: Sequence[T], turn_of: Callable[[T], Interaction], score_of: Callable[[T], float]
) -> list[tuple[T, float]]:
    """`entries` (turns, best first) rescored as the module docstring says, highest first."""
    taken: dict[str, int] = {}
    seen: set[frozenset[str]] = set()
    scored = []
    for entry in sorted(entries, key=score_of, reverse=True):
        turn = turn_of(entry)
        said = frozenset(words(turn.text))
        if said and said in seen:
            continue
        seen.add(said)
        session = turn.session_id or turn.occurred_at.date().isoformat()
        place = taken.get(session, 0)
        taken[session] = place + 1
        scored.append((entry, score_of(entry) * DECAY ** (place // PER_SESSION)))
    return sorted(scored, key=lambda pair: pair[1], reverse=True)
