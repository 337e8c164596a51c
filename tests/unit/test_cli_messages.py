"""The CLI's messages for the three mistakes a user makes most: a unit without a required field,
a file that is not text, and no Neo4j running. Each says what is wrong and what to do."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import get_args

import pytest
from typer.testing import CliRunner

from cli import defaults
from cli.analytics import START_HINT
from cli.main import app, classify
from consolidation.providers.calibration import DEFAULT_TARGET, DEFAULT_THETA_COUNT
from consolidation.providers.reembedding import DEFAULT_BATCH_SIZE
from consolidation.settings import EmbedderKind
from graph.errors import StoreUnavailable
from graph.vocabulary import MAX_BUDGET, MAX_CONTEXT_TOKENS


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, list(args), env=env)
    return result.exit_code, result.stderr.splitlines()


def test_a_missing_field_is_named(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "hi", "occurred_at": "2024-01-01T09:00:00Z"}\n{"speaker": "alice"}\n')
    assert run("ingest", str(path)) == (2, ["error: line 2: text: Field required"])


def test_a_bad_unit_is_named_by_its_own_line_whatever_the_line_endings(tmp_path: Path) -> None:
    """Lines end at LF alone: a U+2028 inside a text split its line in two ("line 1: Invalid
    JSON"); CRLF ends and blank lines leave the numbers the file's own."""
    turn = {"text": "one\u2028two\x85three", "speaker": "a", "occurred_at": "2024-01-01T09:00:00Z"}
    raw = json.dumps(turn, ensure_ascii=False)  # JSON allows these characters unescaped
    assert "\u2028" in raw
    path = tmp_path / "c.jsonl"
    path.write_bytes(f'{raw}\r\n\r\n  \r\n{{"speaker": "alice"}}\r\n'.encode())
    assert run("ingest", str(path)) == (2, ["error: line 4: text: Field required"])


def test_binary_input_says_what_is_wrong_with_it(tmp_path: Path) -> None:
    path = tmp_path / "photo.jsonl"
    path.write_bytes(b'{"text": "hi"}\n\x89PNG\r\n\x1a\n\x00\xff')
    expected = [
        "error: photo.jsonl is not UTF-8 text (byte 15, line 2): expected JSONL or a LoCoMo JSON file"
    ]
    assert run("ingest", str(path)) == (2, expected)
    # calibrate reads the same files the same way
    assert run("calibrate", str(path), "--embedder", "hashing") == (2, expected)


def test_malformed_locomo_json_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text('[{"conversation": ')
    code, lines = run("ingest", str(path))
    assert code == 2
    assert lines[0].startswith("error: locomo.json is not valid JSON: Expecting value")


def test_no_neo4j_says_how_to_start_it() -> None:
    env = {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}", "RECMEM_NEO4J_RETRY_SECONDS": "0.5"}
    code, lines = run("recall", "sushi", "--user", "alice", env=env)
    assert code == 1
    (line,) = lines
    assert line.startswith("error: Neo4j is not reachable")
    assert line.endswith(f"; {START_HINT}")
    assert "`recmem neo4j start`" in START_HINT and "scripts/serve.sh" in START_HINT
    assert "RECMEM_NEO4J_URI" in START_HINT


@pytest.mark.parametrize(
    ("message", "hinted"),
    [
        ("Neo4j is not reachable: refused", True),
        # a message that names the setting already (db reembed adds the hint itself) is not repeated
        (f"Neo4j is not reachable: refused; {START_HINT}", False),
    ],
)
def test_the_start_hint_is_added_once(message: str, hinted: bool) -> None:
    status, line = classify(StoreUnavailable(message))
    assert status == 1
    assert line.count("RECMEM_NEO4J_URI") == 1
    assert line.endswith(START_HINT)
    assert (line == f"{message}; {START_HINT}") is hinted


def test_the_parse_time_defaults_match_the_service() -> None:
    """cli/defaults.py stands in for these so that `recmem --help` need not import them."""
    assert get_args(defaults.EmbedderKind) == get_args(EmbedderKind)
    assert defaults.CALIBRATION_TARGET == DEFAULT_TARGET
    assert defaults.CALIBRATION_THETA_COUNT == DEFAULT_THETA_COUNT
    assert defaults.REEMBED_BATCH_SIZE == DEFAULT_BATCH_SIZE


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_serve_refuses_a_port_out_of_range(port: str) -> None:
    """Refused while parsing: 70000 once listened on 4464 (70000 - 65536), -1 ended in a traceback."""
    # A setting refused at once: a port not refused while parsing must not get to serve.
    env = {"COLUMNS": "200", "RECMEM_EMBEDDER_KIND": "no-such-embedder"}
    result = CliRunner().invoke(app, ["serve", "--port", port], env=env)
    assert result.exit_code == 2
    assert "Invalid value for '--port'" in result.stderr


TURN = {"speaker": "Ann", "text": "hi", "dia_id": "D1:1"}
WHEN = "1:56 pm on 8 May, 2023"


@pytest.mark.parametrize(
    ("samples", "problem"),
    [
        ([1, 2], "sample 1: expected a LoCoMo sample (a JSON object), got int"),
        (["conv-1"], "sample 1: expected a LoCoMo sample (a JSON object), got str"),
        ([{"sample_id": "x"}], "sample 1 (x): missing 'conversation'"),
        ([{"conversation": {"session_1": [TURN]}}], "sample 1: missing 'session_1_date_time'"),
        (
            [
                {
                    "conversation": {
                        "session_1_date_time": WHEN,
                        "session_1": [{"text": "hi", "dia_id": "D1:1"}],
                    }
                }
            ],
            "sample 1: missing 'speaker'",
        ),
        (
            [{"conversation": {"session_1_date_time": WHEN, "session_1": [TURN | {"text": ""}]}}],
            "sample 1: text: String should have at least 1 character",
        ),
        (
            [{"conversation": {"session_1_date_time": "1:56 pm on 31 Feb, 2023", "session_1": [TURN]}}],
            "sample 1: unrecognised LoCoMo session time: '1:56 pm on 31 Feb, 2023'",
        ),
        (
            [{"conversation": {"session_1_date_time": WHEN, "session_1": "hello"}}],
            "sample 1: expected a list of turns in session_1, got str",
        ),
    ],
    ids=[
        "numbers",
        "strings",
        "no-conversation",
        "no-time",
        "no-speaker",
        "empty-text",
        "bad-date",
        "no-list",
    ],
)
def test_a_malformed_locomo_file_is_bad_input_naming_the_sample(
    samples: list[object], problem: str, tmp_path: Path
) -> None:
    """Each was an internal error (KeyError, TypeError, ValueError: exit 1), or for an empty
    text "invalid setting in Unit"."""
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(samples))
    assert run("ingest", str(path)) == (2, [f"error: locomo.json: {problem}"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "error: no unit has enough predecessors to score: the sample is too small"),
        (("--sample", "conv-99"), "error: c.jsonl holds no sample 'conv-99'; its samples: c"),
        (("--theta-count", "3", "--window", "1"), "error: window must hold at least theta_count - 1 units"),
    ],
    ids=["too-small", "unknown-sample", "window"],
)
def test_calibrate_refuses_what_cannot_be_calibrated_with_status_2(
    args: tuple[str, ...], message: str, tmp_path: Path
) -> None:
    """A sample or parameters the user can correct: status 2, as every command (it was 1)."""
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "hi", "speaker": "a", "occurred_at": "2024-01-01T09:00:00Z"}\n')
    assert run("calibrate", str(path), "--embedder", "hashing", *args) == (2, [message])


