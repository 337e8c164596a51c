"""Export a user's memory as versioned JSON Lines, and import such a file under any tenant and user.

The format (docs/export.md): a header line, then one line per node, then one line per edge.
Export reads every node and edge of the user generically (graph/portability.py); import checks
the whole file before it writes anything, re-keys the ids when the target owner is not the one
exported (deterministically, so a rerun writes the same nodes), embeds every vector again with the
running embedder and template, writes by id (a rerun is idempotent), and sets the user node's
counters from what it then holds.
"""

from __future__ import annotations

import hashlib
import json
import types
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, replace
from datetime import UTC, datetime
from typing import Any, Protocol, Union, get_args, get_origin, get_type_hints

from consolidation.providers.embedders import Embedder
from consolidation.providers.embedding_template import EmbeddingTemplate
from consolidation.recall.sentences import embed_writes
from consolidation.writing.parts import new_parts, part_spans, part_texts
from graph import models
from graph.errors import InvalidInput
from graph.models import MemoryNode, Owner, said_at, utc_offset_s
from graph.portability import (
    NAME,
    RESERVED_LABELS,
    RESERVED_TYPES,
    EdgeRecord,
    NodeRecord,
    NodeWrite,
    PortabilityStore,
    decode_properties,
    shown,
)
from graph.vocabulary import FACT_KINDS, FACT_STATUSES, MAX_ID_CHARS, counted

FORMAT = "recmem-export"
SCHEMA_VERSION = 1
# Nodes (or edges) per write transaction, and per embedder call.
BATCH = 500
# What each embedded label is embedded from, as the write path does (an interaction through the
# template, with its speaker and time).
EMBEDDED = {"Interaction": "text", "Episode": "summary", "Fact": "text"}
# The record each memory label is read into: an imported node's properties must read as it.
READ_AS: dict[str, type[MemoryNode]] = {
    "Interaction": models.Interaction,
    "Episode": models.Episode,
    "Fact": models.Fact,
    "ConsolidationRun": models.ConsolidationRun,
}
# Record fields that are not node properties of the same name: the owner and id (the line's),
# and what a read derives (from `gate_checked`, from the `metadata` JSON).
NOT_PROPERTIES = {"id", "tenant", "user_id", "pending", "metadata"}
# An offset is less than a day either way (graph/models.py: utc_offset_s).
DAY_S = 86_400
# What SUPERSEDES may join: a fact and the fact it replaced, an episode version and its previous.
VERSIONED = ("Fact", "Episode")
# The words a property must be one of, where the code maps them to an enum.
WORDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("Fact", "kind"): FACT_KINDS,
    ("Fact", "status"): FACT_STATUSES,
}


class ImportProgress(Protocol):
    def started(self, total: int) -> None:
        """The import writes `total` nodes and edges."""

    def advanced(self, count: int) -> None:
        """`count` more of them were written."""


class _Silent:
    def started(self, total: int) -> None:
        pass

    def advanced(self, count: int) -> None:
        pass


@dataclass(frozen=True)
class Header:
    schema_version: int
    exported_at: str
    owner: Owner
    embedder: str
    dimension: int
    template: str
    nodes: dict[str, int]
    edges: dict[str, int]

    def line(self) -> dict[str, Any]:
        return {
            "kind": "header",
            "format": FORMAT,
            "schema_version": self.schema_version,
            "exported_at": self.exported_at,
            "owner": {"tenant": self.owner.tenant, "user_id": self.owner.user_id},
            "embedder": {"name": self.embedder, "dimension": self.dimension},
            "embedding_template": self.template,
            "counts": {"nodes": self.nodes, "edges": self.edges},
        }


@dataclass(frozen=True)
class UserExport:
    """A checked export file: its header, nodes and edges."""

    header: Header
    nodes: list[NodeRecord]
    edges: list[EdgeRecord]


@dataclass(frozen=True)
class ImportReport:
    owner: Owner
    nodes: dict[str, int]
    edges: dict[str, int]
    rekeyed: bool
    reembedded: int
    source: Owner = field(compare=False)


def node_line(node: NodeRecord) -> dict[str, Any]:
    return {
        "kind": "node",
        "labels": node.labels,
        "id": node.id,
        "held": node.held,
        "properties": node.properties,
    }


def edge_line(edge: EdgeRecord) -> dict[str, Any]:
    return {
        "kind": "edge",
        "type": edge.type,
        "from": edge.source,
        "to": edge.target,
        "properties": edge.properties,
    }


