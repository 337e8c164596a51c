"""The GraphQL documents the benchmark sends, and a timed client over one keep-alive connection."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from typing import Any

import httpx

BUDGETS = {"subconscious": 10, "episodic": 5, "semantic": 10}

REMEMBER = """mutation Remember($input: RememberInput!) {
  remember(input: $input) { created seq interaction { id } consolidation { action llmCalls } }
}"""
REMEMBER_BATCH = """mutation Batch($userId: ID!, $units: [UnitInput!]!, $consolidate: Boolean) {
  rememberBatch(userId: $userId, units: $units, consolidate: $consolidate) { interactionId created }
}"""
RECALL = """query Recall($userId: ID!, $query: String!, $budget: BudgetInput, $filter: RecallFilter) {
  recall(userId: $userId, query: $query, budget: $budget, filter: $filter) {
    semantic { score fact { id text validFrom } sources { id } }
    episodic { score episode { id title summary version } sourceIds }
    subconscious { score interaction { id text occurredAt } }
  }
}"""

# A GraphQL response's `data`: JSON whose shape the document asked for.
Data = dict[str, Any]
# One metric of a Server-Timing header (api/middleware/server_timing.py): name and duration.
METRIC = re.compile(r"(\w+);dur=([\d.]+)")


def server_timing(header: str | None) -> dict[str, float]:
    """The service's own split of a request, in ms: `neo4j`, `app` and `total` (empty without one)."""
    return {name: float(ms) for name, ms in METRIC.findall(header or "")}


class Client:
    def __init__(self, base: str, key: str) -> None:
        self.http = httpx.Client(
            base_url=base,
            headers={"authorization": f"Bearer {key}", "accept": "application/json"},
            timeout=300,
        )
        # The Server-Timing metrics of the last response (empty when the service sends none).
        self.last_timing: dict[str, float] = {}

    def close(self) -> None:
        self.http.close()

    def call(self, query: str, variables: Mapping[str, object]) -> tuple[Data, float]:
        """The response's data and the round trip in milliseconds; any GraphQL error raises."""
        start = time.perf_counter()
        response = self.http.post("/graphql", json={"query": query, "variables": variables})
        elapsed = (time.perf_counter() - start) * 1000
        self.last_timing = server_timing(response.headers.get("server-timing"))
        body = response.json()
        if response.status_code != 200 or body.get("errors"):
            raise RuntimeError(f"GraphQL error ({response.status_code}): {json.dumps(body)[:1000]}")
        data: Data = body["data"]
        return data, elapsed
