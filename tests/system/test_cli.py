"""The `recmem` command line as a user meets it: one-line errors with exit statuses, ingest's
new/already-stored counts, the offline-consolidation notice only where it applies, `cypher run
--tenant`, and `serve` stopping the Neo4j it started (and only that one) on SIGTERM or Ctrl-C.

Most cases run the real `recmem` executable: typer's traceback and the logging module's stderr
fallback only show in a process of their own, so only there can these tests fail for them."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from cli.main import app
from consolidation.writing import conversation_files
from graph.database import Database
from graph.local_server import ENTRY_CLASS, STOP_TIMEOUT_S, LocalNeo4j
from graph.reachability import reachable
from graph.settings import Neo4jSettings
from harness.serve_process import free_port, free_ports
from tests.support.engines import DIMENSION, TEST_TEMPLATE

RECMEM = str(Path(sys.executable).parent / "recmem")
# Generous: a 2-core machine running the suite may start a JVM in a minute or more.
NEO4J_START_S = 300.0
SERVE_STOP_S = STOP_TIMEOUT_S + 60.0  # serve stops its Neo4j, which may write the class archive
OFFLINE_LOG = "offline extractive consolidator"  # consolidation/wiring.py's warning
UNITS = [
    ("Ann", "I love sushi dinner with salmon rolls", "2024-05-01T19:00:00Z", "D1:1"),
    ("Ben", "Salmon rolls are the best sushi", "2024-05-01T19:01:00Z", "D1:2"),
    ("Ann", "We had sushi dinner with salmon rolls again", "2024-05-08T19:00:00Z", "D2:1"),
]


def _clean_env() -> dict[str, str]:
    """The test process's environment without any RECMEM_* setting of the developer's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECMEM_")}
    env |= {
        "RECMEM_EMBEDDER_KIND": "hashing",
        "RECMEM_EMBEDDER_DIMENSION": str(DIMENSION),
        "RECMEM_EMBEDDING_TEMPLATE": TEST_TEMPLATE,
        "COLUMNS": "200",
    }
    return env


def _env_for(neo4j: Neo4jSettings) -> dict[str, str]:
    """Points the CLI at the session's Neo4j; no LLM endpoint, so consolidation is offline."""
    env = _clean_env() | {"RECMEM_NEO4J_URI": neo4j.uri}
    password = neo4j.resolved_password()
    if password is not None:
        env["RECMEM_NEO4J_PASSWORD"] = password
    return env


