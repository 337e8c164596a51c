"""The GraphQL schema of the memory service, built from settings (limits) and exported as SDL."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from graphql import ASTValidationRule, GraphQLError
from strawberry.extensions import AddValidationRules, MaxTokensLimiter, ValidationCache
from strawberry.extensions.max_aliases import create_validator as max_aliases_rule
from strawberry.extensions.query_depth_limiter import create_validator as query_depth_rule
from strawberry.schema.config import StrawberryConfig
from strawberry.types.execution import ExecutionContext

from api.schema.documents import Documents
from api.schema.extensions import DocumentCache, ErrorCodes, FreshLoaders, ValidUnicode, written_names
from api.schema.mutation import Mutation
from api.schema.nodes import ConsolidationRun, Episode, Fact, Interaction
from api.schema.query import Query
from api.schema.scalars import DATETIME
from api.schema.subscription import Subscription
from api.settings import ApiSettings

# Distinct documents whose parse and validation results are kept (LRU).
DOCUMENT_CACHE = 256


class MemorySchema(strawberry.Schema):
    # Set by build_schema: the parsed documents its extensions and the HTTP endpoint share.
    documents: Documents

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Logging happens in ErrorCodes, once, with the request id; strawberry's own would log
        every NOT_FOUND and bad input with a traceback."""


def build_schema(settings: ApiSettings | None = None) -> MemorySchema:
    settings = settings or ApiSettings()
    # The limiters' validation rules are built once: the validation cache is keyed by the rule
    # classes, and a limiter built per operation would make a new class (and a miss) every time.
    rules: list[type[ASTValidationRule]] = [
        query_depth_rule(settings.max_query_depth, None),
        max_aliases_rule(settings.max_aliases),
    ]
    documents = Documents(DOCUMENT_CACHE, settings.max_tokens)
    # The fields' names as callers write them, for refusals: filled once the schema is built.
    names: dict[str, str] = {}
    # Factories, not instances: an extension holds its operation's execution context, so each
    # operation needs its own.
    extensions: list[Any] = [
        lambda: AddValidationRules(rules),
        lambda: MaxTokensLimiter(max_token_count=settings.max_tokens),
        FreshLoaders,
        lambda: ErrorCodes(documents, names),
        # Clients send the same few documents over and over: parse and validate each once
        # (docs/benchmarks/service.md#what-was-cut-and-what-each-costs).
        lambda: DocumentCache(documents),
        lambda: ValidationCache(maxsize=DOCUMENT_CACHE),
        # After ValidationCache: both set the operation's pre-execution errors when validating.
        ValidUnicode,
    ]
    schema = MemorySchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        # Implementations of Node reached only through the interface must still be in the schema.
        types=[Interaction, Episode, Fact, ConsolidationRun],
        extensions=extensions,
        config=StrawberryConfig(scalar_map={datetime: DATETIME}),
    )
    schema.documents = documents
    names.update(written_names(schema))
    return schema


def sdl() -> str:
    """The schema in SDL, as committed in api/schema.graphql."""
    return build_schema().as_str() + "\n"