def dump(line: Mapping[str, Any]) -> str:
    """One line of the file (no newline): compact, keys sorted, non-ASCII kept."""
    return json.dumps(line, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class Portability:
    """Exports and imports users over one store, with the running embedder and template."""

    def __init__(self, store: PortabilityStore, embedder: Embedder, template: EmbeddingTemplate) -> None:
        self.store = store
        self.embedder = embedder
        self.template = template

    async def exists(self, owner: Owner) -> bool:
        labels = await self.store.memory_labels()
        nodes, _ = await self.store.counts(owner, labels)
        return bool(nodes)

    async def export(self, owner: Owner, *, now: datetime | None = None) -> AsyncIterator[dict[str, Any]]:
        """The lines of the user's export, header first, read page by page (nothing is held but
        the ids). Counts are read first: a user written to meanwhile may get a file whose counts
        do not match, which import refuses."""
        labels = await self.store.memory_labels()
        nodes, edges = await self.store.counts(owner, labels)
        header = Header(
            SCHEMA_VERSION,
            (now or datetime.now(UTC)).isoformat(),
            owner,
            self.embedder.name,
            self.embedder.dimension,
            self.template.pattern,
            nodes,
            edges,
        )
        yield header.line()
        found: list[str] = []
        for label in labels:
            after = ""
            # A node of several labels is read once, under its first one.
            while page := await self.store.nodes(owner, label, after):
                found.extend(n.element_id for n in page)
                for node in page:
                    yield node_line(node)
                after = page[-1].id
        for start in range(0, len(found), BATCH):
            for edge in await self.store.edges(owner, found[start : start + BATCH]):
                yield edge_line(edge)

    async def import_user(
        self, parsed: UserExport, target: Owner, progress: ImportProgress | None = None
    ) -> ImportReport:
        """Write a checked file under `target`; refuses (InvalidInput, nothing written) ids that
        another owner holds, or a target user that holds memory the file does not."""
        progress = progress or _Silent()
        rekeyed = parsed.header.owner != target
        nodes, edges = rekey(parsed, target) if rekeyed else (parsed.nodes, parsed.edges)
        foreign = await self.store.foreign_ids(target, nodes)
        if foreign:
            raise InvalidInput(
                f"another user holds {counted(len(foreign), 'id')} of the file, e.g. {shown(foreign[0])}"
            )
        others = await self.store.other_nodes(target, [n.id for n in nodes])
        if others:
            raise InvalidInput(
                f"user {target.user_id!r} of tenant {target.tenant!r} holds "
                f"{counted(others, 'node')} this file does not: import into a new (or forgotten) user"
            )
        progress.started(len(nodes) + len(edges))
        embedded = 0
        element_ids: dict[str, str] = {}
        for start in range(0, len(nodes), BATCH):
            writes = await self._writes(nodes[start : start + BATCH])
            embedded += sum(w.embedding is not None for w in writes)
            element_ids |= await self.store.write_nodes(target, writes)
            progress.advanced(len(writes))
        for start in range(0, len(edges), BATCH):
            chunk = edges[start : start + BATCH]
            await self.store.write_edges(target, chunk, element_ids)
            progress.advanced(len(chunk))
        await self.store.finish(target)
        return ImportReport(
            target,
            dict(parsed.header.nodes),
            dict(parsed.header.edges),
            rekeyed,
            embedded,
            parsed.header.owner,
        )

    async def _writes(self, nodes: Sequence[NodeRecord]) -> list[NodeWrite]:
        """The nodes' writes, with a vector for each embedded label, from one embedder call per layer."""
        decoded = [decode_properties(n.properties) for n in nodes]
        writes = [NodeWrite(n, p) for n, p in zip(nodes, decoded, strict=True)]
        for label, field_name in EMBEDDED.items():
            at = [i for i, n in enumerate(nodes) if label in n.labels and n.labels[0] == label]
            if not at:
                continue
            texts = [decoded[i][field_name] for i in at]
            if label == "Interaction":
                rendered = [
                    self.template.render(decoded[i]["text"], decoded[i]["speaker"], _said(decoded[i]))
                    for i in at
                ]
                spans = [part_spans(text) for text in texts]
                part_rendered = [
                    [
                        self.template.render(t, decoded[i]["speaker"], _said(decoded[i]))
                        for t in part_texts(text, found)
                    ]
                    for i, text, found in zip(at, texts, spans, strict=True)
                ]
                vectors, sentences, part_vectors = await embed_writes(
                    self.embedder, rendered, texts, part_rendered
                )
                for i, vector, packed, found, made in zip(
                    at, vectors, sentences, spans, part_vectors, strict=True
                ):
                    writes[i] = replace(
                        writes[i], embedding=vector, sentence_vectors=packed, parts=new_parts(found, made)
                    )
            else:
                matrix = await self.embedder.embed(texts)
                for row, i in enumerate(at):
                    writes[i] = replace(writes[i], embedding=matrix[row])
        return writes


def _said(interaction: Mapping[str, Any]) -> datetime:
    """An interaction's time in the offset it was said in, as the write path embeds it."""
    return said_at(_native(interaction["occurred_at"]), interaction.get("utc_offset_s") or 0)


def _native(moment: Any) -> datetime:
    to_native = getattr(moment, "to_native", None)
    return to_native() if callable(to_native) else moment  # type: ignore[no-any-return]


def parse(lines: Iterable[str]) -> UserExport:
    """Check a whole export file; raises InvalidInput naming the first bad line."""
    header: Header | None = None
    nodes: list[NodeRecord] = []
    edges: list[EdgeRecord] = []
    edge_lines: list[int] = []
    seen_nodes: set[str] = set()
    seen_edges: set[tuple[str, str, str]] = set()
    number = 0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
        except json.JSONDecodeError as bad:
            raise InvalidInput(f"line {number}: not JSON ({bad.msg})") from None
        if not isinstance(line, dict):
            raise InvalidInput(f"line {number}: not a JSON object")
        try:
            if header is None:
                header = _header(line)
            elif line.get("kind") == "node":
                node = _node(line)
                if node.id in seen_nodes:
                    raise InvalidInput(f"node {shown(node.id)} appears twice")
                seen_nodes.add(node.id)
                nodes.append(node)
            elif line.get("kind") == "edge":
                edges.append(_edge(line))
                edge_lines.append(number)
            else:
                raise InvalidInput(f"unknown kind {shown(line.get('kind'), 80)} (header, node or edge)")
        except InvalidInput as error:
            raise InvalidInput(f"line {number}: {error}") from None
    if header is None:
        raise InvalidInput("the file is empty: an export starts with its header line")
    label_of = {n.id: n.labels[0] for n in nodes}
    for number, edge in zip(edge_lines, edges, strict=True):
        key = (edge.type, edge.source, edge.target)
        for end in (edge.source, edge.target):
            if end not in seen_nodes:
                raise InvalidInput(
                    f"line {number}: {edge.type} names node {shown(end)}, which the file lacks"
                )
        if key in seen_edges:
            raise InvalidInput(
                f"line {number}: {edge.type} from {shown(edge.source)} to {shown(edge.target)} appears twice"
            )
        seen_edges.add(key)
        if edge.type == "SUPERSEDES" and not (
            label_of[edge.source] == label_of[edge.target] and label_of[edge.source] in VERSIONED
        ):
            raise InvalidInput(f"line {number}: SUPERSEDES must join two facts or two episode versions")
    _no_supersession_cycle(edges, edge_lines)
    found_nodes = dict(Counter(n.labels[0] for n in nodes))
    found_edges = dict(Counter(e.type for e in edges))
    if found_nodes != header.nodes or found_edges != header.edges:
        raise InvalidInput(
            f"the file holds {_tally(found_nodes, 'node')} and {_tally(found_edges, 'edge')}, its "
            f"header counts {_tally(header.nodes, 'node')} and {_tally(header.edges, 'edge')}: it is "
            "incomplete or was changed"
        )
    return UserExport(header, nodes, edges)


def _tally(counts: Mapping[str, int], noun: str) -> str:
    """`3 nodes {"Fact": 1, "Interaction": 2}`, or `0 edges`."""
    total = counted(sum(counts.values()), noun)
    return f"{total} {shown(dict(sorted(counts.items())))}" if counts else total


def _header(line: dict[str, Any]) -> Header:
    if line.get("kind") != "header" or line.get("format") != FORMAT:
        raise InvalidInput(f"not a {FORMAT} file: the first line must be its header")
    version = line.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InvalidInput(f"schema_version {shown(version, 80)} is not a version")
    if version > SCHEMA_VERSION:
        raise InvalidInput(
            f"the file has schema version {version}, newer than this service's {SCHEMA_VERSION}: "
            "import it with a newer recmem"
        )
    owner, embedder, counts = line.get("owner"), line.get("embedder"), line.get("counts")
    if not (isinstance(owner, dict) and isinstance(embedder, dict) and isinstance(counts, dict)):
        raise InvalidInput("the header lacks owner, embedder or counts")
    tenant, user_id = owner.get("tenant"), owner.get("user_id")
    if not (isinstance(tenant, str) and isinstance(user_id, str)):
        raise InvalidInput("the header's owner needs a tenant and a user_id")
    dimension = embedder.get("dimension") or 0
    if not _is_int(dimension) or dimension < 0:
        raise InvalidInput(f"the header's embedder dimension {shown(dimension, 80)} is not a whole number")
    return Header(
        version,
        str(line.get("exported_at", "")),
        Owner(tenant, user_id),
        str(embedder.get("name", "")),
        dimension,
        str(line.get("embedding_template", "")),
        _counts(counts.get("nodes")),
        _counts(counts.get("edges")),
    )


def _counts(value: Any) -> dict[str, int]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v > 0
        for k, v in value.items()
    ):
        raise InvalidInput(f"header counts must map names to positive integers, got {shown(value, 80)}")
    return dict(value)


