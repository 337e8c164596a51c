"""The episodic layer: versioned narratives of recurring topics."""

from __future__ import annotations

from graph.database import Database
from graph.layer_store import LayerStore
from graph.models import Episode
from graph.records import episode_from


class EpisodeStore(LayerStore[Episode]):
    """Searches current versions (or the versions current at `as_of`)."""

    def __init__(self, db: Database, dimension: int) -> None:
        super().__init__(db, dimension, "episodes", "episode", episode_from, Episode.at)
