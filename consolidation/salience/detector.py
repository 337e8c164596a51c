"""The salience check: the first rule that matches a turn, else the first prototype it is close to.

`RECMEM_SALIENCE` is `off`, `default` (the built-in rules) or a path to a JSON file:
`{"default_rules": true, "rules": [{"name": ..., "pattern": ...}],
"prototypes": [{"name": ..., "text": ..., "threshold": 0.6}]}`. A prototype fires when the cosine
of the turn's stored vector and the prototype's (embedded once, as bare text) reaches its
threshold. Turns by an assistant or the system never fire: salience is what the user says.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from consolidation.providers.embedders import Embedder
from consolidation.salience.rules import DEFAULT_RULES, Rule

OFF = "off"
DEFAULT = "default"
PROTOTYPE_THRESHOLD = 0.6
NOT_USERS = frozenset({"assistant", "system", "tool", "ai", "bot"})


class SalienceError(ValueError):
    """The salience setting names no readable, well-formed prototypes file."""


@dataclass(frozen=True)
class Prototype:
    name: str
    text: str
    threshold: float


@dataclass
class SalienceDetector:
    rules: tuple[Rule, ...]
    prototypes: tuple[Prototype, ...] = ()
    _vectors: np.ndarray | None = field(default=None, repr=False)

    async def check(self, embedder: Embedder, speaker: str, text: str, vector: list[float]) -> str | None:
        """The name of the rule or prototype (`prototype:NAME`) that fires on the turn, or None."""
        if speaker.strip().lower() in NOT_USERS:
            return None
        for rule in self.rules:
            if rule.pattern.search(text):
                return rule.name
        if not self.prototypes:
            return None
        if self._vectors is None:
            self._vectors = np.asarray(await embedder.embed([p.text for p in self.prototypes]))
        scores = self._vectors @ np.asarray(vector, dtype=np.float32)
        for prototype, score in zip(self.prototypes, scores, strict=True):
            if float(score) >= prototype.threshold:
                return f"prototype:{prototype.name}"
        return None


def detector_for(setting: str) -> SalienceDetector | None:
    """The detector a `RECMEM_SALIENCE` value names (None: off); raises SalienceError on a bad file."""
    if setting == OFF:
        return None
    if setting == DEFAULT:
        return SalienceDetector(DEFAULT_RULES)
    return _from_file(Path(setting))


def _from_file(path: Path) -> SalienceDetector:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SalienceError(f"RECMEM_SALIENCE: cannot read {path} as JSON ({error})") from error
    if not isinstance(data, dict):
        raise SalienceError(f"RECMEM_SALIENCE: {path} must hold a JSON object")
    try:
        _only_keys("the file", data, {"default_rules", "rules", "prototypes"})
        default_rules = data.get("default_rules", True)
        if not isinstance(default_rules, bool):
            raise ValueError("default_rules must be true or false")
        rules = tuple(_rule(entry) for entry in _entries(data, "rules"))
        prototypes = tuple(_prototype(entry) for entry in _entries(data, "prototypes"))
        names = [rule.name for rule in rules] + [prototype.name for prototype in prototypes]
        if len(set(names)) < len(names):
            raise ValueError("two rules or prototypes have the same name")
    except (KeyError, TypeError, ValueError, re.error) as error:
        raise SalienceError(f"RECMEM_SALIENCE: {path}: bad rule or prototype ({error})") from error
    if default_rules:
        rules = DEFAULT_RULES + rules
    return SalienceDetector(rules, prototypes)


def _only_keys(what: str, entry: dict[str, object], allowed: set[str]) -> None:
    # A misspelt key would be ignored silently, and what it meant would never apply.
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise ValueError(f"{what} has unknown keys {unknown}; it takes {sorted(allowed)}")


def _entries(data: dict[str, object], key: str) -> list[dict[str, object]]:
    entries = data.get(key, [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ValueError(f"{key} must be a list of objects")
    return entries


def _text(entry: dict[str, object], key: str) -> str:
    value = entry[key]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key} must be a non-empty string")
    return value


def _rule(entry: dict[str, object]) -> Rule:
    _only_keys("a rule", entry, {"name", "pattern"})
    rule = Rule.of(_text(entry, "name"), _text(entry, "pattern"))
    if rule.pattern.search(""):
        raise ValueError(f"rule {rule.name!r} matches an empty text, so it would fire on every turn")
    return rule


def _prototype(entry: dict[str, object]) -> Prototype:
    _only_keys("a prototype", entry, {"name", "text", "threshold"})
    name = _text(entry, "name")
    threshold = entry.get("threshold", PROTOTYPE_THRESHOLD)
    # A cosine is at most 1: above it the prototype never fires, at 0 or below almost always.
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold <= 1:
        raise ValueError(f"prototype {name!r}: threshold must be a number above 0 and at most 1")
    return Prototype(name, _text(entry, "text"), float(threshold))
