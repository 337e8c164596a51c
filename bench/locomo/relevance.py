"""The relevance rule on and off, from one run's NAME-questions.jsonl (contexts built with it off).

The rule empties a context that found nothing relevant and changes no other, so each question's
figures with it on are its figures off, or zeros where it found nothing relevant. Per mode and
budget: evidence and answer-token recall with the rule off and on, how many questions whose
evidence exists got an empty context, and the mean context size of category 5 (adversarial).

    python -m bench.locomo.relevance /tmp/out/locomo-questions.jsonl [--out relevance.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

ADVERSARIAL = 5


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per mode, per budget: the figures off and on (module docstring)."""
    report: dict[str, Any] = {}
    for mode in sorted({r["mode"] for r in rows}):
        mine = [r for r in rows if r["mode"] == mode]
        budgets = sorted({int(b) for r in mine for b in r["at_tokens"]})
        per: dict[str, Any] = {}
        for budget in map(str, budgets):
            scored = [r for r in mine if r["recall"] is not None and budget in r["at_tokens"]]
            empty = [r for r in scored if r.get("nothing_relevant", {}).get(budget, False)]
            figures: dict[str, Any] = {"questions": len(scored), "empty_with_evidence": len(empty)}
            for key in ("evidence_recall", "answer_recall"):
                off = [r["at_tokens"][budget][key] for r in scored if r["at_tokens"][budget][key] is not None]
                on = [
                    0.0 if r in empty else r["at_tokens"][budget][key]
                    for r in scored
                    if r["at_tokens"][budget][key] is not None
                ]
                figures[f"{key}_off"], figures[f"{key}_on"] = _mean(off), _mean(on)
            adversarial = [r for r in mine if r["category"] == ADVERSARIAL and budget in r["at_tokens"]]
            flagged = [r for r in adversarial if r.get("nothing_relevant", {}).get(budget, False)]
            tokens_off = [r["at_tokens"][budget]["context_tokens"] for r in adversarial]
            tokens_on = [
                0.0 if r in flagged else r["at_tokens"][budget]["context_tokens"] for r in adversarial
            ]
            figures |= {
                "adversarial_questions": len(adversarial),
                "adversarial_empty": len(flagged),
                "adversarial_tokens_off": _mean(tokens_off),
                "adversarial_tokens_on": _mean(tokens_on),
            }
            per[budget] = figures
        report[mode] = per
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path, help="a NAME-questions.jsonl of bench.locomo")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.questions.read_text().splitlines() if line.strip()]
    text = json.dumps(summarize(rows), indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
