"""Queries: layered recall, answers, and browsing by user or by id (always within the key's tenant)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, TypeVar, cast

import strawberry

from api.errors import not_found
from api.schema.decorators import resolver
from api.schema.explorer import (
    ForgetInteractionPreview,
    ForgetUserPreview,
    UserConnection,
    Viewer,
    user_connection,
    user_of,
)
from api.schema.filters import FilterArg, filters_of
from api.schema.nodes import (
    EPISODES,
    FACTS,
    ID,
    INTERACTIONS,
    RUNS,
    Info,
    Node,
    NodeKind,
    load_node,
)
from api.schema.planning import AskedAt
from api.schema.recall import Answer, BudgetInput, MinScore, Recall
from api.schema.records import from_record
from api.schema.user import AsOf, User
from graph.errors import NotFound
from graph.validation import require_name


async def require_user(info: Info, user_id: str) -> User:
    """The user in the caller's tenant; another tenant's users do not exist here."""
    info.context.owner(user_id)  # validates the id
    # Shielded: the loader's future is shared by every field asking for this user, and `checked`
    # cancels this check when its work fails; unshielded, that cancels the shared future and
    # the other fields' awaits with it (a CancelledError no resolver handles).
    found = await asyncio.shield(info.context.loaders.users.load(user_id))
    if found is None:
        raise not_found("user", user_id)
    return user_of(found)


UserId = Annotated[ID, strawberry.argument(description="The user, within the caller's tenant.")]
NodeId = Annotated[ID, strawberry.argument(description="The node's id.")]
N = TypeVar("N")


def _by_id(kind: NodeKind[Any, N], description: str) -> N | None:
    """A field reading one node of a kind by id; NOT_FOUND when it is unknown or another tenant's."""

    # Returns `object` to strawberry, which takes the field's type from `graphql_type` instead
    # (a type variable there would make the field generic).
    async def resolve(info: Info, id: NodeId) -> object:
        require_name("id", id)
        found = await kind.load(info, id)
        if found is None:
            raise not_found(kind.name, id)
        return found

    field = strawberry.field(resolver=resolve, graphql_type=kind.type | None, description=description)
    return cast("N | None", field)  # what the field resolves to, as strawberry's own typing has it


@strawberry.type(description="Reading memory.")
class Query:
    @resolver(description="Memory relevant to a query: facts, episodes and raw interactions.")
    async def recall(
        self,
        info: Info,
        user_id: UserId,
        query: Annotated[str, strawberry.argument(description="What to recall.")],
        budget: Annotated[
            BudgetInput | None, strawberry.argument(description="Hits per layer (default 10 / 5 / 10).")
        ] = None,
        as_of: AsOf = None,
        include_consolidated: Annotated[
            bool | None,
            strawberry.argument(description="Also recall interactions already absorbed by episodes."),
        ] = None,
        lexical: Annotated[
            bool, strawberry.argument(description="Fuse full-text hits with vector hits (ignored as of).")
        ] = True,
        filter: FilterArg = None,
        min_score: MinScore = None,
        asked_at: AskedAt = None,
    ) -> Recall | None:
        asked = budget or BudgetInput()
        budgets = asked.to_budgets()
        owner = info.context.owner(user_id)
        found = await info.context.services.engine.recall(
            owner,
            query,
            budgets=budgets,
            tokens=asked.tokens,
            as_of=as_of,
            include_consolidated=include_consolidated,
            lexical=lexical,
            filters=filters_of(filter),
            min_score=min_score,
            asked_at=asked_at,
        )
        # Every recall statement is scoped to the user, so an unknown user finds nothing: only
        # a recall that found nothing checks the user (NOT_FOUND), and one that found something
        # sends no read for it (on two busy cores, each read sent costs about a millisecond).
        if not found.all_hits():
            await require_user(info, user_id)
        return Recall.of(found)

    @resolver(description="An answer to a question from the user's memory, with its evidence.")
    async def answer(
        self,
        info: Info,
        user_id: UserId,
        question: Annotated[str, strawberry.argument(description="The question.")],
        as_of: AsOf = None,
        budget: Annotated[
            BudgetInput | None,
            strawberry.argument(
                description="Hits per layer; with `tokens`, the answer reads the assembled context only."
            ),
        ] = None,
        filter: FilterArg = None,
        min_score: MinScore = None,
        asked_at: AskedAt = None,
    ) -> Answer | None:
        await require_user(info, user_id)
        asked = budget or BudgetInput()
        owner = info.context.owner(user_id)
        found = await info.context.services.engine.answer(
            owner,
            question,
            as_of=as_of,
            budgets=asked.to_budgets(),
            tokens=asked.tokens,
            filters=filters_of(filter),
            min_score=min_score,
            asked_at=asked_at,
        )
        return Answer.of(found)

    @resolver(description="A user of the caller's tenant.")
    async def user(self, info: Info, id: UserId) -> User | None:
        return await require_user(info, id)

    @resolver(description="The tenant the calling API key belongs to.")
    def viewer(self, info: Info) -> Viewer:
        return Viewer(tenant_id=ID(info.context.tenant))

    @resolver(
        description=(
            "The tenant's users, ordered by id ascending; `search` keeps ids containing it "
            "(case-insensitive)."
        )
    )
    async def users(
        self,
        info: Info,
        first: Annotated[
            int | None, strawberry.argument(description="Users per page, reading forward.")
        ] = 20,
        after: Annotated[
            str | None, strawberry.argument(description="Start after this cursor (a user edge's).")
        ] = None,
        search: Annotated[
            str | None, strawberry.argument(description="Only ids containing this (case-insensitive).")
        ] = None,
    ) -> UserConnection:
        return await user_connection(info, first, after, search)

    @resolver(
        description=(
            "What forgetInteraction(id) would erase and rebuild; changes nothing. "
            "Null when no such interaction."
        )
    )
    async def forget_interaction_preview(
        self, info: Info, id: Annotated[ID, strawberry.argument(description="The interaction.")]
    ) -> ForgetInteractionPreview | None:
        require_name("id", id)
        found = await info.context.loaders.interactions.load(id)
        if found is None:
            return None
        owner = info.context.owner(found.user_id)
        try:
            preview = await info.context.services.forgetter.preview_interaction(owner, id)
        except NotFound:  # forgotten in between
            return None
        return await ForgetInteractionPreview.load(info, preview)

    @resolver(description="What forgetUser(id) would erase; changes nothing. Null when no such user.")
    async def forget_user_preview(self, info: Info, id: UserId) -> ForgetUserPreview | None:
        owner = info.context.owner(id)
        if await info.context.loaders.users.load(id) is None:
            return None
        return from_record(ForgetUserPreview, await info.context.services.forgetter.preview_user(owner))

    fact = _by_id(FACTS, description="A fact by id, with its provenance and history.")
    episode = _by_id(EPISODES, description="An episode version by id, with its other versions.")
    interaction = _by_id(INTERACTIONS, description="An interaction by id, with what memory derived from it.")
    consolidation_run = _by_id(RUNS, description="A consolidation run by id.")

    @resolver(description="Any memory node by its globally unique id (Relay).")
    async def node(self, info: Info, id: NodeId) -> Node | None:
        require_name("id", id)
        found = await load_node(info, id)
        if found is None:
            raise not_found("node", id)
        return found


__all__ = ["Query", "require_user"]
