"""The memory's words, each defined once: what a fact can be, what state it is in, how ids are
prefixed, how long names and texts may be.

Everything else derives from these: the storage checks, the GraphQL enums, the prompt schemas,
the input models.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class FactKind(StrEnum):
    """What kind of statement a fact is."""

    PREFERENCE = "preference"
    ATTRIBUTE = "attribute"
    EVENT = "event"
    PLAN = "plan"
    RELATION = "relation"
    OTHER = "other"


class FactStatus(StrEnum):
    """Where a fact stands in time."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"


FACT_KINDS: tuple[str, ...] = tuple(kind.value for kind in FactKind)
FACT_STATUSES: tuple[str, ...] = tuple(status.value for status in FactStatus)
# FactKind's words as a Literal type, for the prompt schemas (pydantic writes a Literal as an
# inline JSON enum of plain strings); a unit test checks that it names FACT_KINDS, in order.
FactKindName = Literal["preference", "attribute", "event", "plan", "relation", "other"]

# The provider of a run that records a person's change to a fact (docs/corrections.md): a fact
# such a run produced rests on that recorded change, not on the turn it cites. The trigger of a
# correction's run: recall names the beliefs such changes withdrew.
PERSON_PROVIDER = "person"
CORRECTION_TRIGGER = "correction"
# The run that records a change the service made on its own, when it brought older data up to date
# (graph/backfill.py): its provider, its trigger, and who it names as having made it.
SYSTEM_PROVIDER = "system"
UPGRADE_TRIGGER = "upgrade"
UPGRADE_BY = "recmem upgrade"

# -- id prefixes: `new_id(prefix)` makes "<prefix>_<hex>", so a bare id says which label it names.
INTERACTION_ID_PREFIX = "int"
EPISODE_ID_PREFIX = "epi"
FACT_ID_PREFIX = "fact"
RUN_ID_PREFIX = "run"
EVENT_ID_PREFIX = "evt"
API_KEY_ID_PREFIX = "key"
# The memory nodes a consolidation run can read or produce, by the prefix of their ids.
NODE_LABELS: dict[str, str] = {
    INTERACTION_ID_PREFIX: "Interaction",
    EPISODE_ID_PREFIX: "Episode",
    FACT_ID_PREFIX: "Fact",
}

# -- limits on what callers send --------------------------------------------------------------
# Names and ids (tenant, user id, speaker, session id, source ref, node ids in cursors): characters.
MAX_ID_CHARS = 256
# The default bound on one interaction's text (RECMEM_MAX_TEXT_BYTES overrides it): UTF-8 bytes.
DEFAULT_MAX_TEXT_BYTES = 256 * 1024
# A request body's default bound (RECMEM_API_MAX_BODY_BYTES), and the most RECMEM_MAX_TEXT_BYTES
# may be, for `recmem ingest` and `import` alike; the service also needs a body limit with room for
# the longest text (docs/configuration.md#the-body-limit-and-the-text-limit).
DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
# What a consolidation may store: an episode's summary and a fact's text, in UTF-8 bytes.
MAX_SUMMARY_BYTES = 1 << 20
MAX_FACT_BYTES = 1 << 16
# Why a person corrected or retracted a fact: UTF-8 bytes.
MAX_REASON_BYTES = 4096
# A context larger than any current model's window is a mistake, not a request.
MAX_CONTEXT_TOKENS = 200_000
# Hits a recall may ask for per layer (subconscious, episodic, semantic).
MAX_BUDGET = 100

# -- an interaction's metadata map (graph/scopes.py; docs/scopes.md#metadata) ----------------
MAX_METADATA_KEYS = 32
MAX_METADATA_KEY_BYTES = 64
# One value: a string, or a list of strings as JSON; and one string of a list.
MAX_METADATA_VALUE_BYTES = 512
MAX_METADATA_LIST_ITEMS = 32
# The whole map as compact JSON.
MAX_METADATA_BYTES = 4096
# How many values one filter may list (agents, sessions, speakers, one metadata key's `in`).
MAX_FILTER_VALUES = 100


def counted(count: int, noun: str) -> str:
    """A count with its noun as a message writes it: `1 node`, `2 nodes`, `0 nodes` (nouns that
    take an `s`)."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
