"""Checks run before any write, so that bad input raises InvalidInput and changes nothing."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from datetime import datetime

import numpy as np
import numpy.typing as npt

from graph.errors import InvalidInput
from graph.vocabulary import MAX_CONTEXT_TOKENS, MAX_ID_CHARS

# A vector as callers hold it: a list of floats, or an embedder's float32 row.
VectorValues = Sequence[float] | npt.NDArray[np.float32]


def require_owner(tenant: str, user_id: str) -> None:
    require_name("tenant", tenant)
    require_name("user_id", user_id)


def require_name(what: str, value: str) -> None:
    if not value or not value.strip():
        raise InvalidInput(f"{what} must not be empty")
    if len(value) > MAX_ID_CHARS:
        raise InvalidInput(f"{what} is longer than {MAX_ID_CHARS} characters")
    utf8_size(what, value)


# What a reader cannot see: separators (spaces, line and paragraph breaks), control characters
# and format characters (zero-width spaces and joiners, the byte order mark, bidi marks).
INVISIBLE = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf"})


def require_text(
    what: str, text: str, max_bytes: int, *, setting: str | None = None, nul: bool = True
) -> None:
    """At least one visible character and at most `max_bytes` in UTF-8; the error names `setting`
    when one sets the limit. `nul=False` refuses U+0000 too (a fact's text, a reason)."""
    if not any(unicodedata.category(c) not in INVISIBLE for c in text):
        raise InvalidInput(f"{what} must not be empty: it has no visible character")
    if not nul and "\0" in text:
        raise InvalidInput(f"{what} must not hold U+0000 (NUL) at character {text.index(chr(0))}")
    size = utf8_size(what, text)
    if size > max_bytes:
        named = f" ({setting})" if setting else ""
        raise InvalidInput(f"{what} is {size} bytes; the limit is {max_bytes} bytes{named}")


def utf8_size(what: str, text: str) -> int:
    """Bytes of `text` in UTF-8. A lone surrogate (a Python string can hold one, e.g. decoded from
    JSON's "\\ud800") has no UTF-8 form: refused here rather than failing in the driver."""
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError as error:
        raise InvalidInput(
            f"{what} is not valid Unicode: a lone UTF-16 surrogate at character {error.start}"
        ) from None


def require_vector(what: str, vector: VectorValues, dimension: int) -> np.ndarray:
    """The vector as float32, the precision it is stored in; a value beyond float32 counts as
    infinite. An all-zero vector is refused too: it has no direction, so cosine similarity is
    undefined and a vector index cannot place it."""
    if len(vector) != dimension:
        raise InvalidInput(f"{what} has {len(vector)} dimensions; the store expects {dimension}")
    with np.errstate(over="ignore"):
        stored = np.asarray(vector, dtype=np.float32)
    if not np.isfinite(stored).all():
        raise InvalidInput(f"{what} holds a NaN or infinite value (in float32)")
    if not stored.any():
        raise InvalidInput(f"{what} is all zeros (norm 0): it has no direction to compare by cosine")
    return stored


def require_token_budget(tokens: int | None) -> None:
    if tokens is not None and not 1 <= tokens <= MAX_CONTEXT_TOKENS:
        raise InvalidInput(f"token budget must be between 1 and {MAX_CONTEXT_TOKENS}, got {tokens}")


def require_min_score(score: float | None) -> None:
    """A minimum rank score is a finite number, at least 0 (rank scores are positive)."""
    if score is not None and not (math.isfinite(score) and score >= 0.0):
        raise InvalidInput(f"minimum score must be a finite number of at least 0, got {score}")


def require_aware(what: str, moment: datetime) -> None:
    """Naive datetimes are ambiguous; every stored time is UTC."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidInput(f"{what} must carry a timezone (UTC is stored)")
