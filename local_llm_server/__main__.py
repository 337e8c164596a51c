"""`python -m local_llm_server --port 8089 [--model NAME]`: serve in the foreground (generic mode)."""

from __future__ import annotations

import argparse
import signal
import threading

from local_llm_server.server import LocalLLMServer
from local_llm_server.settings import (
    DEFAULT_EMBEDDING_DIMENSION,
    DEFAULT_EMBEDDING_MODEL,
    DEFAULT_MODEL,
)


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m local_llm_server",
        description="Serve a local OpenAI-compatible endpoint answering with generic replies.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8089, help="0 picks a free port")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--embedding-model", default=DEFAULT_EMBEDDING_MODEL)
    parser.add_argument("--embedding-dimension", type=int, default=DEFAULT_EMBEDDING_DIMENSION)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = _parse_args(argv)
    server = LocalLLMServer(
        model=args.model,
        embedding_dimension=args.embedding_dimension,
        embedding_model=args.embedding_model,
        host=args.host,
        port=args.port,
    )
    stop = threading.Event()
    # The server runs on its own thread; the main thread waits for Ctrl+C or SIGTERM
    # and then stops it cleanly.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with server:
        # flush: benchmark scripts read this line from a pipe to learn the URL.
        print(server.base_url, flush=True)
        stop.wait()


if __name__ == "__main__":
    main()
