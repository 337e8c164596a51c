"""What a browser explorer needs beyond the memory graph itself: who is calling, the tenant's
users as a connection, and what a forget would do before it is confirmed."""

from __future__ import annotations

import asyncio

import strawberry

from api.errors import bad_input
from api.schema.connections import Connection, connection, page_request
from api.schema.decorators import resolver
from api.schema.nodes import ID, Episode, Fact, Info, Interaction
from api.schema.user import User
from consolidation.forgetting.forgetter import ForgetPreview
from graph.errors import InvalidInput
from graph.models import User as UserRecord
from graph.validation import utf8_size
from graph.vocabulary import MAX_ID_CHARS


@strawberry.type(description="The caller: the tenant its API key belongs to.")
class Viewer:
    tenant_id: ID = strawberry.field(description="The tenant id.")

    @resolver(description="The tenant's display name, if one was set.")
    async def tenant_name(self, info: Info) -> str | None:
        return await info.context.services.audit.tenant_name(info.context.tenant)


@strawberry.type(description="A page of the tenant's users, ordered by id.")
class UserConnection(Connection[User]):
    search: strawberry.Private[str | None]

    @resolver(description="How many of the tenant's users match the search (all pages).")
    async def total_count(self, info: Info) -> int:
        return await info.context.services.audit.user_count(info.context.tenant, search=self.search)


def user_of(u: UserRecord) -> User:
    return User(id=ID(u.id), created_at=u.created_at)


def _search(search: str | None) -> str | None:
    """The search string, bounded like an id (it is matched against ids)."""
    if search is None:
        return None
    try:
        utf8_size("search", search)
    except InvalidInput as error:
        raise bad_input(str(error)) from None
    if len(search) > MAX_ID_CHARS:
        raise bad_input(f"search is longer than {MAX_ID_CHARS} characters")
    return search


async def user_connection(
    info: Info, first: int | None, after: str | None, search: str | None
) -> UserConnection:
    request = page_request(first=first, after=after, max_size=info.context.services.settings.max_page_size)
    search = _search(search)
    page = await info.context.services.audit.user_page(info.context.tenant, request, search=search)
    base = connection(page, request, user_of)
    return UserConnection(edges=base.edges, page_info=base.page_info, search=search)


@strawberry.type(description="What forgetting an interaction would erase, rebuild and restore.")
class ForgetInteractionPreview:
    interactions: list[Interaction] = strawberry.field(description="Interactions that would be erased.")
    episodes: list[Episode] = strawberry.field(
        description="Episode versions that would be erased (they rest only on it)."
    )
    facts: list[Fact] = strawberry.field(description="Facts that would be erased (only it states them).")
    rebuilt_episodes: list[Episode] = strawberry.field(
        description="Surviving episode versions whose summary would be rebuilt from their other interactions."
    )
    rebuilt_facts: list[Fact] = strawberry.field(
        description=(
            "Surviving facts that would be restated from their other interactions (erased instead "
            "if those no longer state them)."
        )
    )
    restored_facts: list[Fact] = strawberry.field(
        description=(
            "Facts that would be current again: erased facts had superseded them and no surviving "
            "fact replaced those."
        )
    )

    @staticmethod
    async def load(info: Info, p: ForgetPreview) -> ForgetInteractionPreview:
        """The previewed ids as nodes, fetched in one batch per kind."""
        loaders = info.context.loaders
        interactions, episodes, facts = await asyncio.gather(
            loaders.interactions.load_many(p.interaction_ids),
            loaders.episodes.load_many(p.episode_ids + p.rebuilt_episode_ids),
            loaders.facts.load_many(p.fact_ids + p.rebuilt_fact_ids + p.restored_fact_ids),
        )
        by_episode = {e.id: Episode.of(e) for e in episodes if e is not None}
        by_fact = {f.id: Fact.of(f) for f in facts if f is not None}
        return ForgetInteractionPreview(
            interactions=[Interaction.of(i) for i in interactions if i is not None],
            episodes=[by_episode[i] for i in p.episode_ids if i in by_episode],
            facts=[by_fact[i] for i in p.fact_ids if i in by_fact],
            rebuilt_episodes=[by_episode[i] for i in p.rebuilt_episode_ids if i in by_episode],
            rebuilt_facts=[by_fact[i] for i in p.rebuilt_fact_ids if i in by_fact],
            restored_facts=[by_fact[i] for i in p.restored_fact_ids if i in by_fact],
        )


@strawberry.type(description="What forgetting a user would erase (everything), counted.")
class ForgetUserPreview:
    user_id: ID = strawberry.field(description="The user.")
    interactions: int = strawberry.field(description="Interactions that would be erased.")
    episodes: int = strawberry.field(description="Episode versions that would be erased.")
    facts: int = strawberry.field(description="Facts that would be erased.")
    runs: int = strawberry.field(description="Consolidation runs that would be erased.")
