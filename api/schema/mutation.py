"""Mutations: remember (one or a bounded batch), consolidate, and forgetting on request."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Annotated

import strawberry
from pydantic import ValidationError
from strawberry.scalars import JSON

from api.context import Context
from api.errors import UNAVAILABLE_TYPES, bad_input, describe_validation, not_found, unavailable_write
from api.schema.beliefs import BeliefMutations
from api.schema.decorators import mutation, resolver
from api.schema.events import ConsolidationEvent
from api.schema.nodes import ID, Info, Interaction
from api.schema.query import UserId, require_user
from api.schema.records import from_record
from consolidation.forgetting.forgetter import Forgotten, UserForgotten
from consolidation.types import Remembered, Unit
from consolidation.writing.checks import CheckedBatch, check_batch
from graph import models
from graph.models import Owner
from graph.validation import require_name


@strawberry.input(description="One interaction as an agent sends it.")
class UnitInput:
    text: str = strawberry.field(description="What was said (UTF-8, at most the configured size).")
    speaker: str = strawberry.field(default="user", description="Who said it.")
    occurred_at: datetime | None = strawberry.field(
        default=None, description="When it was said (default: now)."
    )
    session_id: str | None = strawberry.field(default=None, description="The caller's session id.")
    source_ref: str | None = strawberry.field(
        default=None, description="The caller's id for it; resending the same one stores nothing new."
    )
    agent_id: str | None = strawberry.field(default=None, description="The agent recording it.")
    metadata: JSON | None = strawberry.field(
        default=None,
        description=(
            "A small map to filter by later: keys of letters, digits, `_`, `.`, `-` (at most 64 bytes); "
            "values a string, number, boolean or list of strings (at most 512 bytes); at most 32 keys "
            "and 4 KB as JSON (docs/scopes.md#metadata)."
        ),
    )

    def to_unit(self) -> Unit:
        """The engine's validated model of it; `checked` then checks its text and names once."""
        return Unit(
            text=self.text,
            speaker=self.speaker,
            occurred_at=self.occurred_at or datetime.now(UTC),
            session_id=self.session_id,
            source_ref=self.source_ref,
            agent_id=self.agent_id,
            metadata=self.metadata,
        )


@strawberry.input(description="One interaction of one user.")
class RememberInput(UnitInput):
    user_id: ID = strawberry.field(description="The user (created on first use within the tenant).")


@strawberry.type(description="The acknowledgement of a remembered interaction: it is durable.")
class RememberPayload:
    interaction_id: ID = strawberry.field(description="The stored interaction.")
    created: bool = strawberry.field(description="False when the sourceRef was already known.")
    seq: int = strawberry.field(description="Its position in the user's stream.")
    consolidation: ConsolidationEvent | None = strawberry.field(
        description=(
            "When the write waited for consolidation (consolidate: true, or inline mode): what the "
            "pass that covered it did with it, whichever worker or process ran that pass (its trigger "
            "may be another interaction that absorbed it); DEFERRED with the reason when no pass "
            "decided on it within the inline budget. Null when it was left to the background."
        )
    )

    # The interaction as the write stored it (see Remembered.interaction); None: read it back.
    stored: strawberry.Private[models.Interaction | None] = None

    # Nullable: a failed read-back must not null the payload, which reports a durable write.
    @resolver(description="The stored interaction (null if it could not be read back; see errors).")
    async def interaction(self, info: Info) -> Interaction | None:
        if self.stored is not None:
            return Interaction.of(self.stored)
        found = await info.context.loaders.interactions.load(self.interaction_id)
        if found is None:
            raise not_found("interaction", self.interaction_id)
        return Interaction.of(found)

    @staticmethod
    def of(user_id: str, r: Remembered) -> RememberPayload:
        return RememberPayload(
            interaction_id=ID(r.interaction_id),
            created=r.created,
            seq=r.seq,
            consolidation=ConsolidationEvent.of(user_id, r.consolidation) if r.consolidation else None,
            stored=r.interaction,
        )


@strawberry.type(description="What forgetting an interaction removed, rebuilt and restored.")
class ForgetInteractionPayload:
    interaction_ids: list[ID] = strawberry.field(description="Interactions erased.")
    episode_ids: list[ID] = strawberry.field(description="Episode versions erased (they rested only on it).")
    fact_ids: list[ID] = strawberry.field(
        description="Facts erased: those only it stated, and those its other turns no longer state."
    )
    run_ids: list[ID] = strawberry.field(description="Runs erased (everything they produced is gone).")
    rebuilt_episode_ids: list[ID] = strawberry.field(
        description="Surviving episode versions whose summary was rebuilt from their other interactions."
    )
    rebuilt_fact_ids: list[ID] = strawberry.field(
        description="Surviving facts restated from their other interactions."
    )
    restored_fact_ids: list[ID] = strawberry.field(
        description=(
            "Facts current again: erased facts had superseded them and no surviving fact replaced those."
        )
    )
    record_run_id: ID | None = strawberry.field(
        description=(
            "The person's run recording this forget (op forget_interaction, trigger erasure), listed "
            "in the audit of every surviving fact it changed; null when nothing surviving changed."
        )
    )

    @staticmethod
    def of(f: Forgotten) -> ForgetInteractionPayload:
        return from_record(ForgetInteractionPayload, f)


@strawberry.type(description="What forgetting a user removed (everything).")
class ForgetUserPayload:
    user_id: ID = strawberry.field(description="The erased user.")
    interactions: int = strawberry.field(description="Interactions erased.")
    episodes: int = strawberry.field(description="Episode versions erased.")
    facts: int = strawberry.field(description="Facts erased.")
    runs: int = strawberry.field(description="Consolidation runs erased.")

    @staticmethod
    def of(f: UserForgotten) -> ForgetUserPayload:
        return from_record(ForgetUserPayload, f)


