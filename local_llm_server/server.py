"""`LocalLLMServer`: the app served by uvicorn on a background thread, plus the test API."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any, Self

import uvicorn

from local_llm_server.app import build_app
from local_llm_server.replies import Reply
from local_llm_server.settings import (
    DEFAULT_EMBEDDING_DIMENSION,
    DEFAULT_EMBEDDING_MODEL,
    DEFAULT_MODEL,
    ServerSettings,
)
from local_llm_server.state import Responder, ServerState
from local_llm_server.tokens import warm_up

_START_TIMEOUT_SECONDS = 10.0
# Uvicorn waits this long for in-flight requests on stop before cancelling them.
_GRACEFUL_SHUTDOWN_SECONDS = 2
_STOP_TIMEOUT_SECONDS = 10.0


class LocalLLMServer:
    """An OpenAI-compatible server on 127.0.0.1 for tests and offline benchmarks.

    Chat requests are answered from a FIFO queue of scripted `Reply`s, then by the
    responder, then generically (content derived from the request, valid for its
    `response_format`). Usable as a context manager (start on enter, stop on exit).
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        embedding_dimension: int = DEFAULT_EMBEDDING_DIMENSION,
        *,
        embedding_model: str = DEFAULT_EMBEDDING_MODEL,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.settings = ServerSettings(
            model=model, embedding_model=embedding_model, embedding_dimension=embedding_dimension
        )
        self._host = host
        self._requested_port = port
        self._state = ServerState()
        self._uvicorn: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._port: int | None = None

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> Self:
        """Bind the port, serve on a daemon thread, and return once requests are accepted."""
        if self._thread is not None:
            raise RuntimeError("LocalLLMServer is already running")
        # A first request paying the tokenizer load could trip a short client timeout.
        warm_up()
        # Binding here (not inside uvicorn) lets port 0 resolve before the thread starts.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self._host, self._requested_port))
        self._port = int(sock.getsockname()[1])
        config = uvicorn.Config(
            build_app(self._state, self.settings),
            loop="asyncio",
            lifespan="off",
            log_config=None,  # leave the host process's logging configuration alone
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN_SECONDS,
        )
        self._uvicorn = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._uvicorn.run,
            kwargs={"sockets": [sock]},
            name=f"local-llm-server:{self._port}",
            daemon=True,
        )
        self._thread.start()
        self._wait_until_started(sock)
        return self

    def _wait_until_started(self, sock: socket.socket) -> None:
        assert self._uvicorn is not None and self._thread is not None
        deadline = time.monotonic() + _START_TIMEOUT_SECONDS
        while not self._uvicorn.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self._thread = None
                self._uvicorn = None
                sock.close()
                raise RuntimeError("LocalLLMServer failed to start")
            time.sleep(0.005)

    def stop(self) -> None:
        """Stop serving and wait for the thread; the port is closed on return. Idempotent."""
        if self._uvicorn is None or self._thread is None:
            return
        self._uvicorn.should_exit = True
        self._thread.join(_STOP_TIMEOUT_SECONDS)
        if self._thread.is_alive():  # a request ignored the graceful timeout
            self._uvicorn.force_exit = True
            self._thread.join(_STOP_TIMEOUT_SECONDS)
        self._thread = None
        self._uvicorn = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("LocalLLMServer has not been started")
        return self._port

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT/v1`: pass as `base_url` to the openai client."""
        return f"http://{self._host}:{self.port}/v1"

    # -- scripting ---------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        """Queue replies; each chat HTTP request (retries included) consumes one."""
        self._state.script(replies)

    def set_responder(self, responder: Responder | None) -> None:
        """`responder(body) -> Reply | None` answers when the queue is empty; None -> generic."""
        self._state.set_responder(responder)

    def reset(self) -> None:
        """Forget queued replies, the responder and all logs."""
        self._state.reset()

    # -- observation -------------------------------------------------------------

    @property
    def pending_replies(self) -> int:
        """Scripted replies not consumed yet."""
        return self._state.pending()

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Bodies of the chat requests received, in order (a snapshot copy)."""
        return self._state.requests()

    @property
    def chat_calls(self) -> int:
        return len(self._state.requests())

    @property
    def usage_log(self) -> list[dict[str, Any]]:
        """One `{prompt_tokens, completion_tokens, model, status}` per answered chat request."""
        return self._state.usage_log()

    @property
    def embedding_calls(self) -> int:
        return self._state.embedding_calls()
