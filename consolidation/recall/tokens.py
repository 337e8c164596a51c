"""Token counts of context text: o200k_base, the tokenizer of current OpenAI chat models."""

from __future__ import annotations

import functools
import warnings
from typing import Any

ENCODING_NAME = "o200k_base"


@functools.cache
def _encoding() -> Any:
    # Loading the rank table takes ~0.2 s: once per process, on first use.
    with warnings.catch_warnings():
        # bpe_openai reads its data with the deprecated importlib.resources.open_binary.
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai

        return bpe_openai.get_encoding(ENCODING_NAME)


def count_tokens(text: str) -> int:
    """o200k_base tokens in `text`; special-token markup counts as plain text."""
    return len(_encoding().encode_ordinary(text))
