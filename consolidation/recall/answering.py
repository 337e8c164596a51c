"""Answers a question from recalled memory with one consolidator call, recorded as a run."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from consolidation.consolidating.consolidator import AnswerInput, Consolidator, EvidenceItem
from consolidation.consolidating.prompts.answer import WithdrawnBelief
from consolidation.consolidating.runs import failed_run, run_record
from consolidation.providers.llm.types import LLMError
from consolidation.types import Answer, Recall, RecallHit
from graph.consolidations import ConsolidationStore
from graph.models import Fact, Interaction, Owner
from graph.vocabulary import FactStatus


def _evidence(hits: list[RecallHit]) -> list[EvidenceItem]:
    return [
        EvidenceItem(
            id=h.id,
            text=h.text,
            # A turn at its time as said: its relative words are on its speaker's calendar.
            at=h.item.local_occurred_at if isinstance(h.item, Interaction) else h.at,
            speaker=h.item.speaker if isinstance(h.item, Interaction) else None,
        )
        for h in hits
    ]


def _withdrawn(facts: list[Fact]) -> list[WithdrawnBelief]:
    """The recall's withdrawn beliefs as the answerer is told them: a superseded one was
    replaced by a person's correction (the recall names no other)."""
    return [
        WithdrawnBelief(
            text=f.text, kind=f.kind, change="retracted" if f.status == FactStatus.RETRACTED else "corrected"
        )
        for f in facts
    ]


@dataclass(frozen=True, eq=False)
class Answerer:
    consolidator: Consolidator
    # Where the answer's run is recorded.
    runs: ConsolidationStore

    async def answer(
        self, owner: Owner, question: str, recall: Recall, asked_at: datetime | None = None
    ) -> Answer:
        """One answer from `recall`; relative dates in `question` count from `asked_at` (else
        from the day the recall's plan was asked on, when it has one)."""
        hits = recall.evidence()
        asked = asked_at if asked_at is not None or recall.plan is None else recall.plan.asked_at
        evidence = AnswerInput(
            question=question,
            as_of=recall.as_of,
            asked_at=asked,
            facts=_evidence([h for h in hits if h.layer == "semantic"]),
            episodes=_evidence([h for h in hits if h.layer == "episodic"]),
            interactions=_evidence([h for h in hits if h.layer == "subconscious"]),
            withdrawn_beliefs=_withdrawn(recall.withdrawn),
        )
        read = [h.id for h in hits]
        try:
            result = await self.consolidator.answer(evidence)
        except LLMError as error:
            failed = failed_run(self.consolidator, "answer", error, trigger="question", read_ids=read)
            await self.runs.record_runs(owner, [failed])
            raise
        known = set(read)
        used = [i for i in result.value.used_ids if i in known]
        run = run_record(self.consolidator, "answer", result.usage, trigger="question", read_ids=used)
        await self.runs.record_runs(owner, [run])
        return Answer(
            text=result.value.answer,
            used_ids=used,
            recall=recall,
            run_id=run.id,
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
        )
