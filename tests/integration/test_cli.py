"""The `recmem` commands against the session's Neo4j, in this process (typer's CliRunner): what
`recall` reads its times as, and what `keys revoke` says of a key revoked already."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cli.main import app
from graph.settings import Neo4jSettings
from tests.support.engines import DIMENSION, TEST_TEMPLATE


@pytest.fixture(scope="module")
def cli_env(neo4j_settings: Neo4jSettings) -> dict[str, str | None]:
    """The CLI's settings pointed at the session's Neo4j, none of the developer's RECMEM_* kept."""
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("RECMEM_")}
    env |= {
        "RECMEM_NEO4J_URI": neo4j_settings.uri,
        "RECMEM_NEO4J_PASSWORD": neo4j_settings.resolved_password(),
        "RECMEM_EMBEDDER_KIND": "hashing",
        "RECMEM_EMBEDDER_DIMENSION": str(DIMENSION),
        "RECMEM_EMBEDDING_TEMPLATE": TEST_TEMPLATE,
        "COLUMNS": "200",
    }
    return env


def run(env: dict[str, str | None], *args: str) -> Result:
    return CliRunner().invoke(app, list(args), env=env)


@dataclass(frozen=True)
class Hiker:
    tenant: str
    user: str


@pytest.fixture(scope="module")
def hiker(cli_env: dict[str, str | None], tmp_path_factory: pytest.TempPathFactory) -> Hiker:
    """One turn, said on 7 May 2023 at 10:00 UTC, ingested for a user of a tenant of its own."""
    path = tmp_path_factory.mktemp("cli") / "hike.jsonl"
    turn = {"speaker": "Ann", "text": "I went hiking with my dog", "occurred_at": "2023-05-07T10:00:00Z"}
    path.write_text(json.dumps(turn) + "\n", encoding="utf-8")
    hiker = Hiker(f"cli-{uuid.uuid4().hex[:12]}", "ann")
    done = run(cli_env, "ingest", str(path), "--tenant", hiker.tenant, "--user", hiker.user)
    assert done.exit_code == 0, done.output
    assert done.stdout == "ingested 1 unit from 1 conversation: 1 new, 0 already stored\n"
    return hiker


def test_a_crlf_file_with_blank_lines_ingests_as_lf_and_says_what_it_skipped(
    cli_env: dict[str, str | None], tmp_path: Path
) -> None:
    """CRLF ends, blank lines and a U+2028 inside a text (JSON allows it unescaped): every turn
    ingested whole, and the summary counts the blank lines it skipped (it said nothing of them,
    and refused the U+2028 turn as "Invalid JSON")."""
    turns = [
        {"speaker": "Ann", "text": "I keep bees\u2028on the roof", "occurred_at": "2023-05-07T10:00:00Z"},
        {"speaker": "Ann", "text": "The honey is dark", "occurred_at": "2023-05-07T10:01:00Z"},
    ]
    path = tmp_path / "bees.jsonl"
    first, second = (json.dumps(t, ensure_ascii=False) for t in turns)
    path.write_bytes(f"{first}\r\n\r\n{second}\r\n \r\n".encode())
    tenant = f"cli-{uuid.uuid4().hex[:12]}"
    done = run(cli_env, "ingest", str(path), "--tenant", tenant, "--user", "ann")
    assert done.exit_code == 0, done.output
    assert done.stdout == (
        "ingested 2 units from 1 conversation: 2 new, 0 already stored; 2 blank lines skipped\n"
    )
    done = run(cli_env, "recall", "bees", "--tenant", tenant, "--user", "ann", "--tokens", "200")
    assert done.exit_code == 0, done.output
    assert "I keep bees\u2028on the roof" in done.stdout, done.stdout