def _node(line: dict[str, Any]) -> NodeRecord:
    labels, node_id, properties, held = (line.get(k) for k in ("labels", "id", "properties", "held"))
    if (
        not isinstance(labels, list)
        or not labels
        or not all(isinstance(name, str) and NAME.match(name) for name in labels)
    ):
        raise InvalidInput(f"node labels must be a non-empty list of names, got {shown(labels, 80)}")
    reserved = RESERVED_LABELS & set(labels)
    if reserved:
        raise InvalidInput(f"label {shown(sorted(reserved)[0])} is not a memory node's")
    node_id = _check_id(node_id)
    if not isinstance(properties, dict):
        raise InvalidInput("node properties must be an object")
    if not isinstance(held, bool):
        raise InvalidInput("node `held` must be true or false")
    decoded = decode_properties(properties)
    for label, field_name in EMBEDDED.items():
        if labels[0] == label and not isinstance(decoded.get(field_name), str):
            raise InvalidInput(f"{label} {shown(node_id)} has no {field_name} to embed")
    if labels[0] == "ConsolidationEvent" and not _is_int(decoded.get("seq")):
        raise InvalidInput(f"ConsolidationEvent {shown(node_id)} needs an integer seq")
    if labels[0] == "Interaction":
        if not isinstance(decoded.get("speaker"), str) or _native(decoded.get("occurred_at")) is None:
            raise InvalidInput(f"Interaction {shown(node_id)} needs a speaker and an occurred_at $datetime")
        if not isinstance(_native(decoded["occurred_at"]), datetime):
            raise InvalidInput(f"Interaction {shown(node_id)}: occurred_at must be a $datetime")
        offset = decoded.get("utc_offset_s", 0)
        if not _is_int(offset) or not -DAY_S < offset < DAY_S:
            raise InvalidInput(
                f"Interaction {shown(node_id)}: utc_offset_s must be whole seconds within a day of UTC, "
                f"got {shown(offset, 40)}"
            )
        given = utc_offset_s(_native(decoded["occurred_at"]))
        if "utc_offset_s" not in decoded and given:
            # A time given in the offset it was said in: kept beside the UTC instant, as a write does.
            properties = {**properties, "utc_offset_s": given}
    _check_read(labels[0], node_id, decoded)
    return NodeRecord(list(labels), node_id, dict(properties), held)


