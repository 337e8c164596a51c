"""What the client knows of one GraphQL operation, as recmem_client/generated.py declares it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

# The operation's variables (a TypedDict, for type checking only) and its result.
V = TypeVar("V", bound=Mapping[str, object])
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Document(Generic[V, T]):
    """One operation: its name, whether it is a mutation, its text (with the fragments it uses),
    where its result stands in the response's `data` (from the root field) and as what."""

    name: str
    mutation: bool
    path: tuple[str, ...]
    result: type[T]
    text: str
