"""Schema extensions: every error gets `extensions.code` and the request id; internals are masked."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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