def _check_read(label: str, node_id: str, decoded: Mapping[str, Any]) -> None:
    """The node's properties as the service reads them (READ_AS): every property its record
    requires is there, and every one present has the record's type (and WORDS' words)."""
    record = READ_AS.get(label)
    if record is None:
        return
    hints = get_type_hints(record)
    for item in fields(record):
        if item.name in NOT_PROPERTIES:
            continue
        hint, value = hints[item.name], decoded.get(item.name)
        args = get_args(hint)
        optional = get_origin(hint) in (types.UnionType, Union) and type(None) in args
        if value is None:
            if optional or (item.name not in decoded and item.default is not MISSING):
                continue
            raise InvalidInput(f"{label} {shown(node_id)} needs {item.name}")
        expected = next(a for a in args if a is not type(None)) if optional else hint
        if not _has_type(value, expected):
            raise InvalidInput(
                f"{label} {shown(node_id)}: {item.name} must be {_type_name(expected)}, "
                f"got {shown(value, 80)}"
            )
        words = WORDS.get((label, item.name))
        if words is not None and value not in words:
            raise InvalidInput(
                f"{label} {shown(node_id)}: {item.name} {shown(value, 80)} is not one of {', '.join(words)}"
            )


def _has_type(value: Any, expected: Any) -> bool:
    if expected is datetime:
        moment = _native(value)
        if not isinstance(moment, datetime) or moment.utcoffset() is None:
            return False
        try:
            moment.astimezone(UTC)  # the service answers instants in UTC
        except OverflowError:
            return False
        return True
    if expected is bool:
        return isinstance(value, bool)
    if expected is int:
        return _is_int(value)
    if expected is float:
        return _is_int(value) or isinstance(value, float)
    if expected is str:
        return isinstance(value, str)
    if get_origin(expected) is list:
        (item,) = get_args(expected)
        return isinstance(value, list) and all(_has_type(v, item) for v in value)
    return True


