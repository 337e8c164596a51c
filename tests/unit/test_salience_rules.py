"""The salience setting: off, the built-in rules, a file of rules and prototypes; bad files refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.salience import SalienceError, detector_for
from consolidation.settings import EngineSettings

EMBEDDER = HashingEmbedder(64)


async def fires(setting: str, text: str, speaker: str = "user") -> str | None:
    detector = detector_for(setting)
    assert detector is not None
    vector = (await EMBEDDER.embed([text]))[0].tolist()
    return await detector.check(EMBEDDER, speaker, text, vector)


async def test_default_rules_name_what_fired() -> None:
    assert await fires("default", "I'm allergic to penicillin.") == "health"
    assert await fires("default", "Please remember that I park on level 3.") == "explicit-request"
    assert await fires("default", "My contract ends on 30 June.") == "deadline"
    assert await fires("default", "I remember when we went hiking.") is None
    assert await fires("default", "My sister is amazing at chess.") is None


async def test_an_assistant_never_fires() -> None:
    assert await fires("default", "You said you are allergic to penicillin.", speaker="assistant") is None


def test_off_is_no_detector() -> None:
    assert detector_for("off") is None


async def test_a_file_adds_rules_and_prototypes(tmp_path: Path) -> None:
    path = tmp_path / "salience.json"
    path.write_text(
        json.dumps(
            {
                "default_rules": False,
                "rules": [{"name": "ticket", "pattern": r"\bticket [A-Z]{2}\d+"}],
                "prototypes": [{"name": "pets", "text": "my cat needs her vet shots", "threshold": 0.99}],
            }
        ),
        encoding="utf-8",
    )
    assert await fires(str(path), "Ticket AB123 is mine.") == "ticket"
    assert await fires(str(path), "my cat needs her vet shots") == "prototype:pets"
    assert await fires(str(path), "I'm allergic to penicillin.") is None  # default rules off


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "[]",
        '{"rules": [{"name": "x"}]}',
        '{"rules": [{"name": "x", "pattern": "("}]}',
        # A misspelt key would otherwise be ignored: the rule or threshold it meant never applies.
        '{"rule": [{"name": "ticket", "pattern": "ticket"}]}',
        '{"prototypes": [{"name": "pets", "text": "my cat", "treshold": 0.9}]}',
        '{"rules": [{"name": "x", "pattern": "a", "flags": "i"}]}',
        # A pattern that matches the empty string fires on every turn.
        '{"rules": [{"name": "x", "pattern": ""}]}',
        '{"rules": [{"name": "x", "pattern": "a*"}]}',
        '{"rules": [{"name": "", "pattern": "a"}]}',
        '{"rules": [{"name": "x", "pattern": "a"}, {"name": "x", "pattern": "b"}]}',
        '{"rules": [{"name": 5, "pattern": "a"}]}',
        '{"rules": {"name": "x", "pattern": "a"}}',
        '{"default_rules": "false"}',
        '{"prototypes": [{"name": "p", "text": " ", "threshold": 0.9}]}',
        # A cosine never exceeds 1: such a prototype never fires.
        '{"prototypes": [{"name": "p", "text": "x", "threshold": 2}]}',
        '{"prototypes": [{"name": "p", "text": "x", "threshold": NaN}]}',
        '{"prototypes": [{"name": "p", "text": "x", "threshold": "0.9"}]}',
        '{"prototypes": [{"name": "p", "text": "x", "threshold": true}]}',
    ],
)
def test_a_bad_file_is_refused_at_startup(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SalienceError):
        detector_for(str(path))
    with pytest.raises(ValueError, match="RECMEM_SALIENCE"):
        EngineSettings(salience=str(path))


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SalienceError, match="cannot read"):
        detector_for(str(tmp_path / "missing.json"))
