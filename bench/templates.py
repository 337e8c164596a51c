"""What to embed an interaction as: evidence recall of exact top-10 search per embedding template.

For each LoCoMo conversation: every turn embedded through a template, every question (categories
1-4) embedded as asked or rendered like a turn, exact cosine top 10 over the conversation's turns,
and the share of the question's gold evidence among them. No database: this isolates the choice of
text from indexing and fusion. `consolidation/providers/embedding_template.py` takes its default from here.

    .venv/bin/python -m bench.templates --data ../shared/data/locomo/locomo-dev.json

Prints one JSON object and writes it to --out (bench/results/templates.json).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TypedDict

import numpy as np

from bench.commands import shown_command
from bench.locomo.data import Sample, load_samples
from bench.locomo.scoring import resolve_evidence
from bench.machine import MachineInfo, machine_info
from consolidation.providers.embedders import Embedder, build_embedder
from consolidation.providers.embedding_template import EmbeddingTemplate
from consolidation.settings import EmbedderSettings

TEMPLATES = (
    "{text}",
    "{speaker}: {text}",
    "[{date}] {speaker}: {text}",
    "[{time}] {speaker}: {text}",
    "{speaker} ({date}): {text}",
    "On {date}, {speaker} said: {text}",
)
# How a question meets the turns: as asked, or dressed as a turn of one of the two speakers.
QUERY_FORMS = ("as asked", "as a turn")
K = 10
RESULTS = Path(__file__).parent / "results" / "templates.json"


class Row(TypedDict):
    template: str
    query: str
    evidence_recall_at_10: float


class Report(TypedDict):
    """bench/results/templates.json."""

    embedder: str
    data: str
    questions: int
    rows: list[Row]
    machine: MachineInfo
    command: str


async def recall_at_k(embedder: Embedder, sample: Sample, template: str, query_form: str) -> list[float]:
    render = EmbeddingTemplate(template).render
    turns = await embedder.embed([render(u.text, u.speaker, u.occurred_at) for u in sample.units])
    ids = {str(u.source_ref): str(u.source_ref) for u in sample.units}
    speakers = " or ".join(dict.fromkeys(u.speaker for u in sample.units))
    texts = [
        q.question if query_form == "as asked" else f"{speakers}: {q.question}" for q in sample.questions
    ]
    queries = await embedder.embed(texts)
    shares = []
    for question, query in zip(sample.questions, queries, strict=True):
        evidence = resolve_evidence(question.evidence, sample.refs, ids)
        if not evidence:
            continue
        top = {str(sample.units[i].source_ref) for i in np.argsort(-(turns @ query))[:K]}
        shares.append(sum(1 for e in evidence if e in top) / len(evidence))
    return shares


async def run(data: Path, embedder_kind: str) -> Report:
    embedder = build_embedder(EmbedderSettings(kind=embedder_kind))
    samples = load_samples(data)
    rows: list[Row] = []
    shares: list[float] = []
    for template in TEMPLATES:
        for form in QUERY_FORMS if template == TEMPLATES[-1] else QUERY_FORMS[:1]:
            shares = [s for sample in samples for s in await recall_at_k(embedder, sample, template, form)]
            rows.append(
                {
                    "template": template,
                    "query": form,
                    "evidence_recall_at_10": round(float(np.mean(shares)), 4),
                }
            )
            print(json.dumps(rows[-1]), file=sys.stderr)
    return {
        "embedder": embedder.name,
        "data": str(data),
        "questions": len(shares),
        "rows": rows,
        "machine": machine_info(),
        "command": shown_command("python -m bench.templates", sys.argv[1:]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where the JSON report goes")
    args = parser.parse_args()
    report = asyncio.run(run(Path(args.data), str(args.embedder)))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
