"""Smoke test: `recmem serve` as a real process, a key from `recmem keys create`, remember and
recall over HTTP, then a clean stop."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import httpx

from api.settings import ApiSettings
from graph.settings import Neo4jSettings
from harness.serve_process import free_port
from tests.support.serve import keyed_service, run_recmem, serve_env


def test_recmem_serve_remembers_and_recalls(neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    port = free_port()
    with keyed_service(serve_env(neo4j_settings, port), tmp_path) as service:
        headers = {"authorization": f"Bearer {service.key}"}
        remember = 'mutation { remember(input: {userId: "alice", text: "My dog is called Rex.", occurredAt: "2024-05-01T09:00:00Z"}) { created interaction { id } } }'
        done = service.post(remember)
        assert done["remember"]["created"] is True
        recall = (
            '{ recall(userId: "alice", query: "dog") { subconscious { score interaction { id text } } } }'
        )
        hits = service.post(recall)["recall"]["subconscious"]
        assert hits[0]["interaction"]["id"] == done["remember"]["interaction"]["id"]
        listed = run_recmem(service.served, "keys", "list", "--tenant", service.tenant, "--json")
        assert service.key not in listed.stdout and service.tenant in listed.stdout
        key_id = json.loads(listed.stdout.splitlines()[0])["id"]
        run_recmem(service.served, "keys", "revoke", key_id)
        # A process reuses a key lookup for RECMEM_API_AUTH_CACHE_S (5 s by default): the revoked
        # key must be refused once that has passed, and not stay usable.
        deadline = time.monotonic() + ApiSettings().auth_cache_s + 10
        status = 200
        while status != 401 and time.monotonic() < deadline:
            time.sleep(0.5)
            status = httpx.post(
                f"{service.base}/graphql", json={"query": recall}, headers=headers, timeout=60
            ).status_code
        assert status == 401
    # uvicorn shuts down gracefully, then re-raises the signal it caught (exit status -SIGTERM).
    assert service.served.process.returncode in (0, -signal.SIGTERM)
    log = service.served.log.read_text()
    assert f"GraphiQL: http://127.0.0.1:{port}/graphql" in log
    assert f"memory explorer: http://127.0.0.1:{port}/ui" in log