@pytest.fixture
def far_east(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The machine's local zone is UTC+05:30 for the test."""
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_an_as_of_without_a_zone_is_utc_whatever_the_machine_zone(
    cli_env: dict[str, str | None], hiker: Hiker, far_east: None
) -> None:
    """It was read in the machine's zone: on a UTC+05:30 machine, memory as of 10:00:30 UTC lost
    the turn said at 10:00 UTC (it read 04:30:30 UTC), though --help says "UTC if no zone"."""
    for as_of in ("2023-05-07T10:00:30", "2023-05-07T10:00:30Z", "2023-05-07T15:30:30+05:30"):
        done = run(
            cli_env, "recall", "hiking", "--tenant", hiker.tenant, "--user", hiker.user, "--as-of", as_of
        )
        assert done.exit_code == 0, done.output
        assert "I went hiking with my dog" in done.stdout, as_of
    done = run(
        cli_env, "recall", "hiking", "--tenant", hiker.tenant, "--user", hiker.user, "--as-of", "2023-05-07"
    )
    assert done.exit_code == 0, done.output
    assert "I went hiking" not in done.stdout  # midnight UTC, before the turn


def test_asked_at_keeps_its_offset_for_the_asker_calendar(
    cli_env: dict[str, str | None], hiker: Hiker
) -> None:
    """22:00 on 7 May at UTC-05:00 is 8 May in UTC: "yesterday" is 6 May for the asker, and
    without a zone the time is UTC's."""
    question = "What did Ann do yesterday?"
    args = ["recall", question, "--tenant", hiker.tenant, "--user", hiker.user, "--tokens", "200"]
    for asked_at, window in (
        ("2023-05-07T22:00:00-05:00", "on 6 May 2023"),
        ("2023-05-08T03:00:00", "on 7 May 2023"),
        ("2023-05-08T03:00:00Z", "on 7 May 2023"),
    ):
        done = run(cli_env, *args, "--asked-at", asked_at)
        assert done.exit_code == 0, done.output
        assert f"plan: window {window} ('yesterday')" in done.stdout, asked_at


def test_the_plan_line_shows_the_window_on_the_asker_calendar(
    cli_env: dict[str, str | None], hiker: Hiker
) -> None:
    """01:30 on 8 May at UTC+05:00: "yesterday" is 7 May for the asker, and the planner reads it
    so; the plan line printed the window's UTC bounds, "06 May 2023 to 07 May 2023"; it names
    the one day, "on 7 May 2023"."""
    args = ["recall", "What did Ann do yesterday?", "--tenant", hiker.tenant, "--user", hiker.user]
    done = run(cli_env, *args, "--tokens", "200", "--asked-at", "2023-05-08T01:30:00+05:00")
    assert done.exit_code == 0, done.output
    assert "plan: window on 7 May 2023 ('yesterday')" in done.stdout


def test_revoking_a_key_again_says_when_it_was_revoked_and_fails(cli_env: dict[str, str | None]) -> None:
    """It said "revoked <id>" again with status 0, as if the key had been live until then."""
    tenant = f"cli-{uuid.uuid4().hex[:12]}"
    created = run(cli_env, "keys", "create", "--tenant", tenant, "--json")
    assert created.exit_code == 0, created.output
    key_id = json.loads(created.stdout)["id"]
    first = run(cli_env, "keys", "revoke", key_id)
    assert (first.exit_code, first.stdout) == (0, f"revoked {key_id} ({tenant})\n"), first.output
    (listed,) = run(cli_env, "keys", "list", "--tenant", tenant, "--json").stdout.splitlines()
    revoked_at = json.loads(listed)["revoked_at"]
    assert revoked_at is not None
    again = run(cli_env, "keys", "revoke", key_id)
    assert again.exit_code == 1, again.output
    assert again.stdout == ""
    assert again.stderr.splitlines() == [f"error: {key_id} ({tenant}) was already revoked at {revoked_at}"]
    (still,) = run(cli_env, "keys", "list", "--tenant", tenant, "--json").stdout.splitlines()
    assert json.loads(still)["revoked_at"] == revoked_at
