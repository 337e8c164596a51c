"""Assembled contexts compared across runs: a question's context per token budget is recorded as
a hash of its text, and another run's questions file says which questions got the same one.

    python -m bench.locomo.contexts MINE-questions.jsonl OTHER-questions.jsonl   # prints JSON
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from bench.locomo.results import ContextComparison, ModeContexts
from bench.locomo.scoring import QuestionResult


def context_hash(text: str) -> str:
    """The SHA-256 of a context's text (UTF-8), in hex: equal hashes, equal texts."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def compare_contexts(results: Sequence[QuestionResult], other: Path) -> ContextComparison:
    """Per mode and token budget: how many questions asked in both runs got the identical context
    text, and which did not (`sample#index`). Rows without recorded hashes compare nothing."""
    theirs: dict[tuple[str, str, int], dict[str, str]] = {}
    for line in other.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("context_hashes"):
            theirs[(row["mode"], row["sample"], row["index"])] = row["context_hashes"]
    modes: dict[str, dict[str, ModeContexts]] = {}
    for result in results:
        recorded = theirs.get((result.mode, result.sample, result.index))
        if recorded is None:
            continue
        for budget, mine in result.context_hashes.items():
            if budget not in recorded:
                continue
            row = modes.setdefault(result.mode, {}).setdefault(
                budget, {"questions": 0, "identical": 0, "differing": []}
            )
            row["questions"] += 1
            if mine == recorded[budget]:
                row["identical"] += 1
            else:
                row["differing"].append(f"{result.sample}#{result.index}")
    return {"other_run": str(other), "modes": modes}


def main(argv: Sequence[str] | None = None) -> int:
    """Two finished runs' questions files compared, as --compare-contexts does during a run."""
    mine, other = (Path(a) for a in (sys.argv[1:] if argv is None else argv))
    rows = [QuestionResult(**json.loads(line)) for line in mine.read_text(encoding="utf-8").splitlines()]
    print(json.dumps(compare_contexts(rows, other), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
