"""The facts a benchmark built, counted by the offline consolidator's declarative rule.

    python -m bench.fact_census --tenant locomo-...-recmem --neo4j-uri bolt://... [--json out.json]

Per status (active, superseded, retracted) and in all: how many facts, how many are declarative
statements about someone (`consolidation.consolidating.offline.declarative`) and, for the others,
which shape failed; `--examples N` prints N facts of each failing shape.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from consolidation.consolidating.offline.declarative import shape
from consolidation.consolidating.offline.words import name_words
from graph.database import Database
from graph.settings import Neo4jSettings

DECLARATIVE = "declarative"


def census(rows: Iterable[Mapping[str, Any]], examples: int = 0) -> dict[str, Any]:
    """{status: {facts, declarative, share, shapes}} over the rows, plus "all" and examples."""
    counts: dict[str, Counter[str]] = {}
    shown: dict[str, list[str]] = {}
    for row in rows:
        found = shape(str(row["text"]), name_words(row["speakers"])) or DECLARATIVE
        for status in (str(row["status"]), "all"):
            counts.setdefault(status, Counter())[found] += 1
        if found != DECLARATIVE and len(shown.setdefault(found, [])) < examples:
            shown[found].append(str(row["text"]))
    report: dict[str, Any] = {}
    for status, by_shape in sorted(counts.items()):
        total = sum(by_shape.values())
        report[status] = {
            "facts": total,
            "declarative": by_shape[DECLARATIVE],
            "share": round(by_shape[DECLARATIVE] / total, 4) if total else None,
            "shapes": {name: n for name, n in sorted(by_shape.items()) if name != DECLARATIVE},
        }
    if examples:
        report["examples"] = shown
    return report


async def fact_rows(db: Database, tenant: str) -> list[dict[str, Any]]:
    """Every fact of the tenant's users: user_id, speakers, text, kind, status."""
    return [dict(row) for row in await db.read("queries/bench/fact_texts", tenant=tenant)]


async def _rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    password = SecretStr(args.neo4j_password) if args.neo4j_password else None
    db = Database.connect(Neo4jSettings(uri=args.neo4j_uri, password=password))
    try:
        return await fact_rows(db, args.tenant)
    finally:
        await db.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.fact_census", description=__doc__)
    parser.add_argument("--tenant", required=True, help="a mode's tenant, e.g. locomo-...-recmem")
    parser.add_argument("--neo4j-uri", required=True)
    parser.add_argument("--neo4j-password", default=None)
    parser.add_argument("--examples", type=int, default=0, help="facts shown per failing shape")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args(argv)
    report = census(asyncio.run(_rows(args)), args.examples)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
