"""Changes a person makes to a user's beliefs: correct a fact, retract it, add one by hand.

Each change is one transaction under the user's consolidation lease, with the run that records
who made it and why (docs/corrections.md). It checks everything it relies on first and raises,
writing nothing, on an unknown or foreign id (NotFound) or a fact that no longer holds
(FactNotActive).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, Literal

from neo4j import AsyncManagedTransaction

from graph.commit_steps import check_run_links, record_runs, require_lease
from graph.database import Database, run
from graph.errors import InvalidInput, NotFound
from graph.lexical import length
from graph.models import ConsolidationRun, Fact, Owner, RunWrite
from graph.records import decoder, fact_from, instant
from graph.validation import require_aware, require_text, require_vector
from graph.vocabulary import FACT_KINDS, MAX_FACT_BYTES, MAX_REASON_BYTES, FactStatus

Action = Literal["correct", "retract", "add"]


class FactNotActive(InvalidInput):
    """The fact was retracted or superseded already: only a fact that holds can be changed."""

    def __init__(self, fact_id: str, status: str) -> None:
        super().__init__(f"fact {fact_id!r} is {status}; only an active fact can be corrected or retracted")
        self.status = status


@dataclass(frozen=True)
class StatedFact:
    """The fact a correction or an addition writes."""

    id: str
    text: str
    kind: str
    embedding: list[float]
    # None: from the moment of the change (a correction always starts then).
    valid_from: datetime | None = None
    # Its own scope tokens (graph/scopes.py): those given to a fact added by hand; a correction
    # takes what it replaces and rests on instead (supersede.cypher, derive.cypher).
    scopes: tuple[str, ...] = ()


@dataclass(frozen=True)
class BeliefWrite:
    """One change and its run; `target_id` is the fact corrected or retracted."""

    action: Action
    run: RunWrite
    at: datetime
    lease_holder: str
    reason: str | None = None
    target_id: str | None = None
    fact: StatedFact | None = None
    source_interaction_id: str | None = None


@dataclass(frozen=True)
class BeliefChange:
    """What the change wrote: the fact it made (correct, add) and the fact it closed (correct,
    retract), as they stand after it."""

    run: ConsolidationRun
    fact: Fact | None
    changed: Fact | None


@dataclass(frozen=True)
class RetractedFact:
    """A retracted fact as refinement is shown it: what it said and the turns it rested on."""

    id: str
    text: str
    kind: str
    source_ids: list[str]


class BeliefStore:
    def __init__(self, db: Database, dimension: int) -> None:
        self.db = db
        self.dimension = dimension

    async def retracted_among(
        self, owner: Owner, interaction_ids: list[str], episode_id: str | None, limit: int
    ) -> list[RetractedFact]:
        """The user's retracted facts resting on any of these turns or on the episode version's."""
        rows = await self.db.read(
            "queries/beliefs/retracted_among",
            **owner.params(),
            interaction_ids=interaction_ids,
            episode_id=episode_id,
            limit=limit,
        )
        return [_retracted_from(r) for r in rows]

    async def commit(self, owner: Owner, write: BeliefWrite) -> BeliefChange:
        self._validate(write)

        async def work(tx: AsyncManagedTransaction) -> BeliefChange:
            await require_lease(tx, owner, write.lease_holder)
            at = await _checked(tx, owner, write)
            params = owner.params()
            made = changed = None
            if write.fact is not None:
                rows = await run(tx, "queries/beliefs/create_fact", params | _fact_params(write.fact, at))
                if not rows:
                    raise NotFound(f"user {owner.user_id!r} not found")
                made = fact_from(rows[0]["fact"])
            if write.action == "correct" and made is not None:
                rows = await run(
                    tx,
                    "queries/beliefs/supersede",
                    params
                    | {
                        "old_id": write.target_id,
                        "new_id": made.id,
                        "at": at,
                        "reason": write.reason,
                        "run_id": write.run.id,
                    },
                )
                changed = fact_from(rows[0]["fact"])
            elif write.action == "retract":
                rows = await run(tx, "queries/beliefs/retract", params | {"id": write.target_id, "at": at})
                changed = fact_from(rows[0]["fact"])
            await record_runs(tx, owner, [write.run])
            if made is not None:
                rows = await run(
                    tx,
                    "queries/beliefs/derive",
                    params
                    | {
                        "fact_id": made.id,
                        "run_id": write.run.id,
                        "interaction_id": write.source_interaction_id,
                    },
                )
                made = fact_from(rows[0]["fact"])
            return BeliefChange(run=_stored_run(owner, write.run), fact=made, changed=changed)

        return await self.db.write_transaction(work)

    def _validate(self, write: BeliefWrite) -> None:
        require_aware("at", write.at)
        if write.action != "add":
            if write.target_id is None:
                raise InvalidInput(f"a {write.action} names the fact it changes")
            require_text("reason", write.reason or "", MAX_REASON_BYTES, nul=False)
        if (write.fact is None) != (write.action == "retract"):
            raise InvalidInput("a correction or an addition writes one fact, a retraction none")
        if write.fact is not None:
            require_text("fact text", write.fact.text, MAX_FACT_BYTES, nul=False)
            require_vector("fact embedding", write.fact.embedding, self.dimension)
            if write.fact.kind not in FACT_KINDS:
                raise InvalidInput(f"unknown fact kind {write.fact.kind!r}")
            if write.fact.valid_from is not None:
                require_aware("valid_from", write.fact.valid_from)
        check_run_links([write.run])


async def _checked(tx: AsyncManagedTransaction, owner: Owner, write: BeliefWrite) -> datetime:
    """Refuse what the change may not do; the instant it takes effect: `at`, or the target's
    own start when that lies later (a validity never ends before it begins)."""
    rows = await run(
        tx,
        "queries/beliefs/state",
        owner.params() | {"fact_id": write.target_id, "interaction_id": write.source_interaction_id},
    )
    state = rows[0]
    at = write.at
    if write.target_id is not None:
        if state["status"] is None:
            raise NotFound(f"fact {write.target_id!r} not found")
        if state["status"] != FactStatus.ACTIVE:
            raise FactNotActive(write.target_id, str(state["status"]))
        at = max(at, instant(state["valid_from"]))
    if write.source_interaction_id is not None and not state["interaction_found"]:
        raise NotFound(f"interaction {write.source_interaction_id!r} not found")
    return at


def _fact_params(fact: StatedFact, at: datetime) -> dict[str, Any]:
    return {
        "id": fact.id,
        "text": fact.text,
        "kind": fact.kind,
        "embedding": fact.embedding,
        "valid_from": fact.valid_from or at,
        "lex_length": length(fact.text),
        "scopes": list(fact.scopes),
    }


def _stored_run(owner: Owner, write: RunWrite) -> ConsolidationRun:
    """The run as a read of it would return it."""
    fields = {k: v for k, v in asdict(write).items() if k not in ("read_ids", "produced_ids")}
    return ConsolidationRun(**fields, tenant=owner.tenant, user_id=owner.user_id)


_retracted_from = decoder(RetractedFact)