def _type_name(expected: Any) -> str:
    if expected is datetime:
        return "a $datetime with an offset, in the years 1 to 9999 in UTC"
    if get_origin(expected) is list:
        return f"a list of {_type_name(get_args(expected)[0])}"
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(
        expected, str(expected)
    )


def _no_supersession_cycle(edges: Sequence[EdgeRecord], edge_lines: Sequence[int]) -> None:
    """Refuses SUPERSEDES edges that lead from a node back to itself, naming the edge that closes it."""
    replaced: dict[str, list[tuple[str, int]]] = {}
    for number, edge in zip(edge_lines, edges, strict=True):
        if edge.type == "SUPERSEDES":
            replaced.setdefault(edge.source, []).append((edge.target, number))
    done: set[str] = set()
    for start in replaced:
        if start in done:
            continue
        # Depth first, without recursion: the path from `start` and each node's next edge.
        path: list[str] = [start]
        on_path = {start}
        todo = [iter(replaced.get(start, []))]
        while todo:
            step = next(todo[-1], None)
            if step is None:
                todo.pop()
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
                continue
            target, number = step
            if target in on_path:
                raise InvalidInput(f"line {number}: SUPERSEDES closes a cycle at {shown(target)}")
            if target in done:
                continue
            path.append(target)
            on_path.add(target)
            todo.append(iter(replaced.get(target, [])))


def _edge(line: dict[str, Any]) -> EdgeRecord:
    kind, source, target, properties = (line.get(k) for k in ("type", "from", "to", "properties"))
    if not isinstance(kind, str) or not NAME.match(kind) or kind in RESERVED_TYPES:
        raise InvalidInput(f"not an edge type an import takes: {shown(kind, 80)}")
    source, target = _check_id(source), _check_id(target)
    if not isinstance(properties, dict):
        raise InvalidInput("edge properties must be an object")
    decode_properties(properties)
    return EdgeRecord(kind, source, target, dict(properties))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_id(value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_ID_CHARS:
        raise InvalidInput(
            f"an id must be a non-empty string of at most {MAX_ID_CHARS} characters, got {shown(value, 80)}"
        )
    return value


def rekey(parsed: UserExport, target: Owner) -> tuple[list[NodeRecord], list[EdgeRecord]]:
    """The file's nodes and edges with every id (and every property value equal to one of them)
    replaced by one derived from the target owner and the old id: ids are unique across tenants,
    and the same file imported again gets the same ids."""
    mapping = {n.id: _new_id(target, n.id) for n in parsed.nodes}

    def swap(value: Any) -> Any:
        if isinstance(value, str):
            return mapping.get(value, value)
        if isinstance(value, list):
            return [swap(v) for v in value]
        return value

    def props(properties: Mapping[str, Any]) -> dict[str, Any]:
        return {k: swap(v) for k, v in properties.items()}

    nodes = [replace(n, id=mapping[n.id], properties=props(n.properties)) for n in parsed.nodes]
    edges = [
        replace(e, source=mapping[e.source], target=mapping[e.target], properties=props(e.properties))
        for e in parsed.edges
    ]
    return nodes, edges


def _new_id(target: Owner, old: str) -> str:
    prefix = old.split("_", 1)[0] if "_" in old else "node"
    digest = hashlib.sha256(f"{target.tenant}\x00{target.user_id}\x00{old}".encode()).hexdigest()[:32]
    return f"{prefix}_{digest}"
