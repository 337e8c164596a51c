"""Each large user's vectors in memory, so that recall's dense search stays exact per user.

Above `EXACT_LIMIT` nodes in a layer a Cypher scan costs too much per recall, and a shared vector
index answers from a graph that other tenants' vectors shape. So the user's vectors are read once,
a page at a time (`recall/vectors.cypher`), and ranked here by plain cosine; the statement
re-scores the best of them, plus every node written since, in the graph (`recall/dense.cypher`).
Every statement that writes a vector numbers it (`vector_no`, counted on the user node); one that
changes or removes vectors starts a new epoch, which makes the cache read the user again. A read
runs in the background, one per user at a time; recall scans in the graph until it is in. The
memory is bounded (least recently used users go first; a user above the budget is read no
further). Why and what it costs: docs/design/algorithm.md#exact-per-user.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from graph.database import Database, Row
from graph.errors import StoreError
from graph.models import Owner

LAYERS = ("interactions", "episodes", "facts")
# A cached node's cosine, computed in float32 here and in float64 in the graph, differs by far less.
TOLERANCE = 1e-4
DEFAULT_BUDGET_BYTES = 256 * 1024 * 1024
# Vectors per read: one statement's result stays a few MB (15 MB at 384 dimensions), and a user
# larger than the budget is known as such after reading the budget's worth, not all of them.
PAGE_VECTORS = 10_000
# After a failed read of a user's vectors, recall scans in the graph for this long before it
# tries again (a failed read would otherwise repeat with every recall of that user).
RETRY_AFTER_S = 60.0

log = logging.getLogger(__name__)

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Shortlist:
    """A layer's best cached nodes for one query: their ids and the lowest cosine among them
    (-2: every cached node, so nothing is left out)."""

    ids: list[str]
    floor: float

    @property
    def complete(self) -> bool:
        return self.floor < -1.0

    def settles(self, hits: int, k: int, last_score: float | None) -> bool:
        """Whether `hits` re-scored hits, the last scoring `last_score`, are the layer's true
        top `k`: a node left out scores at most the floor, so it is when they beat it."""
        if self.complete:
            return True
        return hits >= k and last_score is not None and last_score > self.floor + TOLERANCE


def unit_rows(pairs: list[list[Any]]) -> Matrix:
    """The vectors of (id, vector) pairs as unit rows."""
    vectors = np.stack([np.asarray(v.to_numpy(), dtype=np.float32) for _, v in pairs])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors /= np.where(norms > 0, norms, 1.0)
    return vectors


class LayerVectors:
    """One layer's nodes of one user: ids and unit vectors, row by row."""

    def __init__(self, dimension: int) -> None:
        self.ids: list[str] = []
        self.rows: dict[str, int] = {}
        self.matrix: Matrix = np.zeros((0, dimension), dtype=np.float32)

    def merge(self, ids: list[str], vectors: Matrix) -> None:
        """Adds the unit `vectors`, row by row those of `ids`; a known id gets its new vector."""
        fresh: list[int] = []
        for i, node_id in enumerate(ids):
            row = self.rows.get(node_id)
            if row is None:
                self.rows[node_id] = len(self.ids) + len(fresh)
                fresh.append(i)
            else:
                self.matrix[row] = vectors[i]
        if fresh:
            self.ids.extend(ids[i] for i in fresh)
            self.matrix = np.concatenate([self.matrix, vectors[fresh]])

    def shortlist(self, query: Matrix, size: int) -> Shortlist:
        """The `size` nodes of highest cosine to the unit vector `query`."""
        if size >= len(self.ids):
            return Shortlist(list(self.ids), -2.0)
        scores = self.matrix @ query
        best = np.argpartition(-scores, size - 1)[:size]
        return Shortlist([self.ids[i] for i in best], float(scores[best].min()))

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes)


# A read's nodes per layer: their ids and unit vectors, row by row.
Staged = dict[str, tuple[list[str], Matrix]]


class TooLarge:
    """A read stopped because the user's vectors pass the cache's budget."""


@dataclass
class UserVectors:
    epoch: str
    # The user's vector count when this was read: every node numbered up to it is here.
    known: int
    layers: dict[str, LayerVectors]

    @property
    def nbytes(self) -> int:
        return sum(layer.nbytes for layer in self.layers.values())