def test_ingest_refuses_a_sample_the_file_does_not_hold(tmp_path: Path) -> None:
    """It ingested nothing and said "ingested 0 units from 0 conversation(s)" with status 0."""
    turn = {"speaker": "Ann", "text": "hi", "dia_id": "D1:1"}
    conversation = {"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [turn]}
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([{"sample_id": "conv-26", "conversation": conversation}]))
    # Refused before anything connects: the Neo4j of this environment is never reached.
    env = {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}", "RECMEM_NEO4J_RETRY_SECONDS": "0.5"}
    done = run("ingest", str(path), "--sample", "conv-26", "--sample", "conv-62", env=env)
    assert done == (2, ["error: locomo.json holds no sample 'conv-62'; its samples: conv-26"])


@pytest.mark.parametrize(
    ("content", "args"),
    [
        ("", ()),
        ("\n  \n", ()),
        ("[]", ()),
        (json.dumps([{"sample_id": "conv-1", "conversation": {}}]), ()),
        (json.dumps([{"sample_id": "conv-1", "conversation": {}}]), ("--sample", "conv-1")),
    ],
    ids=["empty", "blank-lines", "no-samples", "no-sessions", "selected-sample-empty"],
)
def test_ingest_refuses_a_file_without_units(content: str, args: tuple[str, ...], tmp_path: Path) -> None:
    """It said "ingested 0 units from 1 conversation(s): 0 new, 0 already stored" with status 0."""
    path = tmp_path / "c.json"
    path.write_text(content)
    env = {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}", "RECMEM_NEO4J_RETRY_SECONDS": "0.5"}
    assert run("ingest", str(path), *args, env=env) == (
        2,
        ["error: c.json holds no units to ingest: expected JSONL (one unit per line) or a LoCoMo JSON file"],
    )


