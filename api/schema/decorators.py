"""Typed spellings of strawberry's resolver decorators.

`strawberry.field(description=...)` is declared to return Any, which strict mypy rejects as an
untyped decorator; these return exactly the same objects, typed as the function they decorate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import strawberry

F = TypeVar("F", bound=Callable[..., Any])


def resolver(description: str) -> Callable[[F], F]:
    return cast("Callable[[F], F]", strawberry.field(description=description))


def mutation(description: str) -> Callable[[F], F]:
    return cast("Callable[[F], F]", strawberry.mutation(description=description))


def subscription(description: str) -> Callable[[F], F]:
    return cast("Callable[[F], F]", strawberry.subscription(description=description))
