"""The JSON a client sends (a POST body, GET `variables`/`extensions`, a websocket message),
decoded once at the entry point, and the check for text that is not valid Unicode.

Whatever the bytes, decoding either returns a JSON object or raises `BadJson` with a message
safe to show: invalid UTF-8, malformed JSON, a top-level value that is not an object, or nesting
deeper than any GraphQL request needs (which would otherwise exhaust the recursion limit).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from starlette.datastructures import QueryParams

# A request nests body -> variables -> input object -> list -> object -> ...: a dozen levels
# covers every argument of the schema; real clients never come near this bound.
MAX_DEPTH = 32
# JSON's "\ud800" escapes decode to lone UTF-16 surrogates: Python strings can hold them, but
# they are not Unicode scalar values, so nothing can encode them as UTF-8 (Neo4j, embedders).
_SURROGATE = re.compile("[\ud800-\udfff]")
_KINDS = {str: "a string", int: "a number", float: "a number", bool: "a boolean", list: "an array"}


class BadJson(json.JSONDecodeError):
    """The request's JSON is unusable. A JSONDecodeError, so that strawberry's websocket adapter
    treats it as the non-JSON message it is (close code 4400)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, "", 0)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


def decode(data: str | bytes) -> dict[str, object]:
    """The JSON object in `data` (UTF-8 when bytes; a UTF-8 BOM is tolerated)."""
    text = _text(data)
    try:
        value = json.loads(text)
    except RecursionError:
        raise BadJson(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as error:
        raise BadJson(f"malformed JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    if not isinstance(value, dict):
        kind = "null" if value is None else _KINDS.get(type(value), type(value).__name__)
        raise BadJson(f"expected a JSON object, got {kind}")
    if _depth_exceeds(value, MAX_DEPTH):
        raise BadJson(f"JSON nested deeper than {MAX_DEPTH} levels")
    return value


def _text(data: str | bytes) -> str:
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BadJson(f"the body is not valid UTF-8 (byte {error.start})") from None


def _depth_exceeds(value: object, limit: int) -> bool:
    """Iterative, so that checking a deep value cannot itself overflow the stack."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def lone_surrogate(value: object, path: str) -> str | None:
    """Where in `value` (a decoded JSON value, keys included) a string holds a lone surrogate, as
    a path like `$u.text` or `$units[3].sourceRef`; None when every string is valid Unicode."""
    for where, text in _strings(value, path):
        if _SURROGATE.search(text):
            return where
    return None


def _strings(value: object, path: str) -> Iterator[tuple[str, str]]:
    stack: list[tuple[object, str]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            yield where, node
        elif isinstance(node, dict):
            for key, child in node.items():
                yield where, str(key)
                stack.append((child, f"{where}.{key}"))
        elif isinstance(node, list):
            stack.extend((child, f"{where}[{index}]") for index, child in enumerate(node))


def repeated_parameter(params: QueryParams, names: Iterable[str]) -> str | None:
    """Why a query string is ambiguous, or None: one of the parameters a route reads given more
    than once (`?user=a&user=b`), which no value of it may silently win."""
    for name in names:
        count = len(params.getlist(name))
        if count > 1:
            return f"the query parameter `{name}` is given {count} times: give it once"
    return None
