"""What the bench talks to: the LLM endpoint (the local server in this process, or the configured
one) and the Neo4j settings."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from pydantic import SecretStr

from bench.common import ExtractiveResponder
from consolidation.settings import LLMSettings
from graph.settings import Neo4jSettings
from local_llm_server import LocalLLMServer

LOCAL_MODEL = "local-extractive"


@contextmanager
def llm_endpoint(kind: str, replies: str) -> Iterator[tuple[LLMSettings, LocalLLMServer | None]]:
    if kind == "config":
        settings = LLMSettings()
        if not settings.configured:
            raise SystemExit("--llm config needs RECMEM_LLM_BASE_URL and/or RECMEM_LLM_API_KEY")
        yield settings, None
        return
    with LocalLLMServer(model=LOCAL_MODEL) as server:
        if replies == "extractive":
            server.set_responder(ExtractiveResponder())
        yield (
            LLMSettings(
                base_url=server.base_url,
                api_key=SecretStr("local"),
                model=LOCAL_MODEL,
                timeout_s=60,
                max_retries=2,
            ),
            server,
        )


class Neo4jArgs(Protocol):
    """The Neo4j options of a bench's command line (bench.locomo, bench.hot_topic)."""

    @property
    def neo4j_uri(self) -> str | None: ...

    @property
    def neo4j_password(self) -> str | None: ...


def neo4j_settings(args: Neo4jArgs) -> Neo4jSettings:
    """The configured settings, with the command line's --neo4j-uri and --neo4j-password over them."""
    overrides: dict[str, Any] = {}
    if args.neo4j_uri:
        overrides["uri"] = args.neo4j_uri
    if args.neo4j_password:
        overrides["password"] = SecretStr(args.neo4j_password)
    return Neo4jSettings(**overrides)
