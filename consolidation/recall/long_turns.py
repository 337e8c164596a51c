"""A long turn in a context: shown by its part that best matches the query, not from its start.

A long turn (consolidation/writing/parts.py) holds more than one context line should; wherever it
ranks, a focused context shows its best part (by cosine to the query), with `…` where text was
cut before or after it. Why: docs/design/long-turns.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from consolidation.recall.sentences import ELLIPSIS

# One part: (start, end, cosine to the query).
Part = tuple[int, int, float]


def focus_part(text: str, parts: Sequence[Part]) -> str | None:
    """The best part of `text`, marked where cut; None when there are no parts (or they no
    longer fit the text)."""
    if not parts or parts[-1][1] > len(text):
        return None
    start, end, _ = max(parts, key=lambda p: p[2])
    shown = text[start:end].strip()
    if not shown:
        return None
    return ("… " if start > 0 else "") + shown + (ELLIPSIS if end < len(text) else "")
