"""A user's memory read out node by node and edge by edge, and written back under an owner
(`recmem export` / `recmem import`, consolidation/portability.py).

Reads are generic over labels and properties: every node of the user (any label the database
knows but the ownership and bookkeeping ones) with every property but vectors and the owner
fields, and every edge between two of them. Property values leave as JSON values: temporal ones
and bytes as tagged objects (`encode_value`, `decode_value`), so they come back as the same types.
Writes MERGE by id, so writing the same nodes again rewrites them.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from neo4j.time import Date, DateTime, Duration, Time

from graph.database import Database
from graph.errors import InvalidInput
from graph.models import NewPart, Owner
from graph.validation import VectorValues
from graph.vectors import vector_param

# Labels that are not a user's memory: ownership, keys, schema bookkeeping, erased tombstones, and
# a long turn's parts (vectors of spans of its text: an import makes them again from the text).
RESERVED_LABELS = frozenset({"User", "Tenant", "ApiKey", "SchemaMeta", "Erased", "InteractionPart"})
# Edge types an import does not take from a file: ownership is the import's own (`held`).
RESERVED_TYPES = frozenset({"HAS"})
# Properties never exported: the vectors (re-made on import) and what an owner determines.
VECTOR_PROPERTIES = frozenset({"embedding", "sentence_vectors", "embedding_key"})
OWNER_PROPERTIES = frozenset({"tenant", "user_id", "owner_key"})
# The id is the line's own, not repeated among the properties.
EXCLUDED = VECTOR_PROPERTIES | OWNER_PROPERTIES | {"id"}
# Labels whose nodes carry `owner_key` (their full-text indexes filter on it; cypher/schema/01[4-6]).
OWNER_KEYED = frozenset({"Interaction", "Episode", "Fact"})
# What a label, an edge type or a property name may look like in a file (they reach Cypher as
# dynamic labels and types, and as map keys).
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}\Z")
PAGE = 1_000

Json = Any


@dataclass(frozen=True)
class NodeRecord:
    """One node as exported: its labels, id, properties as JSON values, and whether the user node
    holds it (the `HAS` edge the write path draws to interactions, episodes, facts and runs)."""

    labels: list[str]
    id: str
    properties: dict[str, Json]
    held: bool
    # Where the read found it (for reading its edges); not part of the file.
    element_id: str = field(default="", compare=False)


@dataclass(frozen=True)
class EdgeRecord:
    type: str
    source: str
    target: str
    properties: dict[str, Json]


@dataclass(frozen=True)
class NodeWrite:
    """A node to write: its properties already decoded (`decode_properties`), and its new vector
    when its label has one."""

    node: NodeRecord
    properties: dict[str, Any]
    embedding: VectorValues | None = None
    sentence_vectors: bytes | None = None
    # A long interaction's parts (consolidation/writing/parts.py), made again with its vector.
    parts: tuple[NewPart, ...] = ()


def encode_value(value: Any) -> Json:
    """A stored property value as a JSON value (raises InvalidInput for a type it cannot carry)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [encode_value(v) for v in value]
    if isinstance(value, DateTime):
        return {"$datetime": value.iso_format()}
    if isinstance(value, Date):
        return {"$date": value.iso_format()}
    if isinstance(value, Time):
        return {"$time": value.iso_format()}
    if isinstance(value, Duration):
        return {"$duration": value.iso_format()}
    if isinstance(value, bytes | bytearray):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    raise InvalidInput(f"a property value of type {type(value).__name__} cannot be exported")


def shown(value: Any, limit: int | None = None) -> str:
    """A value as a file writes it (JSON: `true`, `null`, `"text"`, tagged times), for a message
    to the user who wrote the file; cut to `limit` characters, ending in `...`."""
    text = json.dumps(value, ensure_ascii=False, default=encode_value)
    return text if limit is None or len(text) <= limit else text[: max(0, limit - 3)] + "..."


_DECODERS: dict[str, Callable[[str], Any]] = {
    "$datetime": DateTime.from_iso_format,
    "$date": Date.from_iso_format,
    "$time": Time.from_iso_format,
    "$duration": Duration.from_iso_format,
    "$bytes": lambda text: base64.b64decode(text, validate=True),
}


def decode_value(value: Json) -> Any:
    """The inverse of `encode_value`; raises InvalidInput for what it never produces."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        ((tag, text),) = value.items()
        decode = _DECODERS.get(tag)
        if decode is not None and isinstance(text, str):
            try:
                return decode(text)
            except (ValueError, TypeError) as bad:
                raise InvalidInput(f"{tag} value {shown(text, 80)} does not parse: {bad}") from None
    raise InvalidInput(f"not a property value: {shown(value, 80)}")


def decode_properties(properties: Mapping[str, Json]) -> dict[str, Any]:
    """A file's property map, checked (names, no excluded property) and decoded."""
    decoded = {}
    for name, value in properties.items():
        if not isinstance(name, str) or not NAME.match(name) or name.startswith("_"):
            raise InvalidInput(f"not a property name: {shown(name, 80)}")
        if name in EXCLUDED:
            raise InvalidInput(f"property {shown(name)} is not taken from a file (an import derives it)")
        decoded[name] = decode_value(value)
    return decoded


def _in_utc(value: Any) -> Any:
    """A time as its UTC instant at offset zero, as every stored time is (graph/database.py,
    in_utc): the driver decodes a file's `+00:00` into the named zone UTC, which Neo4j keeps
    apart from an offset. Any other value as it is."""
    if isinstance(value, DateTime | datetime) and value.utcoffset() is not None:
        return value.astimezone(UTC)
    return value


