"""Schema extensions: every error gets `extensions.code` and the request id; internals are masked."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationRule,
    Visitor,
    parse,
    visit,
)
from strawberry.extensions import SchemaExtension, query_depth_limiter
from strawberry.types.execution import ExecutionContext

from api.errors import recode
from api.request_body import lone_surrogate


def _request_id(execution_context: ExecutionContext) -> str:
    return str(getattr(execution_context.context, "request_id", "-"))


class ErrorCodes(SchemaExtension):
    """Runs after the whole operation (parsing and validation included), like MaskErrors."""

    def on_operation(self) -> Iterator[None]:
        yield
        result: Any = self.execution_context.result
        if result is not None and getattr(result, "errors", None):
            request_id = _request_id(self.execution_context)
            result.errors = _recoded(result.errors, request_id)

    def on_validate(self) -> Iterator[None]:
        """strawberry's depth limiter raises KeyError on a spread of an undefined fragment, which
        escapes every extension (an error without a code). Such a document is invalid whatever its
        depth: it is left to graphql-core's KnownFragmentNamesRule, without the depth rule."""
        context = self.execution_context
        document = context.graphql_document
        if document is not None and _expanded_fields(document) > MAX_EXPANDED_FIELDS:
            # Fragments spread twice per level expand exponentially: strawberry's depth limiter
            # walks every expansion (and so would overlap validation), blocking the event loop
            # for minutes on a 2 KB document. Refused before any other rule runs.
            context.validation_rules = (TooManyExpandedFields,)
        elif document is not None and (
            _spreads_undefined_fragment(document) or _has_empty_selection(document)
        ):
            context.validation_rules = tuple(
                rule for rule in context.validation_rules if rule.__module__ != query_depth_limiter.__name__
            )
        yield

    def on_stream_result(self, result: Any) -> Iterator[None]:
        """Subscription events: the same treatment for each result sent."""
        if getattr(result, "errors", None):
            request_id = _request_id(self.execution_context)
            result.errors = _recoded(result.errors, request_id)
        yield None


def _recoded(errors: list[GraphQLError], request_id: str) -> list[GraphQLError]:
    """Each error recoded once: over the websocket a query's result passes through both hooks,
    and a second pass would see a coded error without its original, i.e. INTERNAL (and log it)."""
    return [
        error if {"code", "requestId"} <= (error.extensions or {}).keys() else recode(error, request_id)
        for error in errors
    ]


# Fields a document may select once its fragments are expanded (the token limit bounds the text,
# not this: `fragment F1 on T { ...F0 ...F0 }` doubles it per line).
MAX_EXPANDED_FIELDS = 10_000


class TooManyExpandedFields(ValidationRule):
    def enter_document(self, *_: object) -> None:
        self.report_error(
            GraphQLError(
                f"the document selects more than {MAX_EXPANDED_FIELDS} fields once its fragments are expanded"
            )
        )


def _expanded_fields(document: DocumentNode) -> int:
    """Fields the operations select with every fragment spread expanded (cycles and unknown
    fragments count nothing: validation reports them); stops counting past the limit."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    memo: dict[str, int] = {}

    def size(selections: SelectionSetNode | None, visiting: frozenset[str]) -> int:
        total = 0
        for selection in selections.selections if selections is not None else ():
            if isinstance(selection, FieldNode):
                total += 1 + size(selection.selection_set, visiting)
            elif isinstance(selection, InlineFragmentNode):
                total += size(selection.selection_set, visiting)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                if name in visiting or name not in fragments:
                    continue
                if name not in memo:
                    memo[name] = size(fragments[name].selection_set, visiting | {name})
                total += memo[name]
            if total > MAX_EXPANDED_FIELDS:
                break
        return total

    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    try:
        return sum(size(operation.selection_set, frozenset()) for operation in operations)
    except RecursionError:
        return MAX_EXPANDED_FIELDS + 1


def _has_empty_selection(document: DocumentNode) -> bool:
    """`{}`: the depth limiter takes max() of nothing (ValueError, uncoded)."""
    empty = False

    class Sets(Visitor):
        def enter_selection_set(self, node: SelectionSetNode, *_: object) -> None:
            nonlocal empty
            empty = empty or not node.selections

    visit(document, Sets())
    return empty


def _spreads_undefined_fragment(document: DocumentNode) -> bool:
    defined = {d.name.value for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    spread: set[str] = set()

    class Spreads(Visitor):
        def enter_fragment_spread(self, node: FragmentSpreadNode, *_: object) -> None:
            spread.add(node.name.value)

    visit(document, Spreads())
    return not spread <= defined


class ValidUnicode(SchemaExtension):
    """Variables may carry lone UTF-16 surrogates (JSON's `"\\ud800"`), which no store or embedder
    can encode: such an operation is refused as bad input before any resolver runs, whatever the
    argument (text, user id, query, cursor...). Literals in the document need no check: the
    GraphQL lexer refuses them. Must come after ValidationCache, which sets the document's own
    validation errors in the same hook."""

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        for name, value in (context.variables or {}).items():
            where = lone_surrogate(value, f"${name}")
            if where is not None:
                error = GraphQLError(
                    f"{where} is not valid Unicode: it holds a lone UTF-16 surrogate (U+D800 to U+DFFF)"
                )
                context.pre_execution_errors = [*(context.pre_execution_errors or []), error]
                break
        yield


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
