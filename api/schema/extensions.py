"""Schema extensions: every error gets `extensions.code` and the request id; internals are masked."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import strawberry
from graphql import (
    GraphQLError,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    ValidationRule,
)
from strawberry.extensions import SchemaExtension, query_depth_limiter
from strawberry.types.execution import ExecutionContext
from strawberry.utils.str_converters import to_snake_case

from api.errors import recode, refused_write
from api.request_body import lone_surrogate
from api.schema.batch_units import named_unit
from api.schema.documents import MAX_EXPANDED_FIELDS, Documents


def _request_id(execution_context: ExecutionContext) -> str:
    return str(getattr(execution_context.context, "request_id", "-"))


def written_names(schema: strawberry.Schema) -> dict[str, str]:
    """The schema's argument and input field names, by the Python names the layers below name
    them by in refusals: `valid_from` -> `validFrom`."""
    names = {}
    for concrete in schema.schema_converter.type_map.values():
        kind = concrete.implementation
        if isinstance(kind, GraphQLInputObjectType):
            written = list(kind.fields)
        elif isinstance(kind, GraphQLObjectType | GraphQLInterfaceType):
            written = [name for field in kind.fields.values() for name in field.args]
        else:
            continue
        names.update({to_snake_case(name): name for name in written if to_snake_case(name) != name})
    return names


class ErrorCodes(SchemaExtension):
    """Runs after the whole operation (parsing and validation included), like MaskErrors. A
    refusal names fields as the caller wrote them (`names`: written_names)."""

    def __init__(self, documents: Documents, names: Mapping[str, str]) -> None:
        super().__init__()
        self.documents = documents
        self.names = names

    def on_operation(self) -> Iterator[None]:
        yield
        context = self.execution_context
        result: Any = context.result
        if result is not None and getattr(result, "errors", None):
            request_id = _request_id(context)
            unit_named = [named_unit(error, context.graphql_document) for error in result.errors]
            result.errors = _recoded(unit_named, request_id, self.names)
            if self.documents.runs_mutation(context.query, context.operation_name):
                # A mutation refused before it ran (validation, a variable's type or value, the
                # Unicode check), or a field of it refused by its resolver (bad input, not found):
                # nothing of it was written (docs/api/errors.md#error-codes).
                for error in result.errors:
                    if result.data is None or refused_write(error):
                        error.extensions.setdefault("written", False)

    def on_validate(self) -> Iterator[None]:
        """strawberry's depth limiter raises KeyError on a spread of an undefined fragment, which
        escapes every extension (an error without a code). Such a document is invalid whatever its
        depth: it is left to graphql-core's KnownFragmentNamesRule, without the depth rule."""
        context = self.execution_context
        document = self.documents.of(context)
        if document is not None and document.too_many_fields:
            # strawberry's depth limiter walks every expansion (and so would overlap validation),
            # blocking the event loop for minutes on a 2 KB document: refused before any rule runs.
            context.validation_rules = (TooManyExpandedFields,)
        elif document is not None and document.unfit_for_depth_rule:
            context.validation_rules = tuple(
                rule for rule in context.validation_rules if rule.__module__ != query_depth_limiter.__name__
            )
        yield

    def on_stream_result(self, result: Any) -> Iterator[None]:
        """Subscription events: the same treatment for each result sent."""
        if getattr(result, "errors", None):
            request_id = _request_id(self.execution_context)
            result.errors = _recoded(result.errors, request_id, self.names)
        yield None


def _recoded(errors: list[GraphQLError], request_id: str, names: Mapping[str, str]) -> list[GraphQLError]:
    """Each error recoded once: over the websocket a query's result passes through both hooks,
    and a second pass would see a coded error without its original, i.e. INTERNAL (and log it)."""
    return [
        error
        if {"code", "requestId"} <= (error.extensions or {}).keys()
        else recode(error, request_id, names)
        for error in errors
    ]


class TooManyExpandedFields(ValidationRule):
    def enter_document(self, *_: object) -> None:
        self.report_error(
            GraphQLError(
                f"the document selects more than {MAX_EXPANDED_FIELDS} fields once its fragments are expanded"
            )
        )


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


class DocumentCache(SchemaExtension):
    """Hands strawberry an already parsed document. Unlike strawberry's ParserCache, a syntax
    error is left to strawberry's own parse, which reports it through ErrorCodes as usual."""

    def __init__(self, documents: Documents) -> None:
        super().__init__()
        self.documents = documents

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        if context.query and context.graphql_document is None:
            parsed = self.documents.read(context.query)
            context.graphql_document = None if parsed is None else parsed.node
        yield
