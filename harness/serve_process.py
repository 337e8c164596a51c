"""`recmem serve` as a real process: started with an environment of its own and a log file, waited
for until it answers, stopped with SIGTERM (SIGKILL when that takes too long).

The service benchmark, the GraphQL fuzz and the tests that drive a real service (tests/support/serve.py)
all start it this way."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from harness.processes import proc_status

RECMEM = str(Path(sys.executable).parent / "recmem")


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """`count` distinct free ports. All probes stay bound until all are picked: two picks one after
    the other may return the same port, and Neo4j's Bolt port answers any HTTP GET with 200 (its
    discovery document), so a service port equal to a Neo4j port looks ready before it listens."""
    with ExitStack() as stack:
        probes = [stack.enter_context(socket.socket()) for _ in range(count)]
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [int(probe.getsockname()[1]) for probe in probes]


def environment_without_recmem() -> dict[str, str]:
    """This process's environment minus every RECMEM_* setting: a service gets only those it is given."""
    return {k: v for k, v in os.environ.items() if not k.startswith("RECMEM_")}


class ServeError(RuntimeError):
    """The service exited during its start, or did not answer in time; the message ends with its log."""


@dataclass
class ServeProcess:
    process: subprocess.Popen[bytes]
    base: str
    env: dict[str, str]
    workdir: Path  # its working directory, which holds its log
    log: Path

    @classmethod
    def start(cls, env: dict[str, str], workdir: Path, log_name: str) -> ServeProcess:
        """`recmem serve` on the port of `env`'s RECMEM_API_PORT, logging to `workdir/log_name`."""
        log = workdir / log_name
        with log.open("wb") as out:
            process = subprocess.Popen(
                [RECMEM, "serve", "--log-level", "warning"],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=workdir,
            )
        return cls(process, f"http://127.0.0.1:{env['RECMEM_API_PORT']}", env, workdir, log)

    def wait_ready(self, timeout_s: float = 90.0, path: str = "/readyz") -> None:
        """Until `path` answers 200 (`/healthz` for a service whose Neo4j is away)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServeError(f"recmem serve exited early:\n{self.tail()}")
            if self.status(path) == 200:
                return
            time.sleep(0.2)
        raise ServeError(f"recmem serve did not become ready:\n{self.tail()}")

    def status(self, path: str = "/readyz") -> int | None:
        """The HTTP status of a GET of `path`; None when nothing answers."""
        try:
            return httpx.get(f"{self.base}{path}", timeout=5).status_code
        except httpx.HTTPError:
            return None

    def tail(self, lines: int = 40) -> str:
        if not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self, timeout_s: float = 60.0) -> None:
        """SIGTERM (a graceful shutdown), SIGKILL if that takes too long; no-op once exited."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=timeout_s)

    def memory(self) -> dict[str, int]:
        return proc_status(self.process.pid)

    def sigkill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


@contextmanager
def serving(
    env: dict[str, str],
    workdir: Path,
    log_name: str,
    *,
    ready_within_s: float | None,
    stop_within_s: float = 60.0,
    on_spawn: Callable[[], None] = lambda: None,
) -> Iterator[ServeProcess]:
    """A started service, ready unless `ready_within_s` is None; stopped on leaving, however.
    `on_spawn` is work that can overlap the service's start-up."""
    service = ServeProcess.start(env, workdir, log_name)
    try:
        on_spawn()
        if ready_within_s is not None:
            service.wait_ready(ready_within_s)
        yield service
    finally:
        service.stop(stop_within_s)
