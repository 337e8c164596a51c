"""What one case got back, and the checks on an answer: a code on every error, INTERNAL as a
server fault, data or not."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from bench.fuzz.case import Case


@dataclass
class Outcome:
    case: Case
    status: str
    latency_s: float
    codes: list[str] = field(default_factory=list)
    rejected: bool = True
    hang: bool = False
    server_error: bool = False
    missing_code: int = 0
    wrote: bool = False
    detail: str = ""


# Payloads are whatever the service answered (parsed JSON of any shape), hence Any.
def errors_of(payload: Any) -> list[Any]:
    if isinstance(payload, dict):
        errors = payload.get("errors")
        return list(errors) if isinstance(errors, list) else []
    return list(payload) if isinstance(payload, list) else []


def check_errors(errors: list[Any], outcome: Outcome) -> None:
    for error in errors:
        code = error.get("extensions", {}).get("code") if isinstance(error, dict) else None
        if isinstance(code, str) and code:
            outcome.codes.append(code)
            if code == "INTERNAL":  # a masked server fault: a 500 whatever the media type
                outcome.server_error = True
                outcome.detail = outcome.detail or f"INTERNAL: {json.dumps(error)[:300]}"
        else:
            outcome.missing_code += 1
            outcome.detail = outcome.detail or f"error without extensions.code: {json.dumps(error)[:300]}"


def answered_data(payload: Any) -> bool:
    """Whether a result carries data: a non-null value for at least one root field."""
    data = payload.get("data") if isinstance(payload, dict) else None
    return isinstance(data, dict) and any(value is not None for value in data.values())
