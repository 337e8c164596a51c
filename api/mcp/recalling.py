"""The reading tools: `recall` (context within a token budget) and `answer` (memory's own answer)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context as ToolContext
from pydantic import Field

from api.mcp.arguments import Moment, Tokens, UserId, require_user
from api.mcp.caller import context_of
from api.mcp.filters import FilterArgument, filters_of
from api.mcp.rendering import answered, recalled
from api.mcp.results import Answered, Recalled
from graph.vocabulary import MAX_CONTEXT_TOKENS

AsOf = Annotated[
    Moment | None,
    Field(
        description="Read memory as it stood at this time, ISO 8601 with a timezone (default: as it "
        "stands now): the facts in force then, the episode versions current then."
    ),
]


async def recall(
    ctx: ToolContext,
    user_id: UserId,
    query: Annotated[str, Field(description="What to look for, in plain words (a question works).")],
    tokens: Tokens = 1000,
    layers: Annotated[
        bool, Field(description="Also return the best hits of each layer separately (larger result).")
    ] = False,
    filter: FilterArgument = None,
    min_score: Annotated[
        float | None,
        Field(ge=0, description="Leave out items ranked below this fused rank score (at most 2/61)."),
    ] = None,
    asked_at: Annotated[
        Moment | None,
        Field(description="When the question is asked (default now): 'last week' resolves against it."),
    ] = None,
    as_of: AsOf = None,
) -> Recalled:
    """Fetch what memory holds about a topic, as one context text within a token budget.

    Use it before answering anything that may depend on what the user said before (preferences,
    plans, facts about them, earlier events). The context has the best facts, episodes and raw turns
    together, each interaction at most once; `items` tells where each line comes from. Set `layers`
    only when you need the per-layer hit lists as well. `withdrawn` lists beliefs a person retracted
    or corrected that the context may still state: do not take them as true."""
    context = context_of(ctx)
    owner = await require_user(context, user_id)
    found = await context.services.engine.recall(
        owner,
        query,
        tokens=tokens,
        as_of=as_of,
        filters=filters_of(filter),
        min_score=min_score,
        asked_at=asked_at,
    )
    return recalled(found, layers)


async def answer(
    ctx: ToolContext,
    user_id: UserId,
    question: Annotated[str, Field(description="The question about the user or your past conversations.")],
    tokens: Annotated[
        int | None,
        Field(
            ge=1,
            le=MAX_CONTEXT_TOKENS,
            description="Answer from an assembled context of this many tokens (default: the per-layer hits).",
        ),
    ] = None,
    filter: FilterArgument = None,
    asked_at: Annotated[
        Moment | None,
        Field(description="When the question is asked (default now): 'last week' resolves against it."),
    ] = None,
    as_of: AsOf = None,
) -> Answered:
    """Answer a question from the user's memory alone, with the evidence used.

    Use it when you want memory's own answer and the items it rests on (ids you can `audit_fact`),
    rather than raw context to reason over yourself (that is `recall`). It costs one LLM call on the
    server, recorded as a run."""
    context = context_of(ctx)
    owner = await require_user(context, user_id)
    found = await context.services.engine.answer(
        owner, question, tokens=tokens, as_of=as_of, filters=filters_of(filter), asked_at=asked_at
    )
    return answered(found)
