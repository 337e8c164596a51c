"""Rebuilds every stored vector with the configured embedder and template (`recmem db reembed`).

Interactions are embedded through the template, episodes from their summary (every version),
facts from their text (every status), as the write path does. Work goes in pages: read, embed,
write back in one transaction that marks each node with the target's key. So an interrupted run
(Ctrl-C, a crash, an embedder error) loses at most a page, and a rerun reads only what is left.
Passes repeat until one finds nothing, which also catches what a service still running wrote
meanwhile; only then does the database record the new embedder, dimension and template, and a
service configured with them passes the guard (graph/schema.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from consolidation.providers.embedders import Embedder, build_embedder
from consolidation.providers.embedding_template import EmbeddingTemplate
from consolidation.recall.sentences import embed_writes
from consolidation.wiring import AppSettings
from consolidation.writing.parts import new_parts, part_spans, part_texts
from graph.database import Database
from graph.reembed import LAYERS, Layer, ReembedStore, StaleNode
from graph.schema import EmbeddingSpec, read_spec, record_spec, resize_vector_indexes

DEFAULT_BATCH_SIZE = 256
# Passes in a row that may write nothing (every node they read changed before its write, say a
# forget rebuilt it) before the run gives up instead of looping.
MAX_IDLE_PASSES = 3


class ReembedStalled(RuntimeError):
    """Passes keep writing nothing although nodes remain: looping again would not change that."""


class ReembedProgress(Protocol):
    def pass_started(self, remaining: Mapping[Layer, int]) -> None:
        """A pass begins; `remaining` is what it has to do, per layer."""

    def advanced(self, layer: Layer, count: int) -> None:
        """`count` more nodes of the layer were handled."""


class _Silent:
    def pass_started(self, remaining: Mapping[Layer, int]) -> None:
        pass

    def advanced(self, layer: Layer, count: int) -> None:
        pass


@dataclass(frozen=True)
class ReembedReport:
    previous: EmbeddingSpec | None
    target: EmbeddingSpec
    reembedded: dict[Layer, int] = field(default_factory=dict)
    passes: int = 0
    # Vector indexes dropped and recreated for the target's dimension.
    recreated_indexes: list[str] = field(default_factory=list)


class Reembedder:
    """Moves a database's vectors to one embedder and template.

    `tenant` narrows the run to one tenant's nodes. It exists for tests, which share one database
    across a session: the run still resizes the indexes and records the target database-wide, so
    such a test restores both afterwards. The CLI always runs over every tenant.
    """

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        template: EmbeddingTemplate,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        progress: ReembedProgress | None = None,
        tenant: str | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.db = db
        self.embedder = embedder
        self.template = template
        self.batch_size = batch_size
        self.progress = progress or _Silent()
        self.target = EmbeddingSpec(embedder.name, embedder.dimension, template.pattern)
        self.store = ReembedStore(db, self.target.key, embedder.dimension, tenant)

    async def run(self) -> ReembedReport:
        previous = await read_spec(self.db)
        # Before any vector of a new size is written: an index of the old size cannot hold it.
        recreated = await resize_vector_indexes(self.db, self.target.dimension)
        done: dict[Layer, int] = dict.fromkeys(LAYERS, 0)
        passes = idle = 0
        while any((remaining := await self.store.remaining()).values()):
            passes += 1
            self.progress.pass_started(remaining)
            written = {layer: await self._layer(layer) for layer in LAYERS}
            idle = 0 if any(written.values()) else idle + 1
            if idle == MAX_IDLE_PASSES:
                raise ReembedStalled(
                    f"{idle} passes in a row re-embedded none of the nodes left: {remaining}"
                )
            done = {layer: done[layer] + written[layer] for layer in LAYERS}
        await record_spec(self.db, self.target)
        return ReembedReport(previous, self.target, done, passes, recreated)

    async def _layer(self, layer: Layer) -> int:
        """One pass over the layer, page by page in id order; how many nodes were written."""
        after, written = "", 0
        while True:
            page = await self.store.page(layer, after, self.batch_size)
            if not page:
                return written
            texts = [self._text(layer, node) for node in page]
            if layer == "Interaction":
                spans = [part_spans(node.text) for node in page]
                rendered = [
                    [self._render(node, t) for t in part_texts(node.text, s)]
                    for node, s in zip(page, spans, strict=True)
                ]
                vectors, sentences, found = await embed_writes(
                    self.embedder, texts, [node.text for node in page], rendered
                )
                parts = [new_parts(s, f) for s, f in zip(spans, found, strict=True)]
                written += await self.store.write(layer, page, vectors, sentences, parts)
            else:
                written += await self.store.write(layer, page, list(await self.embedder.embed(texts)))
            self.progress.advanced(layer, len(page))
            if len(page) < self.batch_size:
                return written
            after = page[-1].id

    def _text(self, layer: Layer, node: StaleNode) -> str:
        """What the write path embeds for the node."""
        if layer != "Interaction":
            return node.text
        return self._render(node, node.text)

    def _render(self, node: StaleNode, text: str) -> str:
        """`text` (the interaction's, or a part of it) as the write path embeds it."""
        if node.speaker is None or node.occurred_at is None:
            raise ValueError(f"interaction {node.id} has no speaker or no time to render")
        return self.template.render(text, node.speaker, node.occurred_at)


async def reembed_database(
    settings: AppSettings, batch_size: int, progress: ReembedProgress | None = None
) -> ReembedReport:
    """Connect (StoreUnavailable when Neo4j does not answer), re-embed every tenant, close."""
    db = Database.connect(settings.neo4j)
    try:
        await db.ping()  # before loading a model: an unreachable database is refused at once
        embedder = build_embedder(settings.embedder)
        reembedder = Reembedder(
            db, embedder, settings.engine.template, batch_size=batch_size, progress=progress
        )
        return await reembedder.run()
    finally:
        await db.close()
