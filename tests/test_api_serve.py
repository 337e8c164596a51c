"""Smoke test: `recmem serve` as a real process, a key from `recmem keys create`, remember and
recall over HTTP, then a clean stop."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from api.settings import ApiSettings
from graph.settings import Neo4jSettings
from tests.conftest import TEST_TEMPLATE

RECMEM = str(Path(sys.executable).parent / "recmem")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _env(neo4j: Neo4jSettings, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECMEM_")}
    env |= {
        "RECMEM_NEO4J_URI": neo4j.uri,
        "RECMEM_API_PORT": str(port),
        "RECMEM_EMBEDDER_KIND": "hashing",
        "RECMEM_EMBEDDER_DIMENSION": "384",
        "RECMEM_EMBEDDING_TEMPLATE": TEST_TEMPLATE,
    }
    password = neo4j.resolved_password()
    if password is not None:
        env["RECMEM_NEO4J_PASSWORD"] = password
    return env


def _wait_ready(base: str, process: subprocess.Popen[bytes], timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert process.poll() is None, "recmem serve exited early"
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    pytest.fail("recmem serve did not become ready")


@pytest.mark.slow
def test_recmem_serve_remembers_and_recalls(neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    port = _free_port()
    env = _env(neo4j_settings, port)
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [RECMEM, "serve", "--log-level", "warning"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=tmp_path,
        )
    try:
        _wait_ready(base, process)
        tenant = f"t-{uuid.uuid4().hex[:12]}"
        created = subprocess.run(
            [RECMEM, "keys", "create", "--tenant", tenant, "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path,
        )
        key = json.loads(created.stdout)["key"]
        headers = {"authorization": f"Bearer {key}"}
        remember = 'mutation { remember(input: {userId: "alice", text: "My dog is called Rex.", occurredAt: "2024-05-01T09:00:00Z"}) { created interaction { id } } }'
        done = httpx.post(f"{base}/graphql", json={"query": remember}, headers=headers, timeout=60).json()
        assert done["data"]["remember"]["created"] is True
        recall = (
            '{ recall(userId: "alice", query: "dog") { subconscious { score interaction { id text } } } }'
        )
        found = httpx.post(f"{base}/graphql", json={"query": recall}, headers=headers, timeout=60).json()
        hits = found["data"]["recall"]["subconscious"]
        assert hits[0]["interaction"]["id"] == done["data"]["remember"]["interaction"]["id"]
        listed = subprocess.run(
            [RECMEM, "keys", "list", "--tenant", tenant, "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path,
        )
        assert key not in listed.stdout and tenant in listed.stdout
        key_id = json.loads(listed.stdout.splitlines()[0])["id"]
        subprocess.run(
            [RECMEM, "keys", "revoke", key_id], env=env, check=True, capture_output=True, cwd=tmp_path
        )
        # A process reuses a key lookup for RECMEM_API_AUTH_CACHE_S (5 s by default): the revoked
        # key must be refused once that has passed, and not stay usable.
        deadline = time.monotonic() + ApiSettings().auth_cache_s + 10
        status = 200
        while status != 401 and time.monotonic() < deadline:
            time.sleep(0.5)
            status = httpx.post(
                f"{base}/graphql", json={"query": recall}, headers=headers, timeout=60
            ).status_code
        assert status == 401
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    # uvicorn shuts down gracefully, then re-raises the signal it caught (exit status -SIGTERM).
    assert process.returncode in (0, -signal.SIGTERM)
    assert f"GraphiQL: http://127.0.0.1:{port}/graphql" in log.read_text()
    assert f"memory explorer: http://127.0.0.1:{port}/ui" in log.read_text()
