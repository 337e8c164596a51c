"""Builds Lucene queries from user text: every special character escaped, scoped to one owner."""

from __future__ import annotations

import re

from graph.lexical import MAX_TERMS, words
from graph.models import Owner

_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')


def escape(term: str) -> str:
    return _SPECIAL.sub(r"\\\1", term)


def lucene_query(text: str, owner: Owner) -> str | None:
    """`owner_key:<key> AND text:(w1 OR w2 ...)`-style query of `text`'s first `MAX_TERMS` words,
    or None when no word remains.

    Words are OR-ed so partial matches still rank; the field names are fixed by the indexes.
    """
    return lucene_terms(words(text)[:MAX_TERMS], owner)


def lucene_terms(terms: list[str], owner: Owner) -> str | None:
    """`lucene_query` of these words (each as `words` splits text), all of them."""
    escaped = [escape(w) for w in terms if w]
    if not escaped:
        return None
    return f"+owner_key:{owner.key} +({' '.join(escaped)})"
