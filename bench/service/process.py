"""`recmem serve` as a real process, the Neo4j it talks to, and what both cost (CPU, memory)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench.service.results import CpuMs
from bench.service.stats import log
from harness.processes import cpu_seconds
from harness.serve_process import ServeProcess, environment_without_recmem, free_port, serving

READY_WITHIN_S = 180


@dataclass
class CpuReading:
    """Filled when the metered block ends."""

    per_op: CpuMs = field(default_factory=dict)


@contextmanager
def cpu_meter(pids: dict[str, int | None], ops: int) -> Iterator[CpuReading]:
    """CPU milliseconds per operation spent by each process (service, Neo4j, this client) while
    the block runs, warm-up included. Contention inflates wall time far more than CPU time, so
    on a busy machine these say more about the code than latencies do."""
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    reading = CpuReading()
    yield reading
    out: CpuMs = {}
    for name, pid in pids.items():
        after, start = cpu_seconds(pid), before[name]
        out[name] = (
            round((after - start) * 1000 / max(ops, 1), 2)
            if after is not None and start is not None
            else None
        )
    out["total"] = round(sum(v for v in out.values() if v is not None), 2)
    reading.per_op = out


def neo4j_pid(home: Path | None, port: int | None) -> int | None:
    """The Neo4j JVM: from its home's pid file, else the process listening on the Bolt port."""
    if home is not None:
        for name in ("run/neo4j.pid", "run/recmem-neo4j.pid", "neo4j.pid"):
            path = home / name
            if path.exists():
                try:
                    return int(path.read_text().strip())
                except ValueError:
                    pass
    if port is None:
        return None
    return _neo4j_process(home)


def _neo4j_process(home: Path | None) -> int | None:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if b"org.neo4j" in cmd and (home is None or str(home).encode() in cmd):
            return int(entry.name)
    return None


@dataclass
class Target:
    """One Neo4j the benchmark talks to."""

    uri: str
    password: str | None
    home: Path | None = None

    def env(self) -> dict[str, str]:
        env = {"RECMEM_NEO4J_URI": self.uri}
        if self.password is not None:
            env["RECMEM_NEO4J_PASSWORD"] = self.password
        return env


def resolve_target(uri: str | None, password: str | None, home: str | None) -> Target | None:
    if uri is None and home is None:
        return None
    home_path = Path(home) if home else None
    if password is None and home_path is not None and (home_path / "password").exists():
        password = (home_path / "password").read_text().strip()
    if uri is None:
        uri = "bolt://127.0.0.1:7687"
    return Target(uri, password, home_path)


def service_env(
    target: Target, embedder: str, mode: str, port: int, max_batch: int, extra: dict[str, str] | None = None
) -> dict[str, str]:
    env = environment_without_recmem() | target.env()
    env |= {
        "RECMEM_API_PORT": str(port),
        "RECMEM_API_RATE_LIMIT_PER_S": "0",
        "RECMEM_API_MAX_BATCH": str(max_batch),
        "RECMEM_API_GRAPHIQL": "false",
        "RECMEM_EMBEDDER_KIND": embedder,
        "RECMEM_EMBEDDER_DIMENSION": "384",
        "RECMEM_CONSOLIDATION_MODE": mode,
        "TOKENIZERS_PARALLELISM": "false",
    }
    # The one engine setting taken from the bench's own environment: a database records the
    # template its vectors were made with, and the service must match it.
    template = os.environ.get("RECMEM_EMBEDDING_TEMPLATE")
    if template:
        env["RECMEM_EMBEDDING_TEMPLATE"] = template
    return env | (extra or {})


@contextmanager
def running_service(
    target: Target,
    embedder: str,
    mode: str,
    max_batch: int,
    workdir: Path,
    on_spawn: Callable[[], None] = lambda: None,
    extra_env: dict[str, str] | None = None,
) -> Iterator[ServeProcess]:
    port = free_port()
    env = service_env(target, embedder, mode, port, max_batch, extra_env)
    log_name = f"serve-{embedder}-{mode}-{port}.log"
    with serving(env, workdir, log_name, ready_within_s=READY_WITHIN_S, on_spawn=on_spawn) as service:
        log(f"service up: {embedder}/{mode} pid {service.process.pid} port {port}")
        yield service


def create_key(target: Target, tenant: str) -> str:
    """What `recmem keys create --tenant T --json` does, in this process (a CLI start costs seconds
    on a busy machine); the tenant is created on first use."""
    from consolidation.forgetting.keys import AccessKeys
    from graph.database import Database
    from graph.settings import Neo4jSettings

    async def create() -> str:
        db = Database.connect(Neo4jSettings(uri=target.uri, password=target.password))
        try:
            return (await AccessKeys(db).create(tenant, "service-bench")).secret
        finally:
            await db.close()

    return asyncio.run(create())
