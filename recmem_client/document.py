"""What the client knows of one GraphQL operation, as recmem_client/generated.py declares it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Document(Generic[T]):
    """One operation: its name, whether it is a mutation, its text (with the fragments it uses),
    where its result stands in the response's `data` (from the root field) and as what."""

    name: str
    mutation: bool
    path: tuple[str, ...]
    result: type[T]
    text: str
