"""Maps rows returned by Cypher to the records in `graph.models` (and the stores' own records).

One generic decoder reads a record's fields from its type hints: a row carries each field under
the field's name, and the hint says how to read it: an instant, a number or a flag converted, a
record (or a list of records) decoded by its own decoder, anything else as the driver returns it.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, Union, get_args, get_origin, get_type_hints

from graph import models
from graph.models import to_python
from graph.scopes import metadata_from

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")
Data = dict[str, Any]
Read = Callable[[Data], Any]


def instant(value: Any) -> Any:
    """A stored instant: the driver's DateTime, or `toString()` of one, which hot reads return
    because the driver's pure-Python temporal decoding is slow; `fromisoformat` is in C
    (docs/benchmarks/service.md#what-was-cut-and-what-each-costs). A named zone
    (`...+01:00[Europe/Paris]`) keeps its offset, so the instant is exact."""
    if isinstance(value, str):
        return datetime.fromisoformat(value.split("[", 1)[0])
    return to_python(value)


def _as_stored(value: Any) -> Any:
    return value


_CONVERT: dict[Any, Callable[[Any], Any]] = {datetime: instant, int: int, float: float, bool: bool}
# Each record's decoder, for the records that nest it; a record is decoded after those it holds.
_DECODERS: dict[Any, Callable[[Any], Any]] = {}


def decoder(record: type[R], **derived: Read) -> Callable[[Data], R]:
    """A function building `record` from a row; `derived` reads the fields a row does not carry
    under their own name. A field hinted `X | None` may be absent or null, and reads as None."""
    hints = get_type_hints(record)
    readers = [(f.name, derived.get(f.name) or _reader(f.name, hints[f.name])) for f in fields(record)]

    def decode(data: Data) -> R:
        return record(**{name: read(data) for name, read in readers})

    _DECODERS.setdefault(record, decode)
    return decode


def _reader(name: str, hint: Any) -> Read:
    args = get_args(hint)
    if get_origin(hint) in (types.UnionType, Union) and type(None) in args:
        (present,) = [arg for arg in args if arg is not type(None)]
        convert = _converter(present)
        return lambda data: None if (value := data.get(name)) is None else convert(value)
    convert = _converter(hint)
    return lambda data: convert(data[name])


def _converter(hint: Any) -> Callable[[Any], Any]:
    if get_origin(hint) is list:
        (item,) = get_args(hint)
        if is_dataclass(item):
            decode = _record_decoder(item)
            return lambda values: [decode(value) for value in values]
    if is_dataclass(hint):
        return _record_decoder(hint)
    return _CONVERT.get(hint, _as_stored)


def _record_decoder(record: Any) -> Callable[[Any], Any]:
    if record not in _DECODERS:
        raise TypeError(f"{record.__name__} has no decoder yet: define it before the records holding it")
    return _DECODERS[record]


interaction_from = decoder(
    models.Interaction,
    # Pending means `gate_checked = false`, as the sweeper and the backlog count it.
    pending=lambda data: data["gate_checked"] is False if "gate_checked" in data else None,
    metadata=lambda data: metadata_from(data.get("metadata")),
    # A turn stored before offsets were kept has none: it reads as UTC.
    utc_offset_s=lambda data: int(data.get("utc_offset_s") or 0),
)
episode_from = decoder(models.Episode)
fact_from = decoder(models.Fact)
run_from = decoder(models.ConsolidationRun)
user_from = decoder(models.User)
user_stats_from = decoder(models.UserStats)
replacement_from = decoder(models.Replacement)
# The relations browsing reads per node (graph/browse.py).
fact_sources_from = decoder(models.FactSources)
fact_links_from = decoder(models.FactLinks)
derived_from = decoder(models.Derived)
run_links_from = decoder(models.RunLinks)
provenance_from = decoder(
    models.Provenance,
    episodes=lambda data: [_episode_with_sources(e) for e in data["episodes"]],
)


def _episode_with_sources(data: Data) -> models.EpisodeWithSources:
    sources = [(interaction_from(s["interaction"]), s["similarity"]) for s in data["sources"]]
    return models.EpisodeWithSources(episode_from(data["episode"]), sources)