Consolidate = Annotated[
    bool | None,
    strawberry.argument(description="Consolidate now (true), never (false), or as configured (null)."),
]


# The sourceRef the service gives a unit sent without one (docs/failures.md#the-shape-of-an-outage):
# every write is then keyed, and an error can name the key to resend it with, so that no retry
# stores it twice.
GENERATED_REF_PREFIX = "recmem:"


# How a refusal names a field of one unit: bare for `remember`'s input, by its index in a batch
# ("units[3].sessionId"; docs/api/errors.md#field-names).
ONE_UNIT = "{field}"
BATCH_UNIT = "units[{index}].{field}"


def checked(context: Context, owner: Owner, units: list[Unit], label: str = ONE_UNIT) -> CheckedBatch:
    """The one check of a remember (consolidation/writing/checks.py), here at the entry point: the engine
    takes the checked batch as it is. A field is named as the client sent it ("text"), through
    `label`."""
    return check_batch(owner, units, context.services.max_text_bytes, label=label)


def _units(context: Context, owner: Owner, units: list[UnitInput], label: str = ONE_UNIT) -> CheckedBatch:
    limit = context.services.settings.max_batch
    if not units:
        raise bad_input("units must not be empty")
    if len(units) > limit:
        raise bad_input(f"a batch holds at most {limit} units; got {len(units)}")
    return checked(context, owner, [_keyed(_unit(u, label, i)) for i, u in enumerate(units)], label)


def _unit(unit: UnitInput, label: str, index: int) -> Unit:
    """The unit's model; a field the model refuses is named through `label`, as the check names it."""
    try:
        return unit.to_unit()
    except ValidationError as error:
        raise bad_input(describe_validation(error, label.format(index=index, field="{field}"))) from None


def _keyed(unit: Unit) -> Unit:
    if unit.source_ref is not None:
        return unit
    return unit.model_copy(update={"source_ref": f"{GENERATED_REF_PREFIX}{uuid.uuid4()}"})


async def _remember(context: Context, batch: CheckedBatch, consolidate: bool | None) -> list[Remembered]:
    """The engine's write, its outcome told apart for the client: done (data), not written or
    perhaps written (UNAVAILABLE with `written` and the sourceRefs to resend)."""
    refs = [u.source_ref for u in batch.units if u.source_ref is not None]
    tracked = context.write_refs if context.write_refs is not None else []
    tracked.extend(refs)  # until known not written: a request timeout names them (api/http.py)
    engine = context.services.engine
    try:
        done = await engine.remember_batch(batch.owner, batch, consolidate=consolidate)
    except Exception as error:
        for ref in refs:
            tracked.remove(ref)
        if isinstance(error, UNAVAILABLE_TYPES):
            raise unavailable_write(error, refs) from error
        raise
    context.committed = True
    return done


def _committed(info: Info) -> None:
    """A mutation field answers data only once its write committed (see Mutation)."""
    info.context.committed = True


@strawberry.type(
    description=(
        "Writing and erasing memory. Every field is nullable and stands on its own, whatever the "
        "other fields of the document did: one that answers data has committed its write; one "
        "that answers null failed (its error carries the field's path) and is safe to retry."
    )
)
class Mutation(BeliefMutations):
    @mutation(description="Store one interaction durably, then consolidate as configured.")
    async def remember(
        self, info: Info, input: RememberInput, consolidate: Consolidate = None
    ) -> RememberPayload | None:
        owner = info.context.owner(input.user_id)
        (done,) = await _remember(info.context, _units(info.context, owner, [input]), consolidate)
        return RememberPayload.of(owner.user_id, done)

    @mutation(description="Store a bounded batch of interactions of one user in one transaction.")
    async def remember_batch(
        self, info: Info, user_id: UserId, units: list[UnitInput], consolidate: Consolidate = None
    ) -> list[RememberPayload] | None:
        owner = info.context.owner(user_id)
        done = await _remember(info.context, _units(info.context, owner, units, BATCH_UNIT), consolidate)
        return [RememberPayload.of(owner.user_id, r) for r in done]

    @mutation(description="Consolidate the user's pending interactions now.")
    async def consolidate(self, info: Info, user_id: UserId) -> list[ConsolidationEvent] | None:
        await require_user(info, user_id)
        owner = info.context.owner(user_id)
        # Explicit: turns waiting for their episode's batch merge are merged too.
        outcomes = await info.context.services.engine.consolidate(owner, wait=True, flush=True)
        _committed(info)
        return [ConsolidationEvent.of(user_id, o) for o in outcomes]

    @mutation(description="Erase an interaction and everything derived only from it; rebuild what survives.")
    async def forget_interaction(
        self, info: Info, id: Annotated[ID, strawberry.argument(description="The interaction.")]
    ) -> ForgetInteractionPayload | None:
        require_name("id", id)
        found = await info.context.loaders.interactions.load(id)
        if found is None:
            raise not_found("interaction", id)
        forgotten = await info.context.services.forgetter.forget_interaction(
            info.context.owner(found.user_id), id, by=info.context.who
        )
        _committed(info)
        info.context.fresh_loaders()
        return ForgetInteractionPayload.of(forgotten)

    @mutation(description="Erase a user entirely: interactions, episodes, facts and runs.")
    async def forget_user(self, info: Info, id: UserId) -> ForgetUserPayload | None:
        await require_user(info, id)
        forgotten = await info.context.services.forgetter.forget_user(info.context.owner(id))
        _committed(info)
        info.context.fresh_loaders()
        return ForgetUserPayload.of(forgotten)
