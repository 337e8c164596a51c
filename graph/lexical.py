"""BM25 over one user's own items: the lexical view's scores, whatever other tenants store.

The full-text index only finds the candidates (every item of the user that holds a query word);
the scores use statistics of that user alone, kept on the user node at write time, and Lucene's
BM25 as Neo4j's index computes it (docs/design/lexical-scoring.md).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

# Lucene's BM25 defaults.
K1 = 1.2
B = 0.75
# A word as Lucene's standard tokeniser (Unicode word breaks) cuts it, for the scripts chat holds:
# letters joined by an apostrophe, a period or a colon (`caroline's`, `u.s`), digits by a comma,
# period, semicolon or apostrophe (`1,000`, `3.5`); each CJK ideograph or kana a word of its own.
_IDEOGRAPH = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_WORD = re.compile(
    rf"{_IDEOGRAPH}|(?:(?!{_IDEOGRAPH})\w)+"
    rf"(?:(?:(?<=[^\W\d_])['\u2019.:](?=[^\W\d_])|(?<=\d)[,.;'\u2019](?=\d))(?:(?!{_IDEOGRAPH})\w)+)*",
    re.UNICODE,
)
MAX_TERMS = 32
# Texts whose word counts are kept between recalls: each recall scores most of a user's items
# again, and splitting their texts is most of its Python time.
COUNTED_TEXTS = 8_192
# The user-node statistics of each layer (cypher/queries: written with every item).
LAYER_STATISTICS = {"Interaction": "lex_interactions", "Episode": "lex_episodes", "Fact": "lex_facts"}

Item = Mapping[str, Any]


def words(text: str) -> list[str]:
    """The words of a query or a document, lowercased: the same rule for both."""
    return _WORD.findall(text.lower())


def length(text: str | None) -> int:
    """A document's length in words, as its statistics count it."""
    return _counted(text or "")[1]


@lru_cache(maxsize=COUNTED_TEXTS)
def _counted(text: str) -> tuple[Counter[str], int]:
    """A text's word counts and its length in words (shared: never to be changed)."""
    found = words(text)
    return Counter(found), len(found)


def query_terms(text: str) -> list[str]:
    """The words of a query, in order, repeats kept, at most `MAX_TERMS` of them (the Lucene
    query's clauses: a repeated word is a clause twice)."""
    return words(text)[:MAX_TERMS]


def _int4(value: int) -> int:
    bits = value.bit_length()
    if bits < 4:
        return value
    shift = bits - 4
    return ((value >> shift) & 0x07) | ((shift + 1) << 3)


def _from_int4(code: int) -> int:
    shift = (code >> 3) - 1
    return code & 0x07 if shift == -1 else ((code & 0x07) | 0x08) << shift


_FREE = 255 - _int4(2**31 - 1)


@lru_cache(maxsize=4_096)
def stored_length(words_in: int) -> int:
    """A length as Lucene's norms keep it: exact below 24 words, then rounded down to 4
    significant bits (SmallFloat.intToByte4, then byte4ToInt)."""
    if words_in < _FREE:
        return words_in
    return _FREE + _from_int4(_int4(words_in - _FREE))


def rank(
    items: Sequence[Item],
    field: str,
    terms: Sequence[str],
    documents: int,
    k: int,
    total_length: int | None = None,
) -> list[tuple[Item, float]]:
    """The best `k` of the `items` marked `searched` (unmarked: all) by BM25 of `terms` over
    `item[field]`, best first; ties by text, then id (so that only items of the same text order
    by their random ids).

    `items` must be every item of the user in the layer that holds a query word, whatever its
    state; `documents` the number of the user's items there and `total_length` the sum of their
    lengths (None: the average of `items` stands in). Document frequencies are counted over
    `items`. A query word given twice counts twice. Items without a query word drop.
    """
    if not items or not terms or k <= 0:
        return []
    counted, lengths = zip(*(_counted(item[field] or "") for item in items), strict=True)
    n = max(documents, len(items))
    if total_length is not None and documents > 0:
        average = total_length / documents or 1.0
    else:
        average = sum(lengths) / len(lengths) or 1.0
    idf = {}
    for term, repeats in Counter(terms).items():
        df = sum(1 for c in counted if term in c)
        if df:
            idf[term] = repeats * math.log(1.0 + (n - df + 0.5) / (df + 0.5))
    scored = []
    for item, counts, words_in in zip(items, counted, lengths, strict=True):
        norm = K1 * (1.0 - B + B * stored_length(words_in) / average)
        score = 0.0
        for term, weight in idf.items():
            tf = counts.get(term, 0)
            if tf:
                score += weight * tf / (tf + norm)
        if score > 0.0 and item.get("searched", True):
            scored.append((item, score))
    scored.sort(key=lambda pair: (-pair[1], pair[0][field] or "", pair[0]["id"]))
    return scored[:k]
