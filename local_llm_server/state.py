"""What a test scripts and observes, shared between the test thread and the server thread."""

from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from local_llm_server.replies import Reply

Responder = Callable[[dict[str, Any]], Reply | None]


class ServerState:
    """Reply queue, responder and request/usage logs behind one lock.

    The server's event-loop thread takes replies and appends to the logs while the test
    thread scripts replies and reads the logs; every access holds `_lock`.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._responder: Responder | None = None
        self._requests: list[dict[str, Any]] = []
        self._usage: list[dict[str, Any]] = []
        self._embedding_calls = 0
        # Never reset, so response ids stay unique for the server's lifetime.
        self._ids = itertools.count(1)

    def script(self, replies: tuple[Reply, ...]) -> None:
        with self._lock:
            self._queue.extend(replies)

    def set_responder(self, responder: Responder | None) -> None:
        with self._lock:
            self._responder = responder

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def record_chat_request(self, body: dict[str, Any]) -> None:
        with self._lock:
            self._requests.append(body)

    def take_reply(self, body: dict[str, Any]) -> Reply | None:
        """The next scripted reply, else the responder's answer, else None (generic)."""
        with self._lock:
            if self._queue:
                return self._queue.popleft()
            responder = self._responder
        # Called outside the lock: a responder may itself script replies.
        return responder(body) if responder is not None else None

    def record_usage(self, *, model: str, status: int, prompt_tokens: int, completion_tokens: int) -> None:
        entry = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "model": model,
            "status": status,
        }
        with self._lock:
            self._usage.append(entry)

    def record_embedding_call(self) -> None:
        with self._lock:
            self._embedding_calls += 1

    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._requests)

    def usage_log(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(entry) for entry in self._usage]

    def embedding_calls(self) -> int:
        with self._lock:
            return self._embedding_calls

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self._responder = None
            self._requests.clear()
            self._usage.clear()
            self._embedding_calls = 0