@pytest.mark.parametrize(
    ("bad", "setting", "message"),
    [
        ({"metadata": {"topic": {"nested": 1}}}, {}, "line 3 metadata"),
        ({"agent_id": "  "}, {}, "line 3 agent_id"),
        ({"text": "x" * 11}, {"RECMEM_MAX_TEXT_BYTES": "10"}, "line 3 text"),
    ],
    ids=["metadata", "agent", "text-limit"],
)
def test_ingest_refuses_a_bad_unit_naming_its_line_before_anything_is_written(
    tmp_path: Path, bad: dict[str, object], setting: dict[str, str], message: str
) -> None:
    """The remember's checks ran per batch of 50, after the batches before it were written, and
    named the unit by its index in that batch (`interaction 0 metadata`), not its line."""
    good = {"text": "hi", "speaker": "alice", "occurred_at": "2024-01-01T09:00:00Z"}
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(good | bad) + "\n")
    # No Neo4j listens there: refused before anything connects, so nothing is written.
    env = {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}", "RECMEM_NEO4J_RETRY_SECONDS": "0.5"}
    code, lines = run(
        "ingest", str(path), "--user", "alice", "--tenant", "t", "--batch", "1", env=env | setting
    )
    assert code == 2, lines
    assert lines[-1].startswith(f"error: {message}"), lines


@pytest.mark.parametrize("value", [str(2**63), str(-(2**63) - 1)])
def test_an_integer_parameter_beyond_64_bits_is_refused(value: str) -> None:
    """Neo4j's integers are 64-bit: the driver failed to pack it, an internal OverflowError."""
    env = {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}", "RECMEM_NEO4J_RETRY_SECONDS": "0.5"}
    code, lines = run("cypher", "run", "recurring_topics", "-p", f"limit={value}", env=env)
    assert (code, lines) == (
        2,
        [f"error: parameter 'limit' expects integer, got '{value}' (outside Neo4j's 64-bit integers)"],
    )


def test_a_datetime_parameter_beyond_the_year_range_is_refused() -> None:
    """Year 1 at UTC+05:00 is before year 1 in UTC: an internal OverflowError (status 1)."""
    env = {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}", "RECMEM_NEO4J_RETRY_SECONDS": "0.5"}
    value = "0001-01-01T00:00:00+05:00"
    code, lines = run("cypher", "run", "failed_runs", "-p", f"since={value}", env=env)
    assert (code, lines) == (
        2,
        [f"error: parameter 'since' expects datetime, got '{value}' (outside the years 1 to 9999 in UTC)"],
    )


def test_neo4j_logs_prints_as_many_lines_as_asked(tmp_path: Path) -> None:
    """--lines 0 printed each whole log ([-0:] is everything), and --lines -5 all but 5 lines."""
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "debug.log").write_text("".join(f"line {n}\n" for n in range(1, 101)))
    env = {"RECMEM_NEO4J_HOME": str(tmp_path)}
    for lines, shown in (("2", ["line 99", "line 100"]), ("0", [])):
        result = CliRunner().invoke(app, ["neo4j", "logs", "--lines", lines], env=env)
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines()[1:] == shown
    result = CliRunner().invoke(app, ["neo4j", "logs", "--lines", "-5"], env=env)
    assert result.exit_code == 2
    assert "Invalid value for '--lines'" in result.stderr


