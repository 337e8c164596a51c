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
        rules = tuple(Rule.of(str(r["name"]), str(r["pattern"])) for r in data.get("rules", []))
        prototypes = tuple(
            Prototype(str(p["name"]), str(p["text"]), float(p.get("threshold", PROTOTYPE_THRESHOLD)))
            for p in data.get("prototypes", [])
        )
    except (KeyError, TypeError, ValueError, re.error) as error:
        raise SalienceError(f"RECMEM_SALIENCE: {path}: bad rule or prototype ({error})") from error
    if data.get("default_rules", True):
        rules = DEFAULT_RULES + rules
    return SalienceDetector(rules, prototypes)
