"""Typed errors raised by the storage layer. Callers map them to API error codes.

No driver exception leaves `graph`: graph/database.py translates each into one of these, so the
layers above know the store's failures without knowing the driver.
"""

from __future__ import annotations


class GraphError(Exception):
    """Base class for every error the graph layer raises on purpose."""


class InvalidInput(GraphError, ValueError):
    """A value failed validation before anything was written."""


class NotFound(GraphError, LookupError):
    """An id does not exist for this tenant and user (another tenant's ids look the same)."""


class SchemaMismatch(GraphError):
    """The database was built for another embedder or dimension."""


class StoreError(GraphError):
    """Neo4j (or the driver talking to it) failed a statement: the base of every translated
    driver error, so a caller can tell a store failure from a bug in one check."""


class StoreUnavailable(StoreError):
    """Neo4j cannot be reached or answered with a transient failure after retries.

    Raised by a write, it means the write did not commit (the transaction was rolled back or
    never reached COMMIT), except for its subclass WriteOutcomeUnknown."""


class StoreBusy(StoreUnavailable):
    """A transient failure (a deadlock, a lock timeout, a leader switch) that outlasted the retry
    window: Neo4j answers, but this statement could not get through. Nothing committed."""


class WriteOutcomeUnknown(StoreUnavailable):
    """A write's transaction may or may not have committed: the connection broke (the driver's
    IncompleteCommit), its bound ran out, or Neo4j failed with a DatabaseError while COMMIT was
    in flight. Never retried here: only an idempotent write (one keyed by source_ref) is
    safe to send again."""


class StoreFailed(StoreUnavailable):
    """Neo4j answered with a DatabaseError (`Neo.DatabaseError.*`): the server itself failed, e.g.
    its disk is full or read-only, and usually answers so until it is restarted. Not retried.
    Raised by a write, nothing of it committed (it came before COMMIT); one that came during
    COMMIT raises WriteOutcomeUnknown instead."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class StoreTimeout(StoreUnavailable):
    """A statement did not complete within its bound (Neo4j frozen, recovering or overloaded):
    abandoned on both sides (the driver's connection is closed, the server's transaction times
    out). Raised by a write, nothing of it committed: one cut short during COMMIT raises
    WriteOutcomeUnknown instead."""


class StoreAuthFailed(StoreError):
    """Neo4j answered but refused the configured credentials: a setting to correct, not an outage."""


class QueryFailed(StoreError):
    """Neo4j refused a statement (a Cypher error, a constraint, a database error). `code` is the
    server's status code (e.g. Neo.ClientError.Statement.SyntaxError), `message` its own words."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(f"{code}: {message}" if code else message)
        self.code = code
        self.message = message


class LocalServerError(GraphError):
    """The project's local Neo4j server could not be fetched, started or stopped."""


class LeaseLost(GraphError):
    """This process no longer holds the user's consolidation lease; its work must not be committed."""
