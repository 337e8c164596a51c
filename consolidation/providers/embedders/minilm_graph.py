"""Builds all-MiniLM-L6-v2 for onnxruntime's CPU kernels from its parameters (minilm_weights.py).

The network uses onnxruntime's fused `MultiHeadAttention` and `BiasGelu`; each linear layer is a
plain fp32 MatMul or (`Precision`) an int8 product whose input is quantized per token, with the
outlier input channels of minilm_outliers.py spread over extra int8 copies. Mean pooling and L2
normalization are part of the graph. It is built once per process, in memory (needs `onnx`).
Why per-token scales and outlier channels: docs/design/embedders.md#the-graph.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper

from consolidation.providers.embedders.minilm_weights import HEADS, HIDDEN, Weight, Weights

LN_EPSILON = 1e-12
_MS = "com.microsoft"


# How a linear layer multiplies: fp32 (int8 weights dequantized, fp32 ones as they are), or int8
# with each token's input quantized symmetrically by its own absolute maximum.
LinearMode = Literal["fp32", "int8"]
# Per linear layer ("l0.qkv", "l3.down", ...): input channels and how many copies each is spread
# over in int8 (see `_Graph.int8_linear`).
Outliers = Mapping[str, Sequence[tuple[int, int]]]


@dataclass(frozen=True)
class Precision:
    """Per kind of linear layer: `qkv` (the three attention projections together), `out` (the
    attention output), `up` (the feed-forward expansion) and `down` (its projection back)."""

    qkv: LinearMode = "int8"
    out: LinearMode = "int8"
    up: LinearMode = "int8"
    down: LinearMode = "int8"


FP32 = Precision(qkv="fp32", out="fp32", up="fp32", down="fp32")


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
        if values.dtype != np.int8:
            raise ValueError(f"{name}: int8 compute needs int8 weights, not {values.dtype}")
        return self.int8_linear(x, weight, name, outliers)

    def int8_linear(self, x: str, weight: Weight, name: str, outliers: Sequence[tuple[int, int]]) -> str:
        """Per-token symmetric int8: step r = max|x_t| / 127 over the token's ordinary channels,
        input and weights both stored as uint8 around 128 (u8 x u8: the u8 x s8 kernel of CPUs
        without VNNI saturates in int16), the int32 products back as floats times the weight's
        column scale and r.

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
                self.const(name + ".wq", int8_values.astype(np.int16) + 128, np.uint8),
                "one",
                self.const(name + ".ws", scale),
                "u8.128",
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


def _word_embeddings(g: _Graph, word: Weight) -> str:
    """The rows of the input tokens: fp32 as they are, int8 dequantized after the gather."""
    values, scale = word
    if values.dtype == np.float32:
        return g.op("Gather", [g.const("word", values), "input_ids"], "word.emb", axis=0)
    rows = g.op("Gather", [g.const("word.q", values, np.int8), "input_ids"], "word.rows", axis=0)
    rows = g.op("Cast", [rows], "word.rows_f", to=TensorProto.FLOAT)
    row_scales = g.op("Gather", [g.const("word.scale", scale[:, None]), "input_ids"], "word.scales", axis=0)
    return g.op("Mul", [rows, row_scales], "word.emb")


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
        from consolidation.providers.embedders.minilm_outliers import OUTLIERS

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

    words = _word_embeddings(g, weights.word)
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