class PortabilityStore:
    """Reads one user's nodes and edges for an export, writes them back for an import."""

    def __init__(self, db: Database, dimension: int) -> None:
        self.db = db
        self.dimension = dimension

    async def memory_labels(self) -> list[str]:
        """The database's labels that may hold a user's memory, sorted."""
        rows = await self.db.read("queries/portability/labels")
        return sorted(label for label in rows[0]["labels"] if label not in RESERVED_LABELS)

    async def counts(self, owner: Owner, labels: Sequence[str]) -> tuple[dict[str, int], dict[str, int]]:
        """Nodes per label and edges per type, as `nodes` and `edges` read them."""
        params = {**owner.params(), "labels": list(labels), "reserved": sorted(RESERVED_LABELS)}
        nodes = await self.db.read("queries/portability/node_counts", **params)
        edges = await self.db.read("queries/portability/edge_counts", **params)
        return (
            {r["label"]: int(r["nodes"]) for r in nodes if r["nodes"]},
            {r["type"]: int(r["edges"]) for r in edges if r["edges"]},
        )

    async def nodes(self, owner: Owner, label: str, after: str = "", limit: int = PAGE) -> list[NodeRecord]:
        """Up to `limit` of the user's nodes of `label` whose id sorts after `after`, in id order."""
        rows = await self.db.read(
            "queries/portability/nodes",
            **owner.params(),
            label=label,
            after=after,
            limit=limit,
            excluded=sorted(EXCLUDED),
            reserved=sorted(RESERVED_LABELS),
        )
        return [
            NodeRecord(
                labels=sorted(name for name in row["labels"] if name not in RESERVED_LABELS),
                id=row["id"],
                properties={k: encode_value(v) for k, v in sorted(row["properties"])},
                held=bool(row["held"]),
                element_id=row["element_id"],
            )
            for row in rows
        ]

    async def edges(self, owner: Owner, element_ids: Sequence[str]) -> list[EdgeRecord]:
        """The edges from these nodes (as `nodes` found them) to other nodes of the user, one per
        type and pair."""
        rows = await self.db.read(
            "queries/portability/edges",
            **owner.params(),
            element_ids=list(element_ids),
            reserved=sorted(RESERVED_LABELS),
        )
        return [
            EdgeRecord(
                r["type"],
                r["source"],
                r["target"],
                {k: encode_value(v) for k, v in sorted((r["properties"] or {}).items())},
            )
            for r in rows
        ]

    async def foreign_ids(self, owner: Owner, nodes: Sequence[NodeRecord]) -> list[str]:
        """Ids among `nodes` that a node of another owner holds already."""
        found: list[str] = []
        for start in range(0, len(nodes), PAGE):
            chunk = [
                {"label": n.labels[0], "id": n.id, "seq": n.properties.get("seq")}
                for n in nodes[start : start + PAGE]
            ]
            rows = await self.db.read("queries/portability/owners", **owner.params(), nodes=chunk)
            found += [r["id"] for r in rows if (r["tenant"], r["user_id"]) != (owner.tenant, owner.user_id)]
        return found

    async def other_nodes(self, owner: Owner, ids: Sequence[str]) -> int:
        """How many nodes the user owns that are not among `ids`."""
        labels = await self.memory_labels()
        rows = await self.db.read(
            "queries/portability/others", **owner.params(), labels=labels, ids=list(ids)
        )
        return int(rows[0]["others"] or 0)

    async def write_nodes(self, owner: Owner, writes: Sequence[NodeWrite]) -> dict[str, str]:
        """One transaction: the nodes MERGEd by id, their properties replaced by the write's; the
        element id of each (for `write_edges`)."""
        rows = []
        for write in writes:
            node = write.node
            properties = {k: _in_utc(v) for k, v in write.properties.items()} | {
                "id": node.id,
                "tenant": owner.tenant,
                "user_id": owner.user_id,
            }
            if OWNER_KEYED & set(node.labels):
                properties["owner_key"] = owner.key
            if write.sentence_vectors is not None:
                properties["sentence_vectors"] = write.sentence_vectors
            embedding = (
                None
                if write.embedding is None
                else vector_param(f"vector of {node.id}", write.embedding, self.dimension)
            )
            rows.append(
                {
                    "label": node.labels[0],
                    "labels": node.labels,
                    "id": node.id,
                    # An event is found by its user and seq (cypher/queries/portability/write_nodes).
                    "seq": write.properties.get("seq"),
                    "properties": properties,
                    "held": node.held,
                    "embedding": embedding,
                    "parts": [
                        {
                            "index": i,
                            "start": part.start,
                            "end": part.end,
                            "embedding": vector_param(
                                f"part {i} of {node.id}", part.embedding, self.dimension
                            ),
                        }
                        for i, part in enumerate(write.parts)
                    ],
                }
            )
        written = await self.db.write("queries/portability/write_nodes", **owner.params(), rows=rows)
        return {node_id: element_id for node_id, element_id in written[0]["written"]} if written else {}

    async def write_edges(
        self, owner: Owner, edges: Sequence[EdgeRecord], element_ids: Mapping[str, str]
    ) -> int:
        """One transaction: the edges MERGEd per type and pair; `element_ids` maps each end's id
        to what `write_nodes` answered."""
        rows = [
            {
                "type": e.type,
                "source": element_ids[e.source],
                "target": element_ids[e.target],
                "properties": decode_properties(e.properties),
            }
            for e in edges
        ]
        written = await self.db.write("queries/portability/write_edges", **owner.params(), rows=rows)
        return int(written[0]["written"]) if written else 0

    async def finish(self, owner: Owner) -> None:
        """The user node's stream and event counters set from what it now holds."""
        await self.db.write("queries/portability/finish", **owner.params())
