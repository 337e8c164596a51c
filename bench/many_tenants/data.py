"""What the many-tenants bench loads: layouts of users, their topical texts and queries, each user
reproducible from (seed, layout, index) alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from bench.population import Population
from consolidation.providers.embedders import Vectors
from graph.models import Owner

TOPICS = 40
WORDS_PER_TOPIC = 14
TOPICS_PER_USER = 4
_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "nu",
    "re",
    "ta",
    "vo",
    "shi",
    "den",
    "mar",
    "pol",
    "gri",
    "sel",
    "tun",
    "bri",
)
_FRAMES = (
    "I spent the evening on {0} and {1}, then {2} came up again at turn {n}",
    "we talked about {0} with the {1} group; {2} and {3} next week (turn {n})",
    "my notes on {0}: {1} needs {2}, ask about {3} later, turn {n}",
    "turn {n}: back to {0} and {1} after the {2} thing",
)


def parse_layouts(spec: str) -> list[Population]:
    """`10000x100,1000x1000` -> layouts named by their shape."""
    layouts = []
    for part in spec.split(","):
        users, per_user = (int(v) for v in part.lower().split("x"))
        layouts.append(Population(f"{users}x{per_user}", users, per_user))
    return layouts


class Topics:
    """A fixed vocabulary: TOPICS topics of made-up words (so the hashing embedder sees texts of one
    topic share words, as a user's recurring subjects do)."""

    def __init__(self, seed: int) -> None:
        rng = np.random.default_rng([seed, 0])
        self.words = [
            ["".join(rng.choice(_SYLLABLES, size=3)) for _ in range(WORDS_PER_TOPIC)] for _ in range(TOPICS)
        ]

    def texts(self, rng: np.random.Generator, favourites: Sequence[int], n: int) -> list[str]:
        texts = []
        for seq in range(1, n + 1):
            words = self.words[int(rng.choice(favourites))]
            picked = [words[int(i)] for i in rng.choice(len(words), size=4, replace=False)]
            texts.append(_FRAMES[int(rng.integers(len(_FRAMES)))].format(*picked, n=seq))
        return texts

    def queries(self, rng: np.random.Generator, favourites: Sequence[int], n: int) -> list[str]:
        queries = []
        for _ in range(n):
            words = self.words[int(rng.choice(favourites))]
            picked = [words[int(i)] for i in rng.choice(len(words), size=2, replace=False)]
            queries.append(f"what did I say about {picked[0]} and {picked[1]}?")
        return queries


@dataclass
class User:
    """One generated user: owner, texts in seq order (row i is seq i + 1) and, for a probe, its
    vectors and queries kept for the exact answers."""

    owner: Owner
    texts: list[str]
    favourites: list[int]
    vectors: Vectors | None = None
    queries: list[str] = field(default_factory=list)
    query_vectors: Vectors | None = None


class Generator:
    """Every user reproducible from (seed, layout, index) alone, so nothing big stays in memory."""

    def __init__(self, seed: int, run_id: str, users_per_tenant: int) -> None:
        self.seed = seed
        self.run_id = run_id
        self.users_per_tenant = users_per_tenant
        self.topics = Topics(seed)

    def user(self, layout_index: int, layout: Population, index: int) -> User:
        rng = np.random.default_rng([self.seed, layout_index + 1, index])
        tenant = f"mt-{self.run_id}-{layout.name}-{index // self.users_per_tenant:04d}"
        favourites = [int(t) for t in rng.choice(TOPICS, size=TOPICS_PER_USER, replace=False)]
        texts = self.topics.texts(rng, favourites, layout.per_user)
        return User(Owner(tenant, f"user-{index:05d}"), texts, favourites)
