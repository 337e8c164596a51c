"""Builds Lucene queries from user text: every special character escaped, scoped to one owner."""

from __future__ import annotations

import re

from graph.models import Owner

_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32


def escape(term: str) -> str:
    return _SPECIAL.sub(r"\\\1", term)


def lucene_query(text: str, owner: Owner) -> str | None:
    """`owner_key:<key> AND text:(w1 OR w2 ...)`-style query, or None when no word remains.

    Words are OR-ed so partial matches still rank; the field names are fixed by the indexes.
    """
    words = [escape(w) for w in _WORD.findall(text.lower())][:MAX_TERMS]
    if not words:
        return None
    return f"+owner_key:{owner.key} +({' '.join(words)})"
