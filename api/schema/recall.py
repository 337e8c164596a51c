"""Layered recall and answers: the three layers with scores and the interactions behind each hit."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated, Protocol

import strawberry

from api.errors import bad_input
from api.schema.decorators import resolver
from api.schema.nodes import ID, Episode, Fact, Info, Interaction, Node, load_nodes
from api.schema.planning import RecallPlan
from consolidation import types as engine_types
from graph import models
from graph.vocabulary import MAX_BUDGET, MAX_CONTEXT_TOKENS

MinScore = Annotated[
    float | None,
    strawberry.argument(
        description="Leave out hits and context items whose `rankScore` is below this (at least 0; "
        "rank scores are reciprocal-rank fusion, at most 2/61 = 0.0328)."
    ),
]


@strawberry.input(
    description=(
        "How many hits each layer may contribute (RecMem's defaults: 10 / 5 / 10), and optionally a "
        "token budget for one assembled context across the three layers."
    )
)
class BudgetInput:
    subconscious: int = strawberry.field(default=10, description="Raw interactions (0 to 100).")
    episodic: int = strawberry.field(default=5, description="Episodes (0 to 100).")
    semantic: int = strawberry.field(default=10, description="Facts (0 to 100).")
    tokens: int | None = strawberry.field(
        default=None,
        description=(
            "Fill `context` with the best evidence of all three layers within this many o200k tokens "
            "(1 to 200000); without it `context` is null."
        ),
    )

    def to_budgets(self) -> engine_types.Budgets:
        for name in ("subconscious", "episodic", "semantic"):
            if not 0 <= getattr(self, name) <= MAX_BUDGET:
                raise bad_input(f"budget.{name} must be between 0 and {MAX_BUDGET}")
        if self.tokens is not None and not 1 <= self.tokens <= MAX_CONTEXT_TOKENS:
            raise bad_input(f"budget.tokens must be between 1 and {MAX_CONTEXT_TOKENS}")
        return engine_types.Budgets(self.subconscious, self.episodic, self.semantic)


class _Sourced(Protocol):
    source_ids: list[ID]


async def _sources(root: _Sourced, info: Info) -> list[Interaction]:
    """The resolver of every `sources` field: the interactions its object's source_ids name."""
    return [node for node in await load_nodes(info, list(root.source_ids)) if isinstance(node, Interaction)]


@strawberry.type(description="A raw interaction recalled by similarity.")
class InteractionHit:
    score: float = strawberry.field(description="Cosine similarity to the query (0 if found lexically only).")
    rank_score: float = strawberry.field(
        description="What this layer's hits are ranked by, highest first: reciprocal-rank fusion of the "
        "similarity and lexical rankings."
    )
    interaction: Interaction = strawberry.field(description="The interaction.")


@strawberry.type(description="An episode recalled by similarity, with the interactions it rests on.")
class EpisodeHit:
    score: float = strawberry.field(description="Cosine similarity to the query (0 if found lexically only).")
    rank_score: float = strawberry.field(
        description="What this layer's hits are ranked by, highest first: reciprocal-rank fusion of the "
        "similarity and lexical rankings."
    )
    episode: Episode = strawberry.field(description="The episode version.")
    source_ids: list[ID] = strawberry.field(description="Ids of its source interactions.")
    sources = strawberry.field(resolver=_sources, description="Its source interactions (provenance).")


@strawberry.type(description="A fact recalled by similarity, with the interactions that state it.")
class FactHit:
    score: float = strawberry.field(description="Cosine similarity to the query (0 if found lexically only).")
    rank_score: float = strawberry.field(
        description="What this layer's hits are ranked by, highest first: reciprocal-rank fusion of the "
        "similarity and lexical rankings."
    )
    fact: Fact = strawberry.field(description="The fact.")
    source_ids: list[ID] = strawberry.field(description="Ids of the interactions that state it.")
    sources = strawberry.field(resolver=_sources, description="The interactions that state it (provenance).")


@strawberry.enum(description="The memory layer a piece of evidence comes from.")
class Layer(Enum):
    SUBCONSCIOUS = "subconscious"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"


@strawberry.type(description="One line of an assembled context, with where it came from.")
class ContextItem:
    layer: Layer = strawberry.field(description="The layer it comes from.")
    id: ID = strawberry.field(description="Id of the interaction, episode version or fact.")
    line: str = strawberry.field(description="The line as it stands in the context text.")
    tokens: int = strawberry.field(description="o200k tokens the line costs, with its newline.")
    score: float = strawberry.field(description="Cosine similarity to the query (0 if found lexically only).")
    rank_score: float = strawberry.field(description="Its score in the fused ranking across layers.")
    source_ids: list[ID] = strawberry.field(description="Interactions it rests on (itself, for a turn).")
    sources = strawberry.field(resolver=_sources, description="The interactions it rests on (provenance).")


