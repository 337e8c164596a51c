"""Every store failure maps to a typed answer (docs/failures.md): the driver's errors to graph
errors, those to UNAVAILABLE with `written`, over GraphQL, refusals and MCP alike. No Neo4j:
the driver's own exception classes, built as the driver builds them from a server's answer."""

from __future__ import annotations

from typing import Any, cast

import pytest
from graphql import GraphQLError
from mcp.types import TextContent
from neo4j import AsyncDriver
from neo4j.exceptions import (
    ConnectionAcquisitionTimeoutError,
    IncompleteCommit,
    Neo4jError,
    ServiceUnavailable,
)

from api.errors import ErrorCode, recode, refused_write, unavailable_write
from api.mcp.errors import tool_error
from api.responses import error_body
from graph.database import Database, translate
from graph.errors import (
    QueryFailed,
    StoreBusy,
    StoreError,
    StoreFailed,
    StoreTimeout,
    StoreUnavailable,
    WriteOutcomeUnknown,
)

NEEDS_RESTART = "Neo.DatabaseError.Transaction.TransactionStartFailed"
LOG_FAILED = "Neo.DatabaseError.Transaction.TransactionLogError"
TIMED_OUT = "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"


def server_error(code: str, message: str = "from the server") -> Neo4jError:
    return Neo4jError._hydrate_neo4j(code=code, message=message)


def test_a_database_error_is_unavailable_and_keeps_its_code() -> None:
    error = translate(server_error(NEEDS_RESTART, "needs to be restarted"))
    assert isinstance(error, StoreFailed) and isinstance(error, StoreUnavailable)
    assert error.code == NEEDS_RESTART and "needs to be restarted" in str(error)


@pytest.mark.parametrize(
    "driver_error",
    [ConnectionAcquisitionTimeoutError("failed to obtain a connection"), server_error(TIMED_OUT)],
)
def test_a_pool_or_server_timeout_is_a_store_timeout(driver_error: Exception) -> None:
    assert isinstance(translate(cast(Any, driver_error)), StoreTimeout)


def test_a_refused_statement_is_still_a_query_failure() -> None:
    error = translate(server_error("Neo.ClientError.Statement.SyntaxError"))
    assert isinstance(error, QueryFailed) and not isinstance(error, StoreUnavailable)


@pytest.fixture
def db() -> Database:
    # _failure reads only the bounds; no connection is opened.
    return Database(cast(AsyncDriver, None), statement_timeout_s=4.0)


@pytest.mark.parametrize(
    ("error", "write", "committing", "expected"),
    [
        (server_error(LOG_FAILED), True, True, WriteOutcomeUnknown),
        (server_error(NEEDS_RESTART), True, False, StoreFailed),
        (server_error(NEEDS_RESTART), False, True, StoreFailed),
        (TimeoutError(), True, True, WriteOutcomeUnknown),
        (TimeoutError(), True, False, StoreTimeout),
        (TimeoutError(), False, True, StoreTimeout),
        (IncompleteCommit("lost"), True, True, WriteOutcomeUnknown),
        (ServiceUnavailable("gone"), True, True, WriteOutcomeUnknown),
        (ServiceUnavailable("gone"), True, False, StoreUnavailable),
        # Neo4j answered the COMMIT with a refusal: rolled back, known not written.
        (server_error("Neo.TransientError.Transaction.DeadlockDetected"), True, True, StoreBusy),
    ],
)
def test_a_write_is_unknown_only_when_commit_was_in_flight(
    db: Database, error: Exception, write: bool, committing: bool, expected: type[StoreError]
) -> None:
    failure = db._failure(error, write=write, committing=committing)
    assert type(failure) is expected, failure


def _recoded(original: Exception, path: list[str | int] | None = None) -> dict[str, Any]:
    error = GraphQLError("failed", path=path or ["recall"], original_error=original)
    return dict(recode(error, "req-1").extensions or {})


def test_every_unavailable_graphql_error_says_written() -> None:
    failed = StoreFailed("Neo4j failed (it may need a restart)", NEEDS_RESTART)
    assert _recoded(failed) | {"requestId": "x"} == {
        "code": ErrorCode.UNAVAILABLE.value,
        "requestId": "x",
        "written": False,
    }
    unknown = unavailable_write(WriteOutcomeUnknown("commit in flight"), ["r1"])
    assert _recoded(unknown, ["remember"])["written"] == "unknown"
    assert _recoded(unavailable_write(failed, ["r1"]), ["remember"])["written"] is False
    # A pass of `consolidate` may have committed before another failed.
    assert _recoded(StoreTimeout("no answer"), ["consolidate"])["written"] == "unknown"
    # Not for other codes.
    assert "written" not in _recoded(ValueError("bug"))


def test_a_refusal_says_written_false_unless_told() -> None:
    (refused,) = cast(list[dict[str, Any]], error_body("down", ErrorCode.UNAVAILABLE, "r")["errors"])
    assert refused["extensions"]["written"] is False
    (cut,) = cast(
        list[dict[str, Any]],
        error_body("cut", ErrorCode.UNAVAILABLE, "r", {"written": "unknown"})["errors"],
    )
    assert cut["extensions"]["written"] == "unknown"
    (limited,) = cast(list[dict[str, Any]], error_body("slow", ErrorCode.RATE_LIMITED, "r")["errors"])
    assert "written" not in limited["extensions"]


def test_only_a_mutation_fields_own_refusal_is_unwritten() -> None:
    def coded(code: ErrorCode, path: list[str | int]) -> GraphQLError:
        return GraphQLError("no", path=path, extensions={"code": code.value})

    assert refused_write(coded(ErrorCode.NOT_FOUND, ["forgetUser"]))
    assert refused_write(coded(ErrorCode.BAD_USER_INPUT, ["alias"]))
    # A field of a payload fails after its mutation wrote: the write is not what failed.
    assert not refused_write(coded(ErrorCode.NOT_FOUND, ["remember", "interaction"]))
    assert not refused_write(coded(ErrorCode.INTERNAL, ["remember"]))


def _line(tool: str, error: BaseException) -> str:
    result = tool_error(tool, error, "req-2")
    (block,) = result.content
    assert result.is_error and isinstance(block, TextContent)
    return block.text


def test_an_mcp_tool_error_says_written() -> None:
    assert _line("remember", StoreFailed("sick", NEEDS_RESTART)).endswith("(written: false)")
    assert "(written: unknown;" in _line("remember", WriteOutcomeUnknown("commit in flight"))
    assert "(written: unknown;" in _line("remember", TimeoutError())
    assert _line("recall", TimeoutError()).endswith("(written: false)")
    assert _line("recall", StoreTimeout("no answer")).startswith("UNAVAILABLE: ")
