"""Reads conversations to ingest: our JSONL format, or the LoCoMo benchmark's JSON format."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from consolidation.types import Unit
from consolidation.writing.checks import check_batch
from graph.errors import InvalidInput
from graph.models import Owner

# LoCoMo stamps sessions like "1:56 pm on 8 May, 2023"; turns inside a session get one-second
# steps so that their order survives as time order.
_LOCOMO_TIME = re.compile(r"(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I)
TURN_STEP = timedelta(seconds=1)


@dataclass(frozen=True)
class Conversation:
    """One stream of units for one user (a LoCoMo sample, or a whole JSONL file)."""

    name: str
    units: list[Unit]
    raw: dict[str, Any] | None = None
    # Where each unit is in the file (`line 3`), for refusals; empty: `<name> unit <n>`.
    places: list[str] = field(default_factory=list)
    # Blank lines of a JSONL file, skipped (the summary says how many).
    blank_lines: int = 0

    def place(self, index: int) -> str:
        return self.places[index] if self.places else f"{self.name} unit {index + 1}"


def read_conversations(path: Path) -> list[Conversation]:
    """JSONL (one Unit object per line) or a LoCoMo list of samples, chosen by content."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InvalidInput(
            f"{path.name} is not UTF-8 text (byte {error.start}, line {line}): "
            "expected JSONL or a LoCoMo JSON file"
        ) from None
    if text.lstrip().startswith("["):
        try:
            samples = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidInput(f"{path.name} is not valid JSON: {error}") from None
        return [_locomo_sample(path.name, number, sample) for number, sample in enumerate(samples, start=1)]
    return [_jsonl(path.stem, text)]


def check_units(conversation: Conversation, owner: Owner, max_text_bytes: int) -> None:
    """The checks a remember makes, for every unit before the first is written: a bad unit is
    refused naming its place in the file (`line 3 metadata: ...`) and nothing is ingested."""
    for index, unit in enumerate(conversation.units):
        place = conversation.place(index).replace("{", "{{").replace("}", "}}")
        check_batch(owner, [unit], max_text_bytes, label=place + " {field}")


def selected(path: Path, conversations: list[Conversation], names: list[str]) -> list[Conversation]:
    """The conversations named (all when none is); a name the file does not hold is bad input,
    rather than a silent selection of nothing."""
    known = [c.name for c in conversations]
    for name in names:
        if name not in known:
            raise InvalidInput(
                f"{path.name} holds no sample {name!r}; its samples: {', '.join(known) or 'none'}"
            )
    return [c for c in conversations if not names or c.name in names]


def _locomo_sample(file: str, number: int, sample: object) -> Conversation:
    """A sample of a LoCoMo file; one not in LoCoMo's shape is bad input naming the sample and
    what is wrong with it (a key missing, a turn refused, a session time not understood)."""
    if not isinstance(sample, dict):
        raise InvalidInput(
            f"{file}: sample {number}: expected a LoCoMo sample (a JSON object), got {type(sample).__name__}"
        )
    where = f"{file}: sample {number}" + (f" ({sample['sample_id']})" if "sample_id" in sample else "")
    try:
        return locomo_conversation(sample)
    except KeyError as missing:
        raise InvalidInput(f"{where}: missing {missing}") from None
    except ValidationError as refused:
        raise InvalidInput(f"{where}: {_problem(refused)}") from None
    except InvalidInput as refused:
        raise InvalidInput(f"{where}: {refused}") from None
    except (TypeError, AttributeError, ValueError) as error:
        raise InvalidInput(f"{where}: not in LoCoMo's shape ({error})") from None


def _jsonl(name: str, text: str) -> Conversation:
    """One unit a line. Lines end at LF alone (a CRLF's CR goes with it): U+2028 and the other
    breaks `str.splitlines` knows may stand inside a JSON string. Blank lines are skipped and
    counted; a unit's place is its line's number in the file."""
    lines = text.split("\n")
    if lines[-1] == "":  # the newline that ends the last line
        lines.pop()
    units, places, blank = [], [], 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            blank += 1
            continue
        try:
            units.append(Unit.model_validate_json(line.removesuffix("\r")))
        except ValidationError as error:
            raise InvalidInput(f"line {number}: {_problem(error)}") from error
        places.append(f"line {number}")
    return Conversation(name, units, places=places, blank_lines=blank)


def _problem(error: ValidationError) -> str:
    """pydantic's first complaint, naming the field it is about ("text: Field required") unless
    the complaint names it already."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    return f"{field}: {first['msg']}" if field and field not in first["msg"] else first["msg"]


def parse_locomo_time(stamp: str) -> datetime:
    match = _LOCOMO_TIME.search(stamp)
    if match is None:
        raise InvalidInput(f"unrecognised LoCoMo session time: {stamp!r}")
    hour, minute, half, day, month, year = match.groups()
    try:
        parsed = datetime.strptime(f"{day} {month} {year}", "%d %B %Y").replace(tzinfo=UTC)
    except ValueError:  # no such month or day
        raise InvalidInput(f"unrecognised LoCoMo session time: {stamp!r}") from None
    hour_24 = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return parsed.replace(hour=hour_24, minute=int(minute))


def locomo_conversation(sample: dict[str, Any]) -> Conversation:
    conversation = sample["conversation"]
    units: list[Unit] = []
    for session in _session_numbers(conversation):
        start = parse_locomo_time(conversation[f"session_{session}_date_time"])
        turns = conversation[f"session_{session}"]
        if not isinstance(turns, list):
            raise InvalidInput(f"expected a list of turns in session_{session}, got {type(turns).__name__}")
        for index, turn in enumerate(turns):
            units.append(
                Unit(
                    text=_turn_text(turn),
                    speaker=turn["speaker"],
                    occurred_at=start + index * TURN_STEP,
                    session_id=f"session_{session}",
                    source_ref=turn["dia_id"],
                )
            )
    return Conversation(str(sample.get("sample_id", "locomo")), units, sample)


def _session_numbers(conversation: dict[str, Any]) -> list[int]:
    numbers = [int(k.split("_")[1]) for k in conversation if re.fullmatch(r"session_\d+", k)]
    return sorted(n for n in numbers if conversation.get(f"session_{n}"))


def _turn_text(turn: dict[str, Any]) -> str:
    """A shared photo is part of what was said; its caption keeps it searchable."""
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    return f"{text} [shares a photo: {caption}]" if caption else text
