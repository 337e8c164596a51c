"""`recmem serve` as a real process for the tests (harness/serve_process.py starts, waits for and
stops it): its environment on a test Neo4j, the `recmem` CLI run beside it, and a service with a
fresh tenant's key."""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from graph.settings import Neo4jSettings
from harness.serve_process import RECMEM, ServeProcess, environment_without_recmem, serving
from tests.support.engines import TEST_TEMPLATE

# Generous: a service starts in seconds, but the machine may be busy with other suites.
READY_WITHIN_S = 120.0
# tests/support/api.py's thresholds for a service: three turns of STORY open an episode, the fourth
# merges into it (one merge per turn: batched merges would hold the fourth turn back).
STORY_SETTINGS = {
    "RECMEM_THETA_SIM": "0.3",
    "RECMEM_THETA_COUNT": "3",
    "RECMEM_MERGE_THRESHOLD": "0.2",
    "RECMEM_MERGE_BATCH": "1",
}


def serve_env(neo4j: Neo4jSettings, port: int, **extra: str) -> dict[str, str]:
    """A hashing-embedder service on `neo4j` at `port`, with `extra` settings: none of the test
    run's own RECMEM_* settings leak in."""
    env = environment_without_recmem() | {
        "RECMEM_NEO4J_URI": neo4j.uri,
        "RECMEM_API_PORT": str(port),
        "RECMEM_EMBEDDER_KIND": "hashing",
        "RECMEM_EMBEDDER_DIMENSION": "384",
        "RECMEM_EMBEDDING_TEMPLATE": TEST_TEMPLATE,
    }
    password = neo4j.resolved_password()
    if password is not None:
        env["RECMEM_NEO4J_PASSWORD"] = password
    return env | extra


def run_recmem(service: ServeProcess, *args: str) -> subprocess.CompletedProcess[str]:
    """`recmem ARGS` as the service's operator runs it (its environment and folder); it must succeed."""
    return subprocess.run(
        [RECMEM, *args], env=service.env, capture_output=True, text=True, check=True, cwd=service.workdir
    )


@dataclass(frozen=True)
class KeyedService:
    """A running service and a key of `tenant`'s for its GraphQL endpoint."""

    served: ServeProcess
    tenant: str
    key: str

    @property
    def base(self) -> str:
        return self.served.base

    def post(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The data of a GraphQL request that must succeed."""
        response = httpx.post(
            f"{self.base}/graphql",
            json={"query": query, "variables": variables or {}},
            headers={"authorization": f"Bearer {self.key}"},
            timeout=60,
        )
        body = response.json()
        assert response.status_code == 200 and "errors" not in body, body
        return dict(body["data"])

    def keys(self, *args: str) -> dict[str, Any]:
        """`recmem keys ARGS`; its JSON when `--json` is among them."""
        done = run_recmem(self.served, "keys", *args)
        return dict(json.loads(done.stdout)) if "--json" in args else {}


@contextmanager
def keyed_service(env: dict[str, str], workdir: Path, *key_options: str) -> Iterator[KeyedService]:
    """`recmem serve` with `env`, ready, and a key (made with `key_options`) of a fresh tenant;
    stopped on leaving."""
    with serving(env, workdir, "serve.log", ready_within_s=READY_WITHIN_S) as served:
        tenant = f"t-{uuid.uuid4().hex[:12]}"
        created = run_recmem(served, "keys", "create", "--tenant", tenant, *key_options, "--json")
        yield KeyedService(served, tenant, str(json.loads(created.stdout)["key"]))
