"""The GraphQL schema of the memory service, built from settings (limits) and exported as SDL."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter
from strawberry.schema.config import StrawberryConfig
from strawberry.types.execution import ExecutionContext

from api.schema.extensions import ErrorCodes, FreshLoaders
from api.schema.mutation import Mutation
from api.schema.nodes import ConsolidationRun, Episode, Fact, Interaction
from api.schema.query import Query
from api.schema.scalars import DATETIME
from api.schema.subscription import Subscription
from api.settings import ApiSettings


class MemorySchema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Logging happens in ErrorCodes, once, with the request id; strawberry's own would log
        every NOT_FOUND and bad input with a traceback."""


def build_schema(settings: ApiSettings | None = None) -> strawberry.Schema:
    settings = settings or ApiSettings()
    # Factories, not instances: an extension holds its operation's execution context, so each
    # operation needs its own.
    extensions: list[Any] = [
        lambda: QueryDepthLimiter(max_depth=settings.max_query_depth),
        lambda: MaxTokensLimiter(max_token_count=settings.max_tokens),
        lambda: MaxAliasesLimiter(max_alias_count=settings.max_aliases),
        FreshLoaders,
        ErrorCodes,
    ]
    return MemorySchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        # Implementations of Node reached only through the interface must still be in the schema.
        types=[Interaction, Episode, Fact, ConsolidationRun],
        extensions=extensions,
        config=StrawberryConfig(scalar_map={datetime: DATETIME}),
    )


def sdl() -> str:
    """The schema in SDL, as committed in api/schema.graphql."""
    return build_schema().as_str() + "\n"
