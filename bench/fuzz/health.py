"""After the run: is the service still healthy? /readyz, then a normal remember and recall of a
fresh user."""

from __future__ import annotations

import uuid
from typing import TypedDict

import httpx


class Health(TypedDict):
    readyz: int
    remember: bool
    recall: bool
    ok: bool


REMEMBER = (
    'mutation($u: ID!) { remember(input: {userId: $u, text: "My dog is called Rex."}) '
    "{ interaction { id } } }"
)
RECALL = 'query($u: ID!) { recall(userId: $u, query: "dog") { subconscious { interaction { id } } } }'


async def health(http: httpx.AsyncClient, key: str) -> Health:
    ready = await http.get("/readyz")
    user = f"fz-health-{uuid.uuid4().hex[:8]}"
    auth = {"authorization": f"Bearer {key}"}
    remember = await http.post("/graphql", json={"query": REMEMBER, "variables": {"u": user}}, headers=auth)
    recall = await http.post("/graphql", json={"query": RECALL, "variables": {"u": user}}, headers=auth)
    stored = (remember.json().get("data") or {}).get("remember") or {}
    found = ((recall.json().get("data") or {}).get("recall") or {}).get("subconscious") or []
    interaction = (stored.get("interaction") or {}).get("id")
    return {
        "readyz": ready.status_code,
        "remember": remember.status_code == 200 and interaction is not None,
        "recall": recall.status_code == 200 and any(h["interaction"]["id"] == interaction for h in found),
        "ok": ready.status_code == 200 and interaction is not None and bool(found),
    }
