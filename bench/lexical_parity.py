"""Whether graph/lexical.py scores as Lucene does: BM25 with the index's own statistics.

Reads every interaction text of a database, then for each LoCoMo question asked of each user of a
tenant, scores the user's candidates twice: by Neo4j's full-text index (Lucene, statistics over
the whole index) and by `graph.lexical.rank` given the same whole-index statistics (N, df, total
length over every text). Lucene's score adds a constant per query (the `+owner_key:<key>`
clause), so the two must differ by that constant alone, and order the candidates alike. Prints
JSON: per question the spread of the differences, whether the top 10 agree as sets of ids, and
the items more than 0.01 apart (a tokenisation difference; docs/design/lexical-scoring.md).

    python -m bench.lexical_parity --data locomo-dev.json --tenant locomo-...-raw \
        --neo4j-uri bolt://127.0.0.1:7831 --neo4j-password ... --out /tmp/parity.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import defaultdict
from pathlib import Path
from statistics import median
from typing import Any

from pydantic import SecretStr

from bench.locomo.data import load_samples
from graph.cypher import statement
from graph.database import Database
from graph.lexical import length, query_terms, rank, words
from graph.lucene import lucene_query
from graph.models import Owner
from graph.settings import Neo4jSettings

TOP = 10
TOLERANCE = 1e-3  # Lucene scores in float32


async def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = Neo4jSettings(uri=args.neo4j_uri, password=SecretStr(args.neo4j_password))
    db = Database.connect(settings)
    try:
        texts = await db.driver.execute_query(statement("queries/bench/lexical_texts"), database_=db.name)
        items = [dict(r.data()) for r in texts.records]
        total = sum(length(i["text"]) for i in items)
        by_word: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for item in items:
            for word in set(words(item["text"] or "")):
                by_word[word].append(item)
        rows = []
        for sample in load_samples(args.data, names=args.samples or []):
            owner = Owner(args.tenant, sample.name)
            for question in sample.questions:
                lucene = lucene_query(question.question, owner)
                if lucene is None:
                    continue
                found = await db.driver.execute_query(
                    statement("queries/bench/lexical_lucene"),
                    lucene=lucene,
                    tenant=owner.tenant,
                    user_id=owner.user_id,
                    database_=db.name,
                )
                theirs = {r["id"]: float(r["score"]) for r in found.records}
                terms = query_terms(question.question)
                holding = {id(i): i for t in set(terms) for i in by_word.get(t, [])}
                candidates = [
                    {**i, "searched": i["tenant"] == owner.tenant and i["user_id"] == owner.user_id}
                    for i in holding.values()
                ]
                ours = dict(
                    (i["id"], s) for i, s in rank(candidates, "text", terms, len(items), 10**9, total)
                )
                rows.append(_compare(sample.name, question.index, theirs, ours))
    finally:
        await db.close()
    differing = [r for r in rows if not r["same_candidates"] or r["spread"] > TOLERANCE or not r["same_top"]]
    return {
        "tenant": args.tenant,
        "documents": len(items),
        "questions": len(rows),
        "same_candidates": sum(r["same_candidates"] for r in rows),
        "scores_within_tolerance": sum(r["spread"] <= TOLERANCE for r in rows),
        "same_top": sum(r["same_top"] for r in rows),
        "questions_with_items_apart": sum(bool(r["apart"]) for r in rows),
        "differing": differing,
    }


def _compare(sample: str, index: int, theirs: dict[str, float], ours: dict[str, float]) -> dict[str, Any]:
    shared = set(theirs) & set(ours)
    offsets = [theirs[i] - ours[i] for i in shared]
    offset = median(offsets) if offsets else 0.0
    spread = max((abs(o - offset) for o in offsets), default=0.0)
    top = {i for i, _ in sorted(theirs.items(), key=lambda p: (-p[1], p[0]))[:TOP]}
    mine = {i for i, _ in sorted(ours.items(), key=lambda p: (-p[1], p[0]))[:TOP]}
    # Items whose scores differ by more than float noise: a tokenisation difference.
    apart = sorted(i for i in shared if abs(theirs[i] - ours[i] - offset) > 10 * TOLERANCE)
    same_top = top == mine
    return {
        "sample": sample,
        "index": index,
        "same_candidates": set(theirs) == set(ours),
        "only_lucene": sorted(set(theirs) - set(ours))[:5],
        "only_ours": sorted(set(ours) - set(theirs))[:5],
        "offset": round(offset, 5),
        "spread": round(spread, 6),
        "same_top": same_top,
        "apart": apart[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--tenant", required=True, help="the tenant whose users are the samples")
    parser.add_argument("--samples", type=lambda s: [x for x in s.split(",") if x], default=[])
    parser.add_argument("--neo4j-uri", required=True)
    parser.add_argument("--neo4j-password", required=True)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    report = asyncio.run(run(args))
    text = json.dumps(report, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "differing"}, indent=1))


if __name__ == "__main__":
    main()
