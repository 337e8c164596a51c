"""Machine-readable error codes, and the mapping from internal exceptions to what a client sees.

Messages of expected errors (bad input, not found) are kept; anything unexpected is replaced by a
generic message carrying the request id, and logged with its traceback under that id.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Literal

from graphql import GraphQLError
from pydantic import ValidationError
from strawberry.exceptions import MissingQueryError
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError

from consolidation.forgetting.forgetter import Busy
from consolidation.providers.llm.types import LLMError
from graph.errors import InvalidInput, LeaseLost, NotFound, StoreUnavailable, WriteOutcomeUnknown

log = logging.getLogger("api.errors")


class ErrorCode(StrEnum):
    BAD_USER_INPUT = "BAD_USER_INPUT"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    NOT_FOUND = "NOT_FOUND"
    RATE_LIMITED = "RATE_LIMITED"
    UNAVAILABLE = "UNAVAILABLE"
    INTERNAL = "INTERNAL"


class ApiError(Exception):
    """An error raised on purpose by the API layer; its message (and `extensions`) is safe to show."""

    def __init__(self, message: str, code: ErrorCode, extensions: Mapping[str, object] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.extensions = dict(extensions or {})


def bad_input(message: str) -> ApiError:
    return ApiError(message, ErrorCode.BAD_USER_INPUT)


def not_found(kind: str, node_id: str) -> ApiError:
    # The same words whether the id never existed or belongs to another tenant.
    return ApiError(f"{kind} {node_id!r} not found", ErrorCode.NOT_FOUND)


# StoreUnavailable covers every connection or transient failure of Neo4j (graph translates them).
UNAVAILABLE_TYPES = (
    StoreUnavailable,
    LeaseLost,
    Busy,
    LLMError,
    TimeoutError,
)
UNAVAILABLE_MESSAGE = "the memory service is temporarily unavailable; retry later"

# `extensions.written` of an UNAVAILABLE remember: nothing of it committed, or perhaps all of it.
Written = Literal[False, "unknown"]


# Mutation fields whose work commits several transactions: a failure may follow a commit.
SEVERAL_COMMITS = frozenset({"consolidate"})


# Codes of a mutation field that refused to run (its input, an id it cannot see): nothing written.
REFUSALS = frozenset({ErrorCode.BAD_USER_INPUT.value, ErrorCode.NOT_FOUND.value})


def refused_write(error: GraphQLError) -> bool:
    """Whether a coded error of a mutation is its field's own refusal: raised by the field itself
    (a path of one key), not by a field of the payload it answered once written."""
    return len(error.path or ()) == 1 and (error.extensions or {}).get("code") in REFUSALS


def outcome_unknown(error: BaseException | None) -> bool:
    """Whether `error`, or an error it was raised from, says a write may have committed."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, WriteOutcomeUnknown):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def written_of(error: BaseException | None, field: object = None) -> Written:
    """`extensions.written` of an UNAVAILABLE answer: "unknown" when the failure came with a
    commit in flight (or after one of several), else False (refused or rolled back)."""
    return "unknown" if outcome_unknown(error) or field in SEVERAL_COMMITS else False


def unavailable_write(error: BaseException, source_refs: Sequence[str]) -> ApiError:
    """The UNAVAILABLE error of a remember that did not complete: whether it may have been
    written, and the sourceRefs to resend it with (a stored one is then answered, not stored
    again), so a client never has to guess."""
    return write_error(written_of(error), source_refs)


def write_error(written: Written, source_refs: Sequence[str]) -> ApiError:
    if written is False:
        message = "the memory store is unavailable and nothing was written; retry with the same sourceRefs"
    else:
        message = (
            "the memory store became unreachable while the write was committing: it may or may not "
            "be stored; retry with the same sourceRefs (one already stored is not stored twice)"
        )
    return ApiError(message, ErrorCode.UNAVAILABLE, {"written": written, "sourceRefs": list(source_refs)})


def classify(error: GraphQLError) -> tuple[ErrorCode, str | None]:
    """The code for an error and the message to show (None keeps the error's own message)."""
    original = error.original_error
    if isinstance(original, ApiError):
        return original.code, None
    if isinstance(original, NotFound):
        return ErrorCode.NOT_FOUND, None
    if isinstance(original, InvalidInput):
        return ErrorCode.BAD_USER_INPUT, None
    if isinstance(original, ValidationError):
        return ErrorCode.BAD_USER_INPUT, describe_validation(original)
    if isinstance(original, UNAVAILABLE_TYPES):
        if isinstance(original, Busy):
            return ErrorCode.UNAVAILABLE, str(original)
        return ErrorCode.UNAVAILABLE, UNAVAILABLE_MESSAGE
    # strawberry's own request errors (a document with no operation to run, an operation type
    # the transport does not serve) reach here on the websocket, where nothing answers them first.
    request_errors = (
        GraphQLError,
        ValueError,
        TypeError,
        CannotGetOperationTypeError,
        InvalidOperationTypeError,
        MissingQueryError,
    )
    request_phase = original is None or isinstance(original, request_errors)
    if error.path is None and request_phase:
        # Syntax, validation, limits and variable coercion: the document itself is at fault.
        return ErrorCode.BAD_USER_INPUT, None
    return ErrorCode.INTERNAL, None


def describe_validation(error: ValidationError, label: str = "{field}") -> str:
    """Pydantic's complaints without the offending values (they may be long user texts); `label`
    names a field ("units[3].{field}" for a batch's fourth unit)."""
    parts = [
        f"{label.format(field='.'.join(str(p) for p in e['loc']) or 'input')}: {e['msg']}"
        for e in error.errors()
    ]
    return "invalid input: " + "; ".join(parts)


# A value quoted in a message (the caller's own words, as repr quotes them), or a snake_case word.
_QUOTED_OR_SNAKE = re.compile(
    r"""(?<!\w)'(?:[^'\\]|\\.)*'(?!\w)|(?<!\w)"(?:[^"\\]|\\.)*"(?!\w)|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"""
)


def as_written(message: str, names: Mapping[str, str]) -> str:
    """`message` naming each field as `names` spells it for the caller (`valid_from` ->
    `validFrom`); quoted values are the caller's own and stay as they are."""
    return _QUOTED_OR_SNAKE.sub(lambda m: names.get(m.group(), m.group()), message)


def recode(error: GraphQLError, request_id: str, names: Mapping[str, str] | None = None) -> GraphQLError:
    """A copy of `error` with `extensions.code` and `extensions.requestId`; internals masked. A
    refusal names fields as `names` spells them (docs/api/errors.md#field-names)."""
    code, message = classify(error)
    original = error.original_error
    if code is ErrorCode.BAD_USER_INPUT and names:
        message = as_written(message if message is not None else error.message, names)
    if code is ErrorCode.INTERNAL:
        log.error(
            "internal error in request %s: %s",
            request_id,
            error.message,
            exc_info=error.original_error or error,
        )
        message = f"internal error (request id {request_id})"
    elif code is ErrorCode.UNAVAILABLE:
        log.warning(
            "request %s: unavailable: %r", request_id, getattr(original, "__cause__", None) or original
        )
    extensions = {
        **(error.extensions or {}),
        **(original.extensions if isinstance(original, ApiError) else {}),
        "code": code.value,
        "requestId": request_id,
    }
    if code is ErrorCode.UNAVAILABLE and "written" not in extensions:
        # Every UNAVAILABLE answer says whether anything of it may have been written.
        extensions["written"] = written_of(original, error.path[0] if error.path else None)
    return GraphQLError(
        message if message is not None else error.message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=None,
        extensions=extensions,
    )
