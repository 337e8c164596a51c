"""Correcting, retracting and adding facts by hand (docs/corrections.md).

A change is checked first (text, kind, reason, the named ids), then written in one transaction
while this taker holds the user's consolidation lease, so no consolidation or forget of the same
user interleaves with it. Its run records the change as a person's, not an LLM's: `provider`
"person", the trigger (correction, retraction, manual), the reason and who made it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from consolidation.consolidating.leasing import Busy, holder_id, take_lease
from consolidation.providers.embedders import Embedder
from consolidation.settings import EngineSettings
from consolidation.stores import Stores
from graph.beliefs import Action, BeliefChange, BeliefWrite, StatedFact
from graph.errors import InvalidInput, NotFound
from graph.models import Owner, RunWrite, change_run, new_id
from graph.scopes import check_scopes, scope_tokens
from graph.validation import require_aware, require_name, require_owner, require_text
from graph.vocabulary import (
    CORRECTION_TRIGGER,
    FACT_ID_PREFIX,
    FACT_KINDS,
    MAX_FACT_BYTES,
    MAX_REASON_BYTES,
    PERSON_PROVIDER,
)

__all__ = ["PERSON", "TRIGGERS", "BeliefChange", "Beliefs", "person_run"]

# The provider of a person's change, and the trigger each kind of change records on its run.
PERSON = PERSON_PROVIDER
TRIGGERS: dict[Action, str] = {"correct": CORRECTION_TRIGGER, "retract": "retraction", "add": "manual"}
OPS: dict[Action, str] = {"correct": "correct_fact", "retract": "retract_fact", "add": "add_fact"}


@dataclass(frozen=True)
class Beliefs:
    stores: Stores
    embedder: Embedder
    settings: EngineSettings

    async def correct(
        self,
        owner: Owner,
        fact_id: str,
        text: str,
        reason: str,
        *,
        by: str,
        source_interaction_id: str | None = None,
    ) -> BeliefChange:
        """A new fact that supersedes `fact_id` from now on, derived from the named interaction
        (the same user's) or else from the correction's run; the kind stays the old fact's."""
        self._check(owner, by, fact_id=fact_id, reason=reason, text=text)
        if source_interaction_id is not None:
            require_name("source_interaction_id", source_interaction_id)
        old = await self.stores.facts.get(owner, [fact_id])
        if not old:
            raise NotFound(f"fact {fact_id!r} not found")
        fact = await self._stated(text, old[0].kind, None)
        return await self._commit(
            owner, "correct", by, reason, fact_id, fact, source_interaction_id, read=[fact_id]
        )

    async def retract(self, owner: Owner, fact_id: str, reason: str, *, by: str) -> BeliefChange:
        """The fact stops holding from now on; it stays, retracted, in the audit trail."""
        self._check(owner, by, fact_id=fact_id, reason=reason)
        return await self._commit(owner, "retract", by, reason, fact_id, None, None, read=[fact_id])

    async def add(
        self,
        owner: Owner,
        text: str,
        kind: str,
        *,
        by: str,
        valid_from: datetime | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        metadata: Any = None,
    ) -> BeliefChange:
        """A fact stated by hand, holding from `valid_from` (default: now), in the scopes of the
        agent, session and metadata given as a turn's are (none: unscoped; docs/scopes.md)."""
        self._check(owner, by, text=text)
        if kind not in FACT_KINDS:
            raise InvalidInput(f"unknown fact kind {kind!r}")
        if valid_from is not None:
            require_aware("valid_from", valid_from)
            valid_from = valid_from.astimezone(UTC)  # stored in UTC, as a turn's time is
        check_scopes(agent_id, session_id, metadata)
        scopes = scope_tokens(agent_id, session_id, None, metadata)
        fact = await self._stated(text, kind, valid_from, scopes)
        return await self._commit(owner, "add", by, None, None, fact, None, read=[])

    def _check(
        self,
        owner: Owner,
        by: str,
        *,
        fact_id: str | None = None,
        reason: str | None = None,
        text: str | None = None,
    ) -> None:
        require_owner(owner.tenant, owner.user_id)
        require_name("by", by)
        if fact_id is not None:
            require_name("id", fact_id)
        if reason is not None:
            require_text("reason", reason, MAX_REASON_BYTES, nul=False)
        if text is not None:
            # A fact's own limit, which RECMEM_MAX_TEXT_BYTES (a turn's) does not change.
            require_text("text", text, MAX_FACT_BYTES, nul=False)

    async def _stated(
        self, text: str, kind: str, valid_from: datetime | None, scopes: list[str] | None = None
    ) -> StatedFact:
        vector = (await self.embedder.embed([text.strip()]))[0]
        return StatedFact(
            id=new_id(FACT_ID_PREFIX),
            text=text.strip(),
            kind=kind,
            embedding=[float(x) for x in vector],
            valid_from=valid_from,
            scopes=tuple(scopes or ()),
        )

    async def _commit(
        self,
        owner: Owner,
        action: Action,
        by: str,
        reason: str | None,
        target_id: str | None,
        fact: StatedFact | None,
        source_interaction_id: str | None,
        *,
        read: list[str],
    ) -> BeliefChange:
        if not await self.stores.browse.users(owner.tenant, [owner.user_id]):
            raise NotFound(f"user {owner.user_id!r} not found")
        at = datetime.now(UTC)
        produced = [fact.id] if fact is not None else []
        run = _person_run(action, by, reason, at, [*read, *filter(None, [source_interaction_id])], produced)
        holder = holder_id("belief")
        if not await take_lease(self.stores.leases, owner, holder, self.settings.lease_seconds, wait=True):
            raise Busy(f"consolidation for {owner.user_id!r} is running; retry the change later")
        try:
            write = BeliefWrite(
                action=action,
                run=run,
                at=at,
                lease_holder=holder,
                reason=reason,
                target_id=target_id,
                fact=fact,
                source_interaction_id=source_interaction_id,
            )
            return await self.stores.beliefs.commit(owner, write)
        finally:
            await self.stores.leases.release(owner, holder)


def _person_run(
    action: Action, by: str, reason: str | None, at: datetime, read: list[str], produced: list[str]
) -> RunWrite:
    return person_run(OPS[action], TRIGGERS[action], by, reason, at, read, produced)


def person_run(
    op: str, trigger: str, by: str, reason: str | None, at: datetime, read: list[str], produced: list[str]
) -> RunWrite:
    """The run of a person's change (a fact's correction, retraction or addition, or a forget):
    no model, no tokens; who and why."""
    return change_run(op, trigger, PERSON, by, reason, at, read, produced)