@strawberry.type(description="Evidence from all three layers within a token budget, ready for a prompt.")
class RecallContext:
    text: str = strawberry.field(description="Facts, then episodes, then turns, each group in time order.")
    tokens: int = strawberry.field(description="o200k tokens of `text` (at most the budget).")
    budget: int = strawberry.field(description="The token budget asked for.")
    items: list[ContextItem] = strawberry.field(description="Its lines in the order of `text`.")
    nothing_relevant: bool = strawberry.field(
        description="No candidate reached the relevance floor (docs/design/context-assembly.md): with "
        "RECMEM_CONTEXT_RELEVANCE on the context is then empty; off, it is filled all the same."
    )

    @staticmethod
    def of(c: engine_types.Context) -> RecallContext:
        return RecallContext(
            text=c.text,
            tokens=c.tokens,
            budget=c.budget,
            nothing_relevant=c.nothing_relevant,
            items=[
                ContextItem(
                    layer=Layer(i.hit.layer),
                    id=ID(i.hit.id),
                    line=i.line,
                    tokens=i.tokens,
                    score=i.hit.score,
                    rank_score=i.rank_score,
                    source_ids=[ID(s) for s in i.hit.interaction_ids],
                )
                for i in c.items
            ],
        )


@strawberry.type(description="Memory relevant to a query, layer by layer.")
class Recall:
    query: str = strawberry.field(description="The query as asked.")
    as_of: datetime | None = strawberry.field(description="The time memory was read as of, if any.")
    subconscious: list[InteractionHit] = strawberry.field(description="Raw interactions.")
    episodic: list[EpisodeHit] = strawberry.field(description="Episode versions.")
    semantic: list[FactHit] = strawberry.field(description="Facts.")
    context: RecallContext | None = strawberry.field(
        description="With `budget.tokens`: one context across the layers, no interaction twice."
    )
    plan: RecallPlan | None = strawberry.field(
        description="What the planner read from the query (null with RECMEM_PLANNER=off)."
    )
    withdrawn: list[Fact] = strawberry.field(
        description="Beliefs a person withdrew that rest on this recall's episodes and interactions (the "
        "context's, with `budget.tokens`), which they may still say: the user's facts retracted or "
        "replaced by a correction (at or before `asOf`, if given), at most 10, most recently withdrawn "
        "first. `status`, `validTo` and `supersededBy` tell what happened (docs/corrections.md)."
    )

    @staticmethod
    def of(r: engine_types.Recall) -> Recall:
        return Recall(
            query=r.query,
            as_of=r.as_of,
            plan=RecallPlan.of(r.plan),
            withdrawn=[Fact.of(f) for f in r.withdrawn],
            context=RecallContext.of(r.context) if r.context is not None else None,
            subconscious=[
                InteractionHit(score=h.score, rank_score=h.rank_score, interaction=Interaction.of(h.item))
                for h in r.subconscious
                if isinstance(h.item, models.Interaction)
            ],
            episodic=[
                EpisodeHit(
                    score=h.score,
                    rank_score=h.rank_score,
                    episode=Episode.of(h.item),
                    source_ids=[ID(i) for i in h.interaction_ids],
                )
                for h in r.episodic
                if isinstance(h.item, models.Episode)
            ],
            semantic=[
                FactHit(
                    score=h.score,
                    rank_score=h.rank_score,
                    fact=Fact.of(h.item),
                    source_ids=[ID(i) for i in h.interaction_ids],
                )
                for h in r.semantic
                if isinstance(h.item, models.Fact)
            ],
        )


@strawberry.type(description="An answer from memory, with the evidence it used.")
class Answer:
    text: str = strawberry.field(description="The answer.")
    used_ids: list[ID] = strawberry.field(description="Ids of the memory items the answer rests on.")
    recall: Recall = strawberry.field(description="Everything that was recalled for the question.")
    run_id: ID | None = strawberry.field(description="The ConsolidationRun recording this answer's cost.")
    prompt_tokens: int = strawberry.field(description="Prompt tokens spent.")
    completion_tokens: int = strawberry.field(description="Completion tokens spent.")

    @resolver(description="The memory items the answer rests on.")
    async def used(self, info: Info) -> list[Node]:
        return await load_nodes(info, list(self.used_ids))

    @staticmethod
    def of(a: engine_types.Answer) -> Answer:
        return Answer(
            text=a.text,
            used_ids=[ID(i) for i in a.used_ids],
            recall=Recall.of(a.recall),
            run_id=ID(a.run_id) if a.run_id else None,
            prompt_tokens=a.prompt_tokens,
            completion_tokens=a.completion_tokens,
        )