class VectorCache:
    """Users' vectors within `budget_bytes`; a user larger than it is never cached (recall then
    scans in the graph, exact but slower)."""

    def __init__(
        self,
        db: Database,
        dimension: int,
        budget_bytes: int = DEFAULT_BUDGET_BYTES,
        page_vectors: int = PAGE_VECTORS,
    ) -> None:
        self.db = db
        self.dimension = dimension
        self.budget_bytes = budget_bytes
        self.page_vectors = page_vectors
        self._users: OrderedDict[tuple[str, str], UserVectors] = OrderedDict()
        self._too_large: set[tuple[str, str]] = set()
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._retry_at: dict[tuple[str, str], float] = {}
        self._reads: dict[tuple[str, str], asyncio.Task[None]] = {}

    def get(self, owner: Owner) -> UserVectors | None:
        key = (owner.tenant, owner.user_id)
        found = self._users.get(key)
        if found is not None:
            self._users.move_to_end(key)
        return found

    def drop(self, owner: Owner) -> None:
        """Forgets the user's vectors (the user was erased, or no longer needs them), and stops
        a read of them still running."""
        key = (owner.tenant, owner.user_id)
        if (reading := self._reads.pop(key, None)) is not None:
            reading.cancel()
        self._users.pop(key, None)
        self._too_large.discard(key)
        self._retry_at.pop(key, None)
        self._locks.pop(key, None)

    def refresh(self, owner: Owner, epoch: str, written: int) -> None:
        """`sync` in the background, one read per user at a time: the recall that saw the cache
        behind has its answer from the graph already and does not wait, and recalls meanwhile
        scan in the graph, exact as ever."""
        key = (owner.tenant, owner.user_id)
        if key in self._reads or not self._behind(key, epoch, written):
            return
        reading = asyncio.create_task(self.sync(owner, epoch, written), name="recall-vector-cache-read")
        self._reads[key] = reading
        reading.add_done_callback(functools.partial(self._read_done, key))

    async def settled(self) -> None:
        """Returns once no read started by `refresh` is running (tests, benchmarks)."""
        while self._reads:
            await asyncio.gather(*self._reads.values(), return_exceptions=True)

    async def stop(self) -> None:
        """Cancels the reads still running (shutdown): the next process reads again."""
        reads = list(self._reads.values())
        for reading in reads:
            reading.cancel()
        await asyncio.gather(*reads, return_exceptions=True)

    def _read_done(self, key: tuple[str, str], reading: asyncio.Task[None]) -> None:
        if self._reads.get(key) is reading:
            del self._reads[key]
        if not reading.cancelled() and (error := reading.exception()) is not None:
            # sync handles the store's errors; anything else must not end unseen either.
            self._failed(key, error)

    def _failed(self, key: tuple[str, str], error: BaseException) -> None:
        log.warning("recall's vector cache could not read a user's vectors: %s", type(error).__name__)
        self._retry_at[key] = time.monotonic() + RETRY_AFTER_S

    def _behind(self, key: tuple[str, str], epoch: str, written: int) -> bool:
        """Whether the user's vectors are to be read: cacheable, not waiting to retry, and not
        yet at the graph's `epoch` and count `written`."""
        if key in self._too_large or self.budget_bytes <= 0:
            return False
        if self._retry_at.get(key, 0.0) > time.monotonic():
            return False
        held = self._users.get(key)
        return held is None or held.epoch != epoch or held.known < written

    async def sync(self, owner: Owner, epoch: str, written: int) -> None:
        """Brings the user's vectors up to the graph's `epoch` and count `written` (as a recall
        just read them): the nodes numbered since, or every node in a new epoch. A read that
        fails leaves the cache as it was: recall stays exact by scanning in the graph."""
        key = (owner.tenant, owner.user_id)
        if not self._behind(key, epoch, written):
            return
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            if not self._behind(key, epoch, written):
                return
            held = self._users.get(key)
            try:
                # Counted under the user's lock: every statement that numbered a vector up to
                # the count has committed in full. A read beside a commit cannot promise that
                # (Neo4j reads committed data, not a snapshot: it saw a statement's count and
                # missed some of its nodes), and the nodes it missed would never be read.
                counted = await self.db.write("queries/recall/vector_count", **owner.params())
                if not counted:
                    return  # the user is gone
                count = counted[0]
                since = held.known if held is not None and held.epoch == count["epoch"] else None
                staged = await self._read(owner, str(count["epoch"]), since, held)
            except StoreError as error:
                self._failed(key, error)
                return
            self._retry_at.pop(key, None)
            if staged is None:
                return  # vectors changed or went in between: read again at the next recall
            if isinstance(staged, TooLarge):
                self._users.pop(key, None)
                self._too_large.add(key)
                return
            self._store(key, held if since is not None else None, count, staged)

    async def _read(
        self, owner: Owner, epoch: str, since: int | None, held: UserVectors | None
    ) -> Staged | TooLarge | None:
        """The user's nodes numbered above `since` (every node if None), page by page, all as of
        `epoch`: None if the epoch changed meanwhile; `TooLarge` once they and `held` (with
        `since`) pass the budget, without reading the rest."""
        size = held.nbytes if held is not None and since is not None else 0
        staged: Staged = {}
        for layer in LAYERS:
            ids: list[str] = []
            parts: list[Matrix] = []
            after = ""
            while True:
                row = (
                    await self.db.read(
                        "queries/recall/vectors",
                        **owner.params(),
                        layer=layer,
                        since=since,
                        after=after,
                        page=self.page_vectors,
                        dimension=self.dimension,
                    )
                )[0]
                if row["epoch"] != epoch:
                    return None
                pairs = row["vectors"]
                if pairs:
                    ids.extend(node_id for node_id, _ in pairs)
                    parts.append(unit_rows(pairs))
                    size += parts[-1].nbytes
                if size > self.budget_bytes:
                    return TooLarge()
                if len(pairs) < self.page_vectors:
                    break
                after = str(row["last"])
            staged[layer] = (
                ids,
                np.concatenate(parts) if parts else np.zeros((0, self.dimension), np.float32),
            )
        return staged

    def _store(self, key: tuple[str, str], held: UserVectors | None, count: Row, staged: Staged) -> None:
        if held is None:
            held = UserVectors("", 0, {layer: LayerVectors(self.dimension) for layer in LAYERS})
        for layer in LAYERS:
            held.layers[layer].merge(*staged[layer])
        held.epoch, held.known = str(count["epoch"]), int(count["written"])
        self._users[key] = held
        self._users.move_to_end(key)
        while sum(user.nbytes for user in self._users.values()) > self.budget_bytes:
            self._users.popitem(last=False)
