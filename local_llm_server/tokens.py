"""Token counting with the o200k_base tokenizer, so reported `usage` looks like OpenAI's."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

ENCODING_NAME = "o200k_base"

# Overheads from OpenAI's cookbook recipe for counting chat tokens
# ("How to count tokens with tiktoken"): every message is wrapped in
# `<|start|>{role}<|message|>{content}<|end|>` and the reply is primed with
# `<|start|>assistant<|message|>`.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING_TOKENS = 3


@functools.cache
def _encoding() -> Any:
    # Loading the rank table takes ~0.2 s: do it once per process, on first use.
    with warnings.catch_warnings():
        # bpe_openai reads its data (already at import) with the deprecated
        # importlib.resources.open_binary; importing here keeps that warning quiet.
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai

        return bpe_openai.get_encoding(ENCODING_NAME)


def warm_up() -> None:
    """Load the tokenizer now, so the first request is not slowed by it."""
    _encoding()


def count_tokens(text: str) -> int:
    """Number of o200k_base tokens in `text`; special-token markup counts as plain text."""
    # encode_ordinary never raises on "<|endoftext|>" inside user content.
    return len(_encoding().encode_ordinary(text))


def decode_tokens(token_ids: Sequence[int]) -> str:
    """Text of o200k_base token ids (embedding inputs may be sent pre-tokenized)."""
    return str(_encoding().decode(list(token_ids)))


def message_text(content: object) -> str:
    """Plain text of a message `content`: a string, or the text parts of a parts list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        ]
        return "\n".join(texts)
    return ""


def count_message_tokens(message: Mapping[str, Any]) -> int:
    """Tokens one chat message costs: 3 + tokens(role) + tokens(content) [+ tokens(name) + 1]."""
    tokens = TOKENS_PER_MESSAGE
    tokens += count_tokens(str(message.get("role", "")))
    tokens += count_tokens(message_text(message.get("content")))
    name = message.get("name")
    if isinstance(name, str):
        tokens += count_tokens(name) + TOKENS_PER_NAME
    return tokens


def count_prompt_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """Prompt tokens of a chat request, following OpenAI's cookbook formula.

    prompt_tokens = 3 + sum over messages of
        (3 + tokens(role) + tokens(content) + [tokens(name) + 1 if the message has a name])

    where tokens() is the o200k_base count, `content` is the message string or the
    newline-joined text of its `{"type": "text"}` parts, and the leading 3 primes the
    assistant reply. `response_format` schemas and tools are not counted (OpenAI's own
    accounting for those is undocumented).
    """
    return REPLY_PRIMING_TOKENS + sum(count_message_tokens(m) for m in messages)
