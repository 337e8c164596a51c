"""JSON `data` -> the typed results of recmem_client/generated.py, shared by both clients.

One decoder reads every record: it walks the dataclass's fields, reads each under its wire name
(the field's name in camelCase, as the SDL spells it) and checks it against the field's annotation,
which is the type the SDL promises. Anything else raises ProtocolError rather than handing the
caller a half-typed object (a client and service of different versions, a proxy answering for the
service).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, is_dataclass
from datetime import datetime
from enum import StrEnum
from types import NoneType, UnionType
from typing import Any, TypeVar, cast, get_args, get_origin, get_type_hints

from recmem_client.errors import ProtocolError

Obj = Mapping[str, Any]
R = TypeVar("R")


# -- checked values ----------------------------------------------------------------------------


def _bad(name: str, value: object, expected: str) -> ProtocolError:
    return ProtocolError(f"unexpected response: {name} is {type(value).__name__}, expected {expected}")


def _get(o: Obj, name: str) -> Any:
    if name not in o:
        raise ProtocolError(f"unexpected response: {name} is missing")
    return o[name]


def _obj(value: object, name: str) -> Obj:
    if not isinstance(value, Mapping):
        raise _bad(name, value, "an object")
    return value


def _list(value: object, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise _bad(name, value, "a list")
    return value


def _ids(value: object, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(name, value, "a list of ids")
    return value


def _str(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise _bad(name, value, "a string")
    return value


def _int(value: object, name: str) -> int:
    # bool is an int in Python; JSON's true is not a count.
    if not isinstance(value, int) or isinstance(value, bool):
        raise _bad(name, value, "an integer")
    return value


def _float(value: object, name: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise _bad(name, value, "a number")
    return float(value)


def _bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise _bad(name, value, "a boolean")
    return value


def _time(value: object, name: str) -> datetime:
    text = _str(value, name)
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise ProtocolError(f"unexpected response: {name} is not an ISO 8601 time: {text!r}") from None


def _enum(value: object, name: str, kind: type[StrEnum]) -> StrEnum:
    text = _str(value, name)
    try:
        return kind(text)
    except ValueError:
        raise ProtocolError(f"unexpected response: {name} {text!r} is not a {kind.__name__}") from None


def _json(value: object, _name: str) -> Any:
    return value


_SCALARS: Mapping[object, Callable[[object, str], Any]] = {
    Any: _json,
    str: _str,
    int: _int,
    float: _float,
    bool: _bool,
    datetime: _time,
}


def _value(annotation: Any, value: object, name: str) -> Any:
    """`value`, sent under the wire name `name`, as the type `annotation` (one of generated.py's)."""
    if isinstance(annotation, UnionType):  # `X | None`, the only union generated.py declares
        (present,) = (arg for arg in get_args(annotation) if arg is not NoneType)
        return None if value is None else _value(present, value, name)
    sequence = get_origin(annotation)
    if sequence is tuple or sequence is list:  # tuple[X, ...] in records, list[X] in results
        item = get_args(annotation)[0]
        if item is str:
            return sequence(_ids(value, name))
        return sequence(_value(item, v, name) for v in _list(value, name))
    if isinstance(annotation, type) and is_dataclass(annotation):
        return _record(annotation, _obj(value, name))
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        return _enum(value, name, annotation)
    return _SCALARS[annotation](value, name)


# -- records -----------------------------------------------------------------------------------


def _camel(snake: str) -> str:
    head, *words = snake.split("_")
    return head + "".join(word.capitalize() for word in words)


@functools.cache
def _wire_fields(cls: type) -> tuple[tuple[str, str, Any], ...]:
    """(field name, wire name, annotation) of each field of a record, in declaration order."""
    hints = get_type_hints(cls)
    return tuple((f.name, _camel(f.name), hints[f.name]) for f in fields(cls))


def _record(cls: type, o: Obj) -> Any:
    """The record `cls` (a dataclass of generated.py) read from its JSON object."""
    values = {field: _value(annotation, _get(o, wire), wire) for field, wire, annotation in _wire_fields(cls)}
    return cls(**values)


def result(data: Obj, path: Sequence[str], kind: type[R]) -> R:
    """An operation's result: the value at `path` in `data` (its root field first), as `kind`."""
    *parents, last = path
    for name in parents:
        data = _obj(_get(data, name), name)
    return cast(R, _value(kind, _get(data, last), last))
