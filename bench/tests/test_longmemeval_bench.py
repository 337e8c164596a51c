"""bench/locomo over LongMemEval's shape: per-type summaries, session recall, the question's day,
and a run that skips a refused unit and reports it instead of stopping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.locomo.cli import main
from bench.locomo.data import load_samples, question_date, session_of
from bench.locomo.scoring import ranked_sessions, session_recall
from consolidation.types import Recall, RecallHit
from graph.settings import Neo4jSettings
from tests.support.engines import TEST_TEMPLATE

# Over the default RECMEM_MAX_TEXT_BYTES (256 KiB): the run must skip it and go on.
OVERSIZE = "word " * (300 * 1024 // 5)
LONG_ANSWER = "Filler about the weather and the news. " * 60 + "Your locker code is 4417."


def lme_fixture() -> list[dict[str, Any]]:
    """Two questions in LongMemEval-as-LoCoMo shape (User/Assistant, lme_type, question_date)."""

    def sample(name: str, sessions: list[list[tuple[str, str]]], qa: dict[str, Any]) -> dict[str, Any]:
        conversation: dict[str, Any] = {"speaker_a": "User", "speaker_b": "Assistant"}
        for number, turns in enumerate(sessions, start=1):
            conversation[f"session_{number}_date_time"] = f"10:00 am on {number} May, 2023"
            conversation[f"session_{number}"] = [
                {"speaker": s, "dia_id": f"D{number}:{i + 1}", "text": t} for i, (s, t) in enumerate(turns)
            ]
        return {"sample_id": name, "conversation": conversation, "qa": [qa]}

    return [
        sample(
            "q-user",
            [
                [("User", "I bought a red bicycle."), ("Assistant", "Nice!"), ("User", OVERSIZE)],
                [("User", "My sister Maya moved to Lisbon."), ("Assistant", "Lisbon is lovely.")],
            ],
            {
                "question": "Where did my sister Maya move?",
                "answer": "Lisbon",
                "evidence": ["D2:1"],
                "category": 4,
                "lme_type": "single-session-user",
                "question_date": "2023/06/14 (Wed) 13:43",
            },
        ),
        sample(
            "q-assistant",
            [
                [("User", "What is my locker code again?"), ("Assistant", LONG_ANSWER)],
                [("User", "I like tea."), ("Assistant", "Green or black?")],
            ],
            {
                "question": "What locker code did you give me?",
                "answer": "4417",
                "evidence": ["D1:2"],
                "category": 4,
                "lme_type": "single-session-assistant",
                "question_date": "2023/06/20 (Tue) 09:05",
            },
        ),
    ]


def test_questions_keep_their_type_and_day(tmp_path: Path) -> None:
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(lme_fixture()), encoding="utf-8")
    first, second = load_samples(path)
    assert first.questions[0].lme_type == "single-session-user"
    assert first.questions[0].asked_at == question_date("2023/06/14 (Wed) 13:43")
    assert first.questions[0].asked_at is not None and first.questions[0].asked_at.hour == 13
    assert second.questions[0].lme_type == "single-session-assistant"
    assert session_of("D12:3") == 12 and session_of("bogus") is None
    assert question_date("14 June 2023") is None


def test_sessions_rank_by_their_best_item() -> None:
    def hit(hid: str, ids: list[str], score: float) -> RecallHit:
        # arg-type: no item; ranking sessions reads a hit's interaction ids and rank alone.
        return RecallHit("subconscious", hid, "t", 0.5, None, ids, None, rank_score=score)  # type: ignore[arg-type]

    recall = Recall("q", None, [hit("a", ["i1"], 0.1), hit("b", ["i2"], 0.3), hit("c", ["i3"], 0.2)], [], [])
    sessions = {"i1": 1, "i2": 2, "i3": 2}
    assert ranked_sessions(recall, sessions) == [2, 1]
    assert session_recall({1}, [2, 1]) == {"5": 1.0, "10": 1.0}
    assert session_recall({3}, [2, 1, 4, 5, 6, 3]) == {"5": 0.0, "10": 1.0}
    assert session_recall(set(), [2]) == {"5": None, "10": None}


def test_a_run_skips_a_refused_unit_and_reports_it(tmp_path: Path, neo4j_settings: Neo4jSettings) -> None:
    data = tmp_path / "lme.json"
    data.write_text(json.dumps(lme_fixture()), encoding="utf-8")
    out = tmp_path / "results"
    password = neo4j_settings.resolved_password()
    argv = [
        "--data", str(data), "--modes", "raw,focused-raw", "--embedder", "hashing", "--theta-sim", "0.5",
        "--template", TEST_TEMPLATE, "--token-budgets", "250,500",
        "--neo4j-uri", neo4j_settings.uri, "--out", str(out), "--name", "lme", "--quiet",
        *(["--neo4j-password", password] if password else []),
    ]  # fmt: skip
    assert main(argv) == 0
    report = json.loads((out / "lme.json").read_text(encoding="utf-8"))
    skipped = report["skipped"]
    assert [(s["mode"], s["sample"], s["what"]) for s in skipped] == [
        ("raw", "q-user", "unit D1:3"),
        ("focused-raw", "q-user", "unit D1:3"),
    ]
    assert all("RECMEM_MAX_TEXT_BYTES" in s["reason"] and "262144" in s["reason"] for s in skipped)
    for mode in ("raw", "focused-raw"):
        by = report["modes"][mode]["recall"]["by_category"]
        assert by["all"]["questions"] == 2
        assert by["lme:single-session-user"]["questions"] == 1
        assert by["lme:single-session-assistant"]["questions"] == 1
        assert by["all"]["session_recall"] == {"5": 1.0, "10": 1.0}  # two sessions each
    # The long answer turn: raw shows it whole (too long for 250 tokens), focused-raw by its part.
    at_250 = {
        m: report["modes"][m]["recall"]["by_category"]["lme:single-session-assistant"]
        for m in ("raw", "focused-raw")
    }
    assert at_250["focused-raw"]["at_tokens"]["250"]["answer_recall"] == 1.0
    assert at_250["raw"]["at_tokens"]["250"]["answer_recall"] == 0.0
    markdown = (out / "lme.md").read_text(encoding="utf-8")
    assert "## Skipped" in markdown and "session@5" in markdown
