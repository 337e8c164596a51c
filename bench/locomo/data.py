"""LoCoMo samples: the conversations as units to stream, their dia_ids and scored questions."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from itertools import groupby
from pathlib import Path
from typing import Any

from consolidation.types import Unit
from consolidation.writing.conversation_files import locomo_conversation

# The scored categories; 5 (adversarial) is left out.
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
ADVERSARIAL = 5

_DIA_ID = re.compile(r"^D:?(\d+):(\d+)$", re.IGNORECASE)
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")


def normalize_dia_id(raw: str) -> str | None:
    """`D8:6`, `d8:06`, `D:8:6` -> `D8:6`; anything else -> None (it cannot resolve)."""
    match = _DIA_ID.match(raw.strip())
    return f"D{int(match[1])}:{int(match[2])}" if match else None


def parse_evidence(items: Sequence[object]) -> list[str]:
    """Gold evidence as distinct pieces in order; "D8:6; D9:17" holds two. Unparseable pieces
    are kept verbatim so that they count as unresolved rather than vanish."""
    pieces = (p for item in items for p in _EVIDENCE_SPLIT.split(str(item)) if p)
    return list(dict.fromkeys(normalize_dia_id(p) or p for p in pieces))


@dataclass(frozen=True)
class Question:
    index: int
    question: str
    answer: str
    category: int
    evidence: list[str]
    # LongMemEval's own question type (`qa[].lme_type`), reported beside the category.
    lme_type: str | None = None
    # The day the question is asked (`qa[].question_date`, LongMemEval's): recall may resolve
    # "last week" or "currently" against it.
    asked_at: datetime | None = None


_LME_DATE = re.compile(r"^(\d{4})/(\d{2})/(\d{2})(?: \(\w+\))?(?: (\d{1,2}):(\d{2}))?$")


def question_date(raw: object) -> datetime | None:
    """`2023/06/14 (Wed) 13:43` -> that instant in UTC; anything else (or nothing) -> None."""
    match = _LME_DATE.match(str(raw).strip()) if raw else None
    if match is None:
        return None
    year, month, day, hour, minute = (int(g) if g else 0 for g in match.groups())
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def session_of(dia_id: str) -> int | None:
    """The session number of a dia_id: `D3:7` -> 3."""
    match = _DIA_ID.match(dia_id.strip())
    return int(match[1]) if match else None


@dataclass(frozen=True)
class Sample:
    """One conversation ready to stream: its units and where each dia_id ended up."""

    name: str
    units: list[Unit]
    refs: dict[str, str]  # normalized dia_id -> source_ref of the unit that holds it
    questions: list[Question]


def questions_of(sample: Mapping[str, Any], categories: Sequence[int] = tuple(CATEGORIES)) -> list[Question]:
    return [
        Question(
            i,
            str(qa["question"]),
            str(qa.get("answer", "")),
            int(qa["category"]),
            parse_evidence(qa.get("evidence", [])),
            str(qa["lme_type"]) if qa.get("lme_type") else None,
            question_date(qa.get("question_date")),
        )
        for i, qa in enumerate(sample.get("qa", []))
        if int(qa.get("category", 0)) in categories
    ]


def turn_units(units: list[Unit]) -> tuple[list[Unit], dict[str, str]]:
    refs = {normalize_dia_id(u.source_ref) or u.source_ref: u.source_ref for u in units if u.source_ref}
    return units, refs


def pair_units(units: list[Unit]) -> tuple[list[Unit], dict[str, str]]:
    """Consecutive turns of a session, two at a time, as one unit (an exchange)."""
    paired: list[Unit] = []
    refs: dict[str, str] = {}
    for session, turns in groupby(units, key=lambda u: u.session_id):
        group = list(turns)
        for start in range(0, len(group), 2):
            chunk = group[start : start + 2]
            ref = "+".join(str(u.source_ref) for u in chunk)
            paired.append(
                Unit(
                    text="\n".join(f"{u.speaker}: {u.text}" for u in chunk),
                    speaker=" & ".join(dict.fromkeys(u.speaker for u in chunk)),
                    occurred_at=chunk[0].occurred_at,
                    session_id=session,
                    source_ref=ref,
                )
            )
            refs |= {normalize_dia_id(str(u.source_ref)) or str(u.source_ref): ref for u in chunk}
    return paired, refs


def load_samples(
    path: Path,
    *,
    names: Sequence[str] = (),
    unit: str = "turn",
    limit_turns: int | None = None,
    categories: Sequence[int] = tuple(CATEGORIES),
) -> list[Sample]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    chosen = [s for s in raw if not names or str(s.get("sample_id")) in names]
    missing = set(names) - {str(s.get("sample_id")) for s in chosen}
    if missing:
        raise SystemExit(f"unknown sample ids: {sorted(missing)}")
    samples = []
    for item in chosen:
        conversation = locomo_conversation(item)
        units = conversation.units[:limit_turns]
        streamed, refs = pair_units(units) if unit == "pair" else turn_units(units)
        last = max((u.occurred_at for u in conversation.units), default=None)
        asked = [
            q if q.asked_at is not None else replace(q, asked_at=last) for q in questions_of(item, categories)
        ]
        samples.append(Sample(conversation.name, streamed, refs, asked))
    return samples
