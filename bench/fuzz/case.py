"""One fuzz case: what is sent (an HTTP request, or frames on a websocket), and its kinds."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypedDict

HTTP_KINDS = (
    "valid",
    "wrong_variables",
    "random_arguments",
    "depth_bomb",
    "alias_bomb",
    "fragments",
    "huge_values",
    "syntax_damage",
    "malformed_json",
    "bad_encoding",
    "content_type",
    "oversized",
    "method_and_get",
    "no_key",
)
WS_KINDS = ("ws_document", "ws_fuzzed_document", "ws_subscription", "ws_protocol", "ws_oversized")
# Case `index` is of kind KINDS[index % len(KINDS)]: a few dozen cases cover every kind.
KINDS = HTTP_KINDS[:8] + WS_KINDS[:2] + HTTP_KINDS[8:] + WS_KINDS[2:]
# Users the fuzz's documents name: the write check counts their interactions.
USERS = ("alice", "bob", "fz-carol")

Headers = tuple[tuple[str, str], ...]


class CaseDescription(TypedDict):
    """A case in a report: short and JSON-safe."""

    index: int
    kind: str
    transport: str
    method: str
    headers: dict[str, str]
    params: dict[str, str]
    bytes: int
    sample: str


@dataclass(frozen=True)
class Case:
    """One request (HTTP) or one exchange on an open connection (websocket)."""

    index: int
    kind: str
    transport: str  # "http" or "ws"
    method: str = "POST"
    headers: Headers = ()
    body: bytes = b""
    params: Headers = ()
    # Websocket: frames sent after connection_init/ack (or instead of it when `raw`), the ids of
    # the operations they start, and whether an operation may stream (a subscription).
    frames: tuple[str | bytes, ...] = ()
    operation_ids: tuple[str, ...] = ()
    raw: bool = False
    streams: bool = False
    authenticated: bool = True
    # The bytes sent, kept when the case is slimmed for the report (`slim`).
    size: int = 0

    def slim(self) -> Case:
        """The case without the bulk of its payload: what an outcome keeps (a run holds 10,000)."""
        size = len(self.body) + sum(len(f) for f in self.frames)
        frames = tuple(f[:300] for f in self.frames)
        params = tuple((k, v[:200]) for k, v in self.params)
        return replace(self, body=self.body[:300], frames=frames, params=params, size=size)

    def describe(self) -> CaseDescription:
        """A short, JSON-safe description for reports."""
        sample = self.body[:300] if self.transport == "http" else repr(self.frames)[:300].encode()
        return {
            "index": self.index,
            "kind": self.kind,
            "transport": self.transport,
            "method": self.method,
            "headers": dict(self.headers),
            "params": {k: v[:200] for k, v in self.params},
            "bytes": self.size or len(self.body) + sum(len(f) for f in self.frames),
            "sample": sample.decode("utf-8", "backslashreplace"),
        }
