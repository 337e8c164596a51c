"""What one consolidation writes: the episode version and the facts, each embedded on the way.

The pipeline collects these before its single commit, so nothing here touches the graph.
"""

from __future__ import annotations

import logging
from datetime import datetime

from consolidation.consolidating.prompts.refine_facts import FactDrafts
from consolidation.providers.embedders import Embedder
from graph.models import EpisodeWrite, FactWrite, Interaction, new_id
from graph.vocabulary import EPISODE_ID_PREFIX, FACT_ID_PREFIX

log = logging.getLogger(__name__)


async def episode_write(
    embedder: Embedder,
    title: str,
    summary: str,
    run_id: str,
    sources: list[tuple[str, float]],
    *,
    first_at: datetime,
    last_at: datetime,
    valid_from: datetime,
    previous_id: str | None = None,
) -> EpisodeWrite:
    vector = (await embedder.embed([summary]))[0]
    return EpisodeWrite(
        id=new_id(EPISODE_ID_PREFIX),
        title=title,
        summary=summary,
        embedding=[float(x) for x in vector],
        sources=sources,
        run_id=run_id,
        first_at=first_at,
        last_at=last_at,
        valid_from=valid_from,
        previous_id=previous_id,
    )


async def fact_writes(
    embedder: Embedder,
    drafts: FactDrafts,
    turns: list[Interaction],
    known_facts: set[str],
    unit: Interaction,
) -> list[FactWrite]:
    """The drafts with text, each resting on the turns it cites (else `unit`); replaced ids
    outside `known_facts` are dropped."""
    by_id = {t.id: t for t in turns}
    kept = [d for d in drafts.facts if d.text.strip()]
    if not kept:
        return []
    vectors = await embedder.embed([d.text for d in kept])
    writes = []
    for draft, vector in zip(kept, vectors, strict=True):
        cited = [by_id[i] for i in draft.source_turn_ids if i in by_id] or [unit]
        replaced = [i for i in draft.replaces if i in known_facts]
        if len(replaced) < len(draft.replaces):
            # Ids the model invented or that belong to another user: never written.
            log.warning("ignored %d unknown fact ids named as replaced", len(draft.replaces) - len(replaced))
        writes.append(
            FactWrite(
                id=new_id(FACT_ID_PREFIX),
                text=draft.text.strip(),
                kind=draft.kind,
                embedding=[float(x) for x in vector],
                valid_from=max(t.occurred_at for t in cited),
                source_interaction_ids=[t.id for t in cited],
                supersedes=[(old, draft.reason or "replaced") for old in dict.fromkeys(replaced)],
            )
        )
    return writes
