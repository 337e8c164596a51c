"""A population of users to load: the many-tenants bench's layouts, the vector-search bench's
scenarios."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Population:
    """`users` users with `per_user` interactions each, under a name reports use."""

    name: str
    users: int
    per_user: int

    @property
    def interactions(self) -> int:
        return self.users * self.per_user
