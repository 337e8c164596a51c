"""A turn's sentences, embedded once at write time, and a long turn focused on a query.

No turn of a context shows its reactions (sentences of conversational filler, stopwords and the
speakers' names alone: "Wow, Jon!", "How are you?") while it has another sentence. Below the
best-ranked turns, a turn shows only its sentences within `FOCUS_MARGIN` of its best sentence's
cosine to the query; below the best `MARGIN_TURNS`, only its best sentence and the one after it.
A cut turn ends with `…`. A turn of two to `MAX_SENTENCES` sentences has each embedded bare, as
queries are, in the turn's own embedder call, and stored beside it as float16 bytes; any other
turn stores none and is always shown whole.
Why: docs/design/context-assembly.md#why-these-rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from consolidation.consolidating.offline.words import informative
from consolidation.providers.embedders import Embedder
from consolidation.writing.parts import LONG_CHARS

# Sentence ends: ., ! ? or … followed by space. Abbreviations split too ("Dr. Smith"): a split
# too many only makes a sentence shorter, never loses text, since a turn cut at all keeps every
# sentence close to its best.
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
MAX_SENTENCES = 32
# How far below a turn's best sentence (in cosine) a sentence may be and still be shown.
FOCUS_MARGIN = 0.15
# This many of a context's best-ranked turns are always shown whole.
WHOLE_TURNS = 3
# This many (the whole ones included; a plain recall's ten) keep every sentence near their best;
# a turn ranked below them is less likely to answer and shows its best sentence and the next.
MARGIN_TURNS = 10
ELLIPSIS = " …"

Matrix = npt.NDArray[np.float32]


def sentences(text: str) -> list[str]:
    """The text's sentences, in order, without surrounding space."""
    return [s for s in (part.strip() for part in _SENTENCE_END.split(text.strip())) if s]


def focusable(text: str) -> list[str]:
    """The sentences stored for a turn: none unless it has 2 to MAX_SENTENCES, and none for a long
    turn (its parts stand for them: consolidation/writing/parts.py)."""
    if len(text) > LONG_CHARS:
        return []
    found = sentences(text)
    return found if 2 <= len(found) <= MAX_SENTENCES else []


def pack(vectors: Matrix) -> bytes:
    """Rows of unit vectors as float16 bytes, as a node property holds them."""
    return np.asarray(vectors, dtype=np.float16).tobytes()


def unpack(data: bytes, dimension: int) -> Matrix:
    rows = np.frombuffer(data, dtype=np.float16).reshape(-1, dimension)
    return rows.astype(np.float32)


async def embed_turns(
    embedder: Embedder, rendered: Sequence[str], texts: Sequence[str]
) -> tuple[list[Matrix], list[bytes | None]]:
    """Each turn's vector (of its `rendered` text) and its packed sentence vectors (of `texts`),
    from one embedder call."""
    turns, packed, _ = await embed_writes(embedder, rendered, texts, [[] for _ in texts])
    return turns, packed


async def embed_writes(
    embedder: Embedder, rendered: Sequence[str], texts: Sequence[str], parts: Sequence[Sequence[str]]
) -> tuple[list[Matrix], list[bytes | None], list[list[Matrix]]]:
    """`embed_turns`, and each turn's `parts` (rendered part texts) embedded too, in the same call."""
    split = [focusable(text) for text in texts]
    flat = [s for found in split for s in found]
    vectors = await embedder.embed([*rendered, *flat, *(p for each in parts for p in each)])
    turns = [vectors[i] for i in range(len(rendered))]
    packed: list[bytes | None] = []
    start = len(rendered)
    for found in split:
        packed.append(pack(np.asarray(vectors[start : start + len(found)])) if found else None)
        start += len(found)
    part_vectors: list[list[Matrix]] = []
    for each in parts:
        part_vectors.append([vectors[start + i] for i in range(len(each))])
        start += len(each)
    return turns, packed, part_vectors


def reaction(sentence: str, names: frozenset[str]) -> bool:
    """A sentence with no informative word: only stopwords, conversational filler and `names`
    (the speakers' name words, lower-cased): "Wow, Jon!", "Thanks so much!", "How are you?"."""
    return not informative(sentence, names)


def without_reactions(text: str, names: frozenset[str]) -> str | None:
    """The turn without its reactions (a best-ranked turn, otherwise shown whole); None when it
    has none, or nothing else."""
    parts = focusable(text)
    said = _said(parts, names)
    return None if len(said) == len(parts) else _shown(parts, said)


def focus(
    text: str,
    packed: bytes,
    query: Matrix,
    margin: float = FOCUS_MARGIN,
    *,
    narrow: bool = False,
    names: frozenset[str] = frozenset(),
) -> str | None:
    """The turn's sentences within `margin` of its best one's cosine to `query` or, `narrow`, its
    best sentence and the one after it, reactions left out; None when that is all of them (or
    when the stored vectors no longer match the text)."""
    parts = focusable(text)
    dimension = int(query.shape[-1])
    if not parts or len(packed) != len(parts) * dimension * 2:
        return None
    scores = unpack(packed, dimension) @ query
    said = _said(parts, names)
    best = max(said, key=lambda i: float(scores[i]))
    if narrow:
        keep = [i for i in said if best <= i <= best + 1]
    else:
        keep = [i for i in said if scores[i] >= scores[best] - margin]
    return None if len(keep) == len(parts) else _shown(parts, keep)


def _said(parts: list[str], names: frozenset[str]) -> list[int]:
    """The indexes of the sentences that are not reactions; all of them when every one is."""
    said = [i for i, part in enumerate(parts) if not reaction(part, names)]
    return said or list(range(len(parts)))


def _shown(parts: list[str], keep: list[int]) -> str:
    return " ".join(parts[i] for i in keep) + ELLIPSIS
