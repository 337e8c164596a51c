"""Schema extensions: every error gets `extensions.code` and the request id; internals are masked."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from graphql import DocumentNode, GraphQLError, parse
from strawberry.extensions import SchemaExtension
from strawberry.types.execution import ExecutionContext

from api.errors import recode


def _request_id(execution_context: ExecutionContext) -> str:
    return str(getattr(execution_context.context, "request_id", "-"))


class ErrorCodes(SchemaExtension):
    """Runs after the whole operation (parsing and validation included), like MaskErrors."""

    def on_operation(self) -> Iterator[None]:
        yield
        result: Any = self.execution_context.result
        if result is not None and getattr(result, "errors", None):
            request_id = _request_id(self.execution_context)
            result.errors = [recode(error, request_id) for error in result.errors]

    def on_stream_result(self, result: Any) -> Iterator[None]:
        """Subscription events: the same treatment for each result sent."""
        if getattr(result, "errors", None):
            request_id = _request_id(self.execution_context)
            result.errors = [recode(error, request_id) for error in result.errors]
        yield None


class FreshLoaders(SchemaExtension):
    """A websocket connection shares one context across operations: each operation starts with
    empty loaders, so it never sees nodes cached by an earlier one."""

    def on_operation(self) -> Iterator[None]:
        fresh = getattr(self.execution_context.context, "fresh_loaders", None)
        if callable(fresh):
            fresh()
        yield


def document_parser(maxsize: int) -> Callable[..., DocumentNode]:
    """One LRU of parsed documents for the schema: parsing costs ~1 ms a request, and clients
    send the same few documents. A document that fails to parse is not cached (lru_cache keeps
    no exceptions)."""
    return lru_cache(maxsize=maxsize)(parse)


class DocumentCache(SchemaExtension):
    """Hands strawberry an already parsed document. Unlike strawberry's ParserCache, a syntax
    error is left to strawberry's own parse, which reports it through ErrorCodes as usual."""

    def __init__(self, parser: Callable[..., DocumentNode]) -> None:
        super().__init__()
        self.parser = parser

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        if context.query and context.graphql_document is None:
            # On a syntax error strawberry parses again and reports it.
            with contextlib.suppress(GraphQLError):
                context.graphql_document = self.parser(context.query, **context.parse_options)
        yield
