"""Scopes: the agent, session, speaker and metadata an item of memory belongs to, as tokens.

Every memory node carries `scopes`, a list of strings: an interaction its own ("agent:a1",
"session:s1", "speaker:user", one "meta:<key>=<json>" per scalar value or list element), an episode
or a fact the union of its sources' (docs/scopes.md#inheritance). A filter is a list of groups of
tokens; a node matches when each group shares a token with its scopes (equality: one token; `in`:
several). `check_scopes` is the one check of an agent, a session and a metadata map, for a turn
and for a fact a person adds (docs/scopes.md#facts-added-by-hand).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.errors import InvalidInput
from graph.validation import require_name
from graph.vocabulary import (
    MAX_METADATA_BYTES,
    MAX_METADATA_KEY_BYTES,
    MAX_METADATA_KEYS,
    MAX_METADATA_LIST_ITEMS,
    MAX_METADATA_VALUE_BYTES,
)

# A metadata value as stored: a string, a number, a flag, or a list of strings.
MetadataScalar = str | int | float | bool
MetadataValue = MetadataScalar | list[str]
Metadata = Mapping[str, MetadataValue]
# Letters, digits, `_`, `.`, `-`; starting with a letter or `_`.
KEY_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")

AGENT = "agent:"
SESSION = "session:"
SPEAKER = "speaker:"
META = "meta:"


def canonical(value: MetadataScalar) -> str:
    """A scalar as its token writes it: JSON, with an integral float as the integer (1.0 == 1)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value, ensure_ascii=False)


def meta_token(key: str, value: MetadataScalar) -> str:
    return f"{META}{key}={canonical(value)}"


def scope_tokens(
    agent_id: str | None, session_id: str | None, speaker: str | None, metadata: Metadata | None
) -> list[str]:
    """An interaction's scopes (or a fact's added by hand: no speaker), in a stable order."""
    tokens = [f"{AGENT}{agent_id}"] if agent_id is not None else []
    tokens += [f"{SESSION}{session_id}"] if session_id is not None else []
    tokens += [f"{SPEAKER}{speaker}"] if speaker is not None else []
    for key, value in sorted((metadata or {}).items()):
        values = value if isinstance(value, list) else [value]
        tokens.extend(dict.fromkeys(meta_token(key, v) for v in values))
    return tokens


def scoped_ids(scopes: Sequence[str] | None, prefix: str) -> list[str]:
    """The ids of one kind (AGENT, SESSION, SPEAKER) among `scopes`, sorted."""
    return sorted(t[len(prefix) :] for t in scopes or [] if t.startswith(prefix))


def metadata_json(metadata: Metadata | None) -> str | None:
    """The map as stored (compact JSON, keys sorted); None for no or an empty map."""
    if not metadata:
        return None
    return json.dumps(dict(metadata), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def metadata_from(stored: Any) -> dict[str, MetadataValue] | None:
    """The map a node stores as JSON, or None."""
    if stored is None:
        return None
    found: dict[str, MetadataValue] = json.loads(stored)
    return found


def _size(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


def metadata_problem(metadata: Mapping[str, Any]) -> str | None:
    """What is wrong with a metadata map (naming the key and the rule), or None."""
    if not isinstance(metadata, Mapping):
        return "metadata must be an object of keys to values"
    if len(metadata) > MAX_METADATA_KEYS:
        return f"metadata has {len(metadata)} keys; at most {MAX_METADATA_KEYS} are allowed"
    for key, value in metadata.items():
        if (problem := key_problem(key)) is not None:
            return problem
        problem = value_problem(value)
        if problem is not None:
            return f"metadata {key!r}: {problem}"
    if _size(metadata_json(metadata) or "") > MAX_METADATA_BYTES:
        return f"metadata is larger than {MAX_METADATA_BYTES} bytes as JSON"
    return None


def check_scopes(
    agent_id: str | None,
    session_id: str | None,
    metadata: Any,
    label: str = "{field}",
) -> None:
    """Raises InvalidInput for a blank or overlong agent or session id, or a metadata map that
    breaks a rule above; `label` names a field ("agent_id", ...) in the refusal."""
    if agent_id is not None:
        require_name(label.format(field="agent_id"), agent_id)
    if session_id is not None:
        require_name(label.format(field="session_id"), session_id)
    if metadata is not None and (problem := metadata_problem(metadata)) is not None:
        raise InvalidInput(f"{label.format(field='metadata')}: {problem}")


def key_problem(key: Any) -> str | None:
    """What is wrong with one metadata key (a map's or a filter condition's), or None."""
    if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key):
        return (
            f"metadata key {str(key)[:80]!r} is not allowed: letters, digits, '_', '.' and '-', "
            "starting with a letter or '_'"
        )
    if _size(key) > MAX_METADATA_KEY_BYTES:
        return f"metadata key {key[:80]!r} is longer than {MAX_METADATA_KEY_BYTES} bytes"
    return None


def value_problem(value: Any) -> str | None:
    """What is wrong with one metadata value, or None."""
    if isinstance(value, list):
        if len(value) > MAX_METADATA_LIST_ITEMS:
            return f"a list holds at most {MAX_METADATA_LIST_ITEMS} strings; got {len(value)}"
        if not all(isinstance(v, str) for v in value):
            return "a list may hold strings only"
        for item in value:
            if (problem := scalar_problem(item)) is not None:
                return f"in its list: {problem}"
        if _size(json.dumps(value, ensure_ascii=False)) > MAX_METADATA_VALUE_BYTES:
            return f"the value is larger than {MAX_METADATA_VALUE_BYTES} bytes as JSON"
        return None
    return scalar_problem(value)


def scalar_problem(value: Any) -> str | None:
    """What is wrong with one scalar (a value or a filter's operand), or None."""
    if isinstance(value, bool | int):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else "a number must be finite"
    if isinstance(value, str):
        try:
            size = len(value.encode("utf-8"))
        except UnicodeEncodeError:
            return "the value is not valid Unicode (a lone UTF-16 surrogate)"
        if size > MAX_METADATA_VALUE_BYTES:
            return f"the value is {size} bytes; the limit is {MAX_METADATA_VALUE_BYTES}"
        return None
    return "a value must be a string, a number, a boolean or a list of strings"


@dataclass(frozen=True)
class ScopeFilter:
    """What a store query filters on; each field None (or empty `groups`) filters nothing.

    `groups`: each a tuple of scope tokens of which a node must hold one. `since`/`until`: an
    interaction's occurred_at, an episode's span (first_at to last_at) overlapping the window, a
    fact's valid_from. `valid_since`/`valid_until` and `kinds`: facts only.
    """

    groups: tuple[tuple[str, ...], ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    valid_since: datetime | None = None
    valid_until: datetime | None = None
    kinds: tuple[str, ...] | None = None

    @property
    def active(self) -> bool:
        return self != NO_FILTER

    def params(self) -> dict[str, Any]:
        """The `$f_*` parameters of every query that filters (null: no filter)."""
        return {
            "f_scopes": [list(g) for g in self.groups] if self.groups else None,
            "f_since": self.since,
            "f_until": self.until,
            "f_valid_since": self.valid_since,
            "f_valid_until": self.valid_until,
            "f_kinds": list(self.kinds) if self.kinds is not None else None,
        }


NO_FILTER = ScopeFilter()
