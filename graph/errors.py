"""Typed errors raised by the storage layer. Callers map them to API error codes."""

from __future__ import annotations


class GraphError(Exception):
    """Base class for every error the graph layer raises on purpose."""


class InvalidInput(GraphError, ValueError):
    """A value failed validation before anything was written."""


class NotFound(GraphError, LookupError):
    """An id does not exist for this tenant and user (another tenant's ids look the same)."""


class SchemaMismatch(GraphError):
    """The database was built for another embedder or dimension."""


class StoreUnavailable(GraphError):
    """Neo4j cannot be reached or answered with a transient failure after retries.

    Raised by a write, it means the write did not commit (the transaction was rolled back or
    never reached COMMIT), except for its subclass WriteOutcomeUnknown."""


class WriteOutcomeUnknown(StoreUnavailable):
    """The connection broke while COMMIT was in flight (the driver's IncompleteCommit): the
    transaction may or may not have committed. Never retried here: only an idempotent write
    (one keyed by source_ref) is safe to send again."""


class LocalServerError(GraphError):
    """The project's local Neo4j server could not be fetched, started or stopped."""


class LeaseLost(GraphError):
    """This process no longer holds the user's consolidation lease; its work must not be committed."""