def recmem(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [RECMEM, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def _jsonl(path: Path, units: list[tuple[str, str, str, str]]) -> Path:
    rows = [{"speaker": s, "text": t, "occurred_at": at, "source_ref": ref} for s, t, at, ref in units]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


# --- errors -------------------------------------------------------------------------------------


def test_a_user_error_is_one_line_and_status_2(tmp_path: Path) -> None:
    naive = tmp_path / "naive.jsonl"
    naive.write_text('{"text": "hi", "occurred_at": "2024-01-01T09:00:00"}\n', encoding="utf-8")
    # No Neo4j needed: the file is refused before anything connects.
    done = recmem("ingest", str(naive), env=_clean_env(), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == ["error: line 1: Value error, occurred_at must carry a timezone"]
    assert done.stdout == ""


def test_a_bad_setting_is_a_user_error(tmp_path: Path) -> None:
    env = _clean_env() | {"RECMEM_NEO4J_PORT": "not-a-port"}
    done = recmem("neo4j", "status", env=env, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "error: invalid setting RECMEM_NEO4J_PORT: Input should be a valid integer, "
        "unable to parse string as an integer (got 'not-a-port')"
    ]


@pytest.mark.parametrize("args", [("cypher", "show", "recurring_topics"), ("cypher", "list")])
def test_output_cut_short_by_its_reader_ends_quietly(args: tuple[str, ...], tmp_path: Path) -> None:
    """`recmem export ... | head -1`: the reader leaves, and the command stops with status 1 and no
    message, as rich's tables already did (plain output printed "error: internal error:
    BrokenPipeError" with the --debug hint)."""
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first write
    try:
        done = subprocess.run(
            [RECMEM, *args],
            env=_clean_env(),
            cwd=tmp_path,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (1, "")


def test_an_unreachable_neo4j_is_one_line_and_status_1(tmp_path: Path) -> None:
    env = _clean_env() | {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{free_port()}"}
    env["RECMEM_NEO4J_PASSWORD"] = "unused"
    done = recmem("recall", "sushi", "--user", "alice", env=env, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: Neo4j is not reachable")


def test_an_internal_error_is_one_line_with_a_hint_and_debug_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(path: Path) -> list[object]:
        raise RuntimeError("a bug")

    # The command imports it when it runs (cli/memory.py), so the module's own name is patched.
    monkeypatch.setattr(conversation_files, "read_conversations", broken)
    path = _jsonl(tmp_path / "c.jsonl", UNITS)
    result = CliRunner().invoke(app, ["ingest", str(path)])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error: internal error: RuntimeError: a bug (rerun with --debug (or RECMEM_DEBUG=1) for the traceback)"
    ]
    for debug in (["--debug"], []):
        env = {} if debug else {"RECMEM_DEBUG": "1"}
        result = CliRunner().invoke(app, [*debug, "ingest", str(path)], env=env)
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith("Traceback (most recent call last):"), result.stderr
        assert result.stderr.splitlines()[-1] == "RuntimeError: a bug"


def test_python_m_cli_is_recmem(tmp_path: Path) -> None:
    """`python -m cli` said "No module named cli.__main__": where the `recmem` script is not on
    PATH, the command can still be run by the interpreter that has the package."""
    root = Path(__file__).resolve().parents[2]
    env = _clean_env() | {"PYTHONPATH": str(root)}  # this checkout's cli, whatever is installed
    naive = tmp_path / "naive.jsonl"
    naive.write_text('{"text": "hi", "occurred_at": "2024-01-01T09:00:00"}\n', encoding="utf-8")
    for args in (("--help",), ("ingest", str(naive))):
        by_module = subprocess.run(
            [sys.executable, "-m", "cli", *args],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        by_script = recmem(*args, env=env, cwd=tmp_path)
        assert (by_module.returncode, by_module.stdout, by_module.stderr) == (
            by_script.returncode,
            by_script.stdout,
            by_script.stderr,
        )
    assert by_module.returncode == 2
    assert "Usage: recmem [OPTIONS] COMMAND [ARGS]..." in recmem("--help", env=env, cwd=tmp_path).stdout


# --- ingest, recall, cypher run against the session Neo4j ----------------------------------------


@dataclass(frozen=True)
class Ingested:
    tenant: str
    user: str
    path: Path
    first: subprocess.CompletedProcess[str]
    env: dict[str, str]


@pytest.fixture(scope="module")
def ingested(neo4j_settings: Neo4jSettings, tmp_path_factory: pytest.TempPathFactory) -> Ingested:
    """One file ingested once into a tenant of its own."""
    folder = tmp_path_factory.mktemp("cli")
    path = _jsonl(folder / "dinners.jsonl", UNITS)
    tenant = f"cli-{uuid.uuid4().hex[:12]}"
    env = _env_for(neo4j_settings)
    first = recmem("ingest", str(path), "--tenant", tenant, env=env, cwd=folder)
    return Ingested(tenant, "dinners", path, first, env)


def test_ingest_counts_new_units_and_says_once_that_it_consolidates_offline(ingested: Ingested) -> None:
    done = ingested.first
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["ingested 3 units from 1 conversation: 3 new, 0 already stored"]
    assert done.stderr.count("consolidating offline: no LLM endpoint configured") == 1
    assert OFFLINE_LOG not in done.stderr


def test_ingesting_again_reports_every_unit_as_already_stored(ingested: Ingested, tmp_path: Path) -> None:
    args = ("ingest", str(ingested.path), "--tenant", ingested.tenant)
    done = recmem(*args, env=ingested.env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["ingested 3 units from 1 conversation: 0 new, 3 already stored"]
    # One unit more in the file: only it is new.
    more = _jsonl(
        tmp_path / "dinners.jsonl", [*UNITS, ("Ben", "Next time ramen", "2024-05-09T12:00:00Z", "D3:1")]
    )
    done = recmem("ingest", str(more), "--tenant", ingested.tenant, env=ingested.env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["ingested 4 units from 1 conversation: 1 new, 3 already stored"]


RECURRING = [
    (
        "Ann",
        f"We had sushi dinner with salmon rolls again, round {n}",
        f"2024-05-{n + 1:02d}T19:00:00Z",
        f"R:{n}",
    )
    for n in range(8)
]


async def test_ingest_leaves_no_turn_waiting_for_a_batch_merge(
    neo4j_settings: Neo4jSettings, db: Database, tmp_path: Path
) -> None:
    """A topic that recurs: the first recurrence writes an episode, the turns after it wait for
    a batch merge (fewer than RECMEM_MERGE_BATCH gather); the file's end merges them."""
    tenant = f"cli-{uuid.uuid4().hex[:12]}"
    path = _jsonl(tmp_path / "sushi.jsonl", RECURRING)
    env = _env_for(neo4j_settings) | {"RECMEM_THETA_SIM": "0.3", "RECMEM_THETA_COUNT": "2"}
    env |= {"RECMEM_MERGE_THRESHOLD": "0.3"}  # every later turn joins the first episode
    done = recmem("ingest", str(path), "--tenant", tenant, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = await db.driver.execute_query(
        "MATCH (:User {tenant: $t, id: 'sushi'})-[:HAS]->(i:Interaction) "
        "RETURN count(i) AS turns, count(CASE WHEN i.consolidated THEN 1 END) AS merged, "
        "count(CASE WHEN i.awaits IS NOT NULL AND NOT i.consolidated THEN 1 END) AS waiting",
        t=tenant,
        database_=db.name,
    )
    counts = rows.records[0]
    assert (counts["turns"], counts["waiting"]) == (len(RECURRING), 0)
    assert counts["merged"] == len(RECURRING)


def test_recall_of_a_known_user_prints_no_offline_notice(ingested: Ingested, tmp_path: Path) -> None:
    args = ("recall", "sushi salmon", "--user", ingested.user, "--tenant", ingested.tenant)
    done = recmem(*args, env=ingested.env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "salmon rolls" in done.stdout
    assert done.stderr == ""  # recall does not consolidate: nothing to say about the LLM


def test_recall_of_an_unknown_user_says_so_and_fails(ingested: Ingested, tmp_path: Path) -> None:
    args = ("recall", "sushi", "--user", "nobody", "--tenant", ingested.tenant)
    done = recmem(*args, env=ingested.env, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"error: unknown user 'nobody' in tenant '{ingested.tenant}' (nothing was ingested for it)"
    ]
    assert done.stdout == ""


def test_commands_that_do_not_consolidate_print_no_llm_notice(ingested: Ingested, tmp_path: Path) -> None:
    for args in (("cypher", "list"), ("db", "migrate"), ("keys", "list", "--tenant", ingested.tenant)):
        done = recmem(*args, env=ingested.env, cwd=tmp_path)
        assert done.returncode == 0, (args, done.stderr)
        assert "LLM" not in done.stderr and "offline" not in done.stderr, args


def _interactions(stdout: str) -> int:
    return sum(row["added"] for row in json.loads(stdout) if row["layer"] == "interaction")


def test_cypher_run_takes_the_tenant_from_tenant(ingested: Ingested) -> None:
    runner = CliRunner()
    base = ["cypher", "run", "memory_growth", "--format", "json"]
    result = runner.invoke(app, [*base, "--tenant", ingested.tenant], env=ingested.env)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [f"tenant: {ingested.tenant}"]
    assert _interactions(result.stdout) >= len(UNITS)
    # An explicit --param tenant= wins over --tenant.
    other = f"cli-{uuid.uuid4().hex[:12]}"
    result = runner.invoke(
        app, [*base, "--tenant", ingested.tenant, "-p", f"tenant={other}"], env=ingested.env
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [f"tenant: {other}"]
    assert json.loads(result.stdout) == []
    # Neither: the CLI's default tenant, named.
    result = runner.invoke(app, base, env=ingested.env)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == ["tenant: default"]


def test_cypher_run_help_documents_tenant() -> None:
    result = CliRunner().invoke(app, ["cypher", "run", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "--tenant" in result.stdout and "--param tenant=... wins" in result.stdout


def test_cypher_run_refusals_are_user_errors() -> None:
    result = CliRunner().invoke(app, ["cypher", "run", "recurring_topics", "-p", "limit=many"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: parameter 'limit' expects integer, got 'many' (invalid literal for int() with base 10: 'many')"
    ]


# --- serve and the Neo4j it starts ---------------------------------------------------------------


def _poll(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {timeout_s:.0f}s")
        time.sleep(0.3)


def _ready(base: str, process: subprocess.Popen[bytes], log: Path) -> Callable[[], bool]:
    def check() -> bool:
        assert process.poll() is None, f"recmem serve exited early:\n{log.read_text()[-3000:]}"
        try:
            answer = httpx.get(f"{base}/readyz", timeout=3)
        except httpx.HTTPError:
            return False
        # The body too: a 200 from anything but recmem (say a Bolt port) is not serve being ready.
        try:
            return answer.status_code == 200 and answer.json().get("status") == "ready"
        except ValueError:  # not JSON: not recmem's /readyz
            return False

    return check


def test_a_bolt_port_does_not_pass_for_a_ready_service(neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    """Neo4j's Bolt port answers `GET /readyz` with 200 (an empty discovery body); the serve tests'
    readiness check must not take that for serve being up (it once did, when the API port drawn
    equalled the Neo4j port, and the test stopped serve in the middle of its Neo4j start)."""
    bolt = neo4j_settings.uri.replace("bolt://", "http://")
    assert httpx.get(f"{bolt}/readyz", timeout=10).status_code == 200  # what fooled the old check
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as idle:
        try:
            assert not _ready(bolt, idle, tmp_path / "none.log")()
        finally:
            idle.kill()


def _neo4j_alive(pid: int) -> bool:
    """The pid is a live Neo4j JVM (not a pid reused by another program, nor a zombie)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:  # no such process
        return False
    return ENTRY_CLASS.encode() in cmdline and state != "Z"


def _pid_in(pid_file: Path) -> int | None:
    try:
        return int(pid_file.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):  # not written yet, or being written
        return None


@dataclass(frozen=True)
class Served:
    process: subprocess.Popen[bytes]
    log: Path

    def stop(self, sig: signal.Signals) -> str:
        """Send the signal, wait for the process to end, return everything it printed."""
        self.process.send_signal(sig)
        self.process.wait(timeout=SERVE_STOP_S)
        return self.log.read_text()


@contextmanager
def serving(env: dict[str, str], folder: Path) -> Iterator[Served]:
    """`recmem serve` as a process of its own, ready (Neo4j answers, schema migrated); on the
    env's RECMEM_API_PORT if set, else on a free port."""
    port = int(env.get("RECMEM_API_PORT") or free_port())
    log = folder / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [RECMEM, "serve", "--log-level", "warning"],
            env=env | {"RECMEM_API_PORT": str(port)},
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=folder,
        )
    try:
        _poll(_ready(f"http://127.0.0.1:{port}", process, log), NEO4J_START_S, "recmem serve was not ready")
        yield Served(process, log)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)


# Ctrl-C ends the process as typer ends any command on KeyboardInterrupt; SIGTERM as uvicorn alone
# would, by the signal itself.
EXIT_ON = {signal.SIGTERM: -signal.SIGTERM, signal.SIGINT: 130}


def _serve_starting_neo4j(tmp_path: Path) -> tuple[dict[str, str], LocalNeo4j]:
    """The environment of a `recmem serve` that starts a small Neo4j of its own in tmp_path, and a
    handle on that Neo4j (to see it run and to stop it if the test fails)."""
    home, (port, api_port) = tmp_path / "neo4j", free_ports(2)
    env = _clean_env() | {
        "RECMEM_NEO4J_HOME": str(home),
        "RECMEM_NEO4J_PORT": str(port),
        "RECMEM_NEO4J_HEAP": "512m",
        "RECMEM_NEO4J_PAGECACHE": "64m",
        "RECMEM_API_PORT": str(api_port),
    }
    return env, LocalNeo4j(Neo4jSettings(home=home, port=port, password=None))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_serve_stops_the_neo4j_it_started(sig: signal.Signals, tmp_path: Path) -> None:
    env, server = _serve_starting_neo4j(tmp_path)
    try:
        with serving(env, tmp_path) as served:
            pid = server.status().pid
            assert pid is not None and _neo4j_alive(pid)
            output = served.stop(sig)
        assert served.process.returncode == EXIT_ON[sig], output[-3000:]
        _poll(lambda: not _neo4j_alive(pid), 30.0, "the Neo4j that serve started still runs")
        assert f"stopped the local Neo4j this service started (pid {pid})" in output
        assert output.count(OFFLINE_LOG) == 1  # once per service start
    finally:
        server.stop()  # a failing test must not leave its JVM behind


def test_serve_stopped_while_starting_neo4j_stops_it(tmp_path: Path) -> None:
    env, server = _serve_starting_neo4j(tmp_path)
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [RECMEM, "serve"], env=env, stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path
        )
    try:
        # The JVM is spawned (its pid file written) well before Bolt answers.
        _poll(lambda: bool(_pid_in(server.pid_file)) or process.poll() is not None, NEO4J_START_S, "no pid")
        pid = _pid_in(server.pid_file)
        assert pid is not None and process.poll() is None, log.read_text()[-3000:]
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=SERVE_STOP_S)
        assert process.returncode == -signal.SIGTERM, log.read_text()[-3000:]
        assert not _neo4j_alive(pid)
        assert "stopped the local Neo4j again: its start was interrupted" in log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)
        server.stop()


def test_serve_leaves_a_neo4j_it_found_running(neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    env = _env_for(neo4j_settings)
    # The session's own server (else CI's, at RECMEM_TEST_NEO4J_URI): made serve's local server, so
    # that serve sees the local Neo4j it would otherwise start already answering.
    local = neo4j_settings.home.exists()
    if local:
        env |= {"RECMEM_NEO4J_HOME": str(neo4j_settings.home), "RECMEM_NEO4J_PORT": str(neo4j_settings.port)}
    before = LocalNeo4j(neo4j_settings).status().pid
    with serving(env, tmp_path) as served:
        output = served.stop(signal.SIGTERM)
    assert served.process.returncode == -signal.SIGTERM, output[-3000:]
    assert "starting the local Neo4j" not in output and "stopped the local Neo4j" not in output
    assert reachable(neo4j_settings)
    if local:
        assert before is not None and LocalNeo4j(neo4j_settings).status().pid == before
        assert _neo4j_alive(before)


# --- serve's refusals to start ------------------------------------------------------------------


def _serve_once(env: dict[str, str], folder: Path) -> subprocess.CompletedProcess[str]:
    """`recmem serve` expected to stop by itself; killed (and the test failed) if it serves."""
    try:
        return subprocess.run(
            [RECMEM, "serve", "--log-level", "warning"],
            env=env,
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"recmem serve did not refuse to start:\n{expired.stderr!r}")


@pytest.mark.parametrize(
    ("setting", "status", "message"),
    [
        ({"RECMEM_EMBEDDER_DIMENSION": str(DIMENSION * 2)}, 2, "error: this database was built with"),
        ({"RECMEM_PLANNER": "llm"}, 2, "error: RECMEM_PLANNER=llm needs an LLM endpoint"),
    ],
    ids=["another-embedder", "planner-without-endpoint"],
)
def test_serve_refuses_a_wrong_configuration_in_one_line(
    setting: dict[str, str],
    status: int,
    message: str,
    neo4j_settings: Neo4jSettings,
    db: Database,
    tmp_path: Path,
) -> None:
    """`db`: the session's database is migrated for the test embedder before serve sees it."""
    env = _env_for(neo4j_settings) | {"RECMEM_API_PORT": str(free_port())} | setting
    done = _serve_once(env, tmp_path)
    assert done.returncode == status, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.stderr.splitlines()[-1].startswith(message), done.stderr[-3000:]


def test_serve_on_a_port_in_use_says_so_in_one_line(
    neo4j_settings: Neo4jSettings, db: Database, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = _env_for(neo4j_settings) | {"RECMEM_API_PORT": str(port)}
        done = _serve_once(env, tmp_path)
    assert done.returncode == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.stderr.splitlines()[-1].startswith(f"error: cannot listen on 127.0.0.1:{port}: "), done.stderr
