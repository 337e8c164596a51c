"""A long turn's parts: consecutive spans of its text, each embedded on its own, so that every part
of a turn longer than the embedder's window is searchable.

A turn longer than `LONG_CHARS` characters (more than the interaction's one vector covers: MiniLM
reads 256 word pieces) is cut at sentence ends into parts of at most `PART_CHARS` characters (a
longer sentence is cut at a space, or anywhere). Each part is embedded with the interaction's
template, as the interaction is, so part and turn scores compare. Why these sizes:
docs/design/long-turns.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from graph.models import NewPart
from graph.validation import VectorValues

# A turn longer than this has parts; shorter ones are covered by their one vector.
LONG_CHARS = 1_000
# The most characters one part holds (about 200 word pieces of English prose).
PART_CHARS = 800

_SENTENCE_END = re.compile(r"(?<=[.!?…:\n])\s+")


@dataclass(frozen=True)
class Span:
    start: int
    end: int


def part_spans(text: str) -> list[Span]:
    """The spans of `text`'s parts in order, covering it whole; none for a turn that is not long."""
    if len(text) <= LONG_CHARS:
        return []
    spans: list[Span] = []
    start = 0
    for piece in _pieces(text):
        if piece.end - start > PART_CHARS and piece.start > start:
            spans.append(Span(start, piece.start))
            start = piece.start
    spans.append(Span(start, len(text)))
    return spans


def _pieces(text: str) -> list[Span]:
    """Sentences no longer than PART_CHARS (a longer one cut at its last space before the bound)."""
    bounds = [0, *(m.end() for m in _SENTENCE_END.finditer(text)), len(text)]
    pieces: list[Span] = []
    for start, end in pairwise(bounds):
        while end - start > PART_CHARS:
            cut = text.rfind(" ", start + 1, start + PART_CHARS)
            cut = cut + 1 if cut > start else start + PART_CHARS
            pieces.append(Span(start, cut))
            start = cut
        if end > start:
            pieces.append(Span(start, end))
    return pieces


def part_texts(text: str, spans: Sequence[Span]) -> list[str]:
    return [text[s.start : s.end].strip() for s in spans]


def new_parts(spans: Sequence[Span], vectors: Sequence[VectorValues]) -> tuple[NewPart, ...]:
    """The parts to store: each span with its vector."""
    return tuple(NewPart(s.start, s.end, v) for s, v in zip(spans, vectors, strict=True))