@pytest.mark.parametrize(("flag", "field"), [("--user", "user_id"), ("--tenant", "tenant")])
def test_ingest_refuses_a_blank_user_or_tenant_before_it_starts(
    tmp_path: Path, flag: str, field: str
) -> None:
    """A blank --user would else fall back to the file's name, and a blank --tenant fail mid-way."""
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "hi", "speaker": "alice", "occurred_at": "2024-01-01T09:00:00Z"}\n')
    # No Neo4j listens there: refused before anything connects, or it would say so.
    env = {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}", "RECMEM_NEO4J_RETRY_SECONDS": "0.5"}
    code, lines = run("ingest", str(path), flag, "  ", env=env)
    assert code == 2
    assert lines[-1] == f"error: {field} must not be empty", lines


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("recall", "sushi", "--user", "  "), "user_id"),
        (("recall", "sushi", "--user", ""), "user_id"),
        (("recall", "sushi", "--user", "alice", "--tenant", " "), "tenant"),
        (("keys", "list", "--tenant", "  "), "tenant"),
        (("keys", "create", "--tenant", " "), "tenant"),
        (("keys", "create", "--tenant", "demo", "--name", " "), "key name"),
        (("keys", "revoke", " "), "key id"),
        (("cypher", "run", "facts_by_kind_status", "--tenant", " "), "tenant"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else v,
)
def test_a_blank_id_is_refused_before_anything_connects(args: tuple[str, ...], field: str) -> None:
    """As ingest refuses one: recall said "unknown user ' '" and `keys list` printed nothing."""
    env = {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}", "RECMEM_NEO4J_RETRY_SECONDS": "0.5"}
    assert run(*args, env=env) == (2, [f"error: {field} must not be empty"])


@pytest.mark.parametrize("option", ["--as-of", "--asked-at"])
@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("yesterday", "not an ISO 8601 date-time: 'yesterday'"),
        ("1700000000", "not an ISO 8601 date-time: '1700000000'"),
        ("2023-05-08T01:30:00+25:00", "not an ISO 8601 date-time: '2023-05-08T01:30:00+25:00'"),
        ("0001-01-01T00:00:00+05:00", "'0001-01-01T00:00:00+05:00' is outside the years 1 to 9999 in UTC"),
    ],
    ids=["words", "epoch", "bad-offset", "out-of-range"],
)
def test_recall_refuses_a_time_that_is_not_iso_8601(option: str, value: str, problem: str) -> None:
    """Seconds since 1970 passed for a date, and a time beyond the year 1 in UTC ended in an
    internal OverflowError (status 1) once Neo4j answered."""
    env = {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}", "RECMEM_NEO4J_RETRY_SECONDS": "0.5"}
    result = CliRunner().invoke(
        app, ["recall", "sushi", "--user", "alice", option, value], env=env | {"COLUMNS": "300"}
    )
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}': {problem}" in " ".join(result.stderr.replace("│", " ").split())


@pytest.mark.parametrize(
    ("option", "value", "bound"),
    [
        ("--sub", "101", MAX_BUDGET),
        ("--epi", "1000000", MAX_BUDGET),
        ("--sem", "-1", 0),
        ("--tokens", "200001", MAX_CONTEXT_TOKENS),
        ("--tokens", "0", 1),
    ],
)
def test_recall_bounds_its_budgets_as_the_api_does(option: str, value: str, bound: int) -> None:
    """Any count passed: `--epi 1000000` asked Neo4j for a million episodes, which GraphQL's
    budget refuses (budget.episodic must be between 0 and 100)."""
    env = {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}", "RECMEM_NEO4J_RETRY_SECONDS": "0.5"}
    result = CliRunner().invoke(app, ["recall", "sushi", "--user", "alice", option, value], env=env)
    assert result.exit_code == 2, result.output
    message = " ".join(result.stderr.replace("│", " ").split())
    # typer words the range as its version does ("0<=x<=100", "less than or equal to 100")
    assert f"Invalid value for '{option}':" in message and str(bound) in message, message


@pytest.mark.parametrize("debug", [("--debug",), ()], ids=["option", "variable"])
def test_debug_shows_the_traceback_and_keeps_the_exit_status(debug: tuple[str, ...], tmp_path: Path) -> None:
    """With --debug (or RECMEM_DEBUG=1) a user error exited with 1, as a bug does, not 2."""
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "hi", "occurred_at": "2024-01-01T09:00:00Z"}\n{"speaker": "alice"}\n')
    env = {} if debug else {"RECMEM_DEBUG": "1"}
    result = CliRunner().invoke(app, [*debug, "ingest", str(path)], env=env)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("Traceback (most recent call last):"), result.stderr
    assert result.stderr.splitlines()[-1] == "graph.errors.InvalidInput: line 2: text: Field required"
