"""The export file's checks, without a database: what `recmem import` refuses before it connects,
with the line it names, and what it carries (docs/export.md)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from neo4j.time import DateTime
from typer.testing import CliRunner

from cli.main import app
from consolidation.portability import SCHEMA_VERSION, parse, rekey
from graph.errors import InvalidInput
from graph.models import Owner
from graph.portability import decode_value, encode_value

WHEN = {"$datetime": "2024-05-01T09:00:00.123456789+00:00"}


def lines() -> list[dict[str, Any]]:
    turn = {"text": "I love sushi.", "speaker": "alice", "occurred_at": WHEN, "seq": 1, "tags": ["a"]}
    turn |= {"consolidated": False}
    fact: dict[str, Any] = {
        "text": "Alice loves sushi.",
        "kind": "preference",
        "status": "active",
        "source": "int_1",
    }
    fact |= {"valid_from": WHEN, "created_at": WHEN}
    return [
        {
            "kind": "header",
            "format": "recmem-export",
            "schema_version": SCHEMA_VERSION,
            "exported_at": "2024-06-01T00:00:00+00:00",
            "owner": {"tenant": "t1", "user_id": "alice"},
            "embedder": {"name": "hashing-384", "dimension": 384},
            "embedding_template": "{text}",
            "counts": {"nodes": {"Interaction": 1, "Fact": 1}, "edges": {"DERIVED_FROM": 1}},
        },
        {"kind": "node", "labels": ["Interaction"], "id": "int_1", "held": True, "properties": turn},
        {"kind": "node", "labels": ["Fact"], "id": "fact_1", "held": True, "properties": fact},
        {
            "kind": "edge",
            "type": "DERIVED_FROM",
            "from": "fact_1",
            "to": "int_1",
            "properties": {"run_id": None},
        },
    ]


def text(found: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(line) + "\n" for line in found]


def test_a_good_file_parses_and_values_come_back_as_stored() -> None:
    parsed = parse(text(lines()))
    assert [n.id for n in parsed.nodes] == ["int_1", "fact_1"] and len(parsed.edges) == 1
    stored = decode_value(WHEN)
    assert isinstance(stored, DateTime) and stored.nanosecond == 123456789
    assert encode_value(stored) == WHEN
    assert decode_value(encode_value(b"\x00\x01")) == b"\x00\x01"
    assert decode_value(encode_value([1, "x", None])) == [1, "x", None]


def test_rekeying_maps_every_id_and_every_value_naming_one_the_same_way_each_time() -> None:
    parsed = parse(text(lines()))
    nodes, edges = rekey(parsed, Owner("t2", "bob"))
    again, _ = rekey(parsed, Owner("t2", "bob"))
    other, _ = rekey(parsed, Owner("t3", "bob"))
    turn, fact = nodes
    assert turn.id.startswith("int_") and turn.id != "int_1" and turn.id == again[0].id != other[0].id
    assert fact.properties["source"] == turn.id and fact.properties["text"] == "Alice loves sushi."
    assert (edges[0].source, edges[0].target) == (fact.id, turn.id)


def _supersede(found: list[dict[str, Any]], *pairs: tuple[str, str]) -> None:
    """A second fact, and SUPERSEDES edges between the file's facts."""
    second = {**found[2], "id": "fact_2"}
    found.insert(3, second)
    for source, target in pairs:
        found.append({"kind": "edge", "type": "SUPERSEDES", "from": source, "to": target, "properties": {}})
    found[0]["counts"] = {
        "nodes": {"Interaction": 1, "Fact": 2},
        "edges": {"DERIVED_FROM": 1, "SUPERSEDES": len(pairs)},
    }


def test_a_good_supersession_chain_parses() -> None:
    found = lines()
    _supersede(found, ("fact_2", "fact_1"))
    assert [e.type for e in parse(text(found)).edges] == ["DERIVED_FROM", "SUPERSEDES"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f[0].update(schema_version=SCHEMA_VERSION + 1), "newer than this service's"),
        (lambda f: f[0].update(format="other"), "not a recmem-export file"),
        (
            lambda f: f[0]["embedder"].update(dimension="x"),
            'line 1: the header.s embedder dimension "x" is not a whole number',
        ),
        (
            lambda f: f[0]["embedder"].update(dimension=[384]),
            "line 1: the header's embedder dimension \\[384\\] is not a whole number",
        ),
        (
            lambda f: f[0]["embedder"].update(dimension=True),
            "line 1: the header's embedder dimension true is not a whole number",
        ),
        (lambda f: f.pop(0), "line 1: not a recmem-export file"),
        (lambda f: f[1].update(labels=["ApiKey"]), 'line 2: label "ApiKey" is not a memory node'),
        (lambda f: f[1]["properties"].update(embedding=[0.1]), 'line 2: property "embedding" is not taken'),
        (lambda f: f[1]["properties"].update(tenant="t9"), 'line 2: property "tenant" is not taken'),
        (lambda f: f[1]["properties"].pop("speaker"), 'line 2: Interaction "int_1" needs a speaker'),
        (lambda f: f[1]["properties"].update(occurred_at={"$datetime": "soon"}), "line 2: \\$datetime value"),
        (lambda f: f[1]["properties"].update(x={"a": 1}), "line 2: not a property value"),
        (lambda f: f[2].update(id="int_1"), 'line 3: node "int_1" appears twice'),
        (lambda f: f[3].update(type="HAS"), "line 4: not an edge type an import takes"),
        (
            lambda f: f[2]["properties"].update(status="bogus"),
            'line 3: Fact "fact_1": status "bogus" is not one',
        ),
        (
            lambda f: f[2]["properties"].update(kind="nonsense"),
            'line 3: Fact "fact_1": kind "nonsense" is not',
        ),
        (
            lambda f: f[2]["properties"].update(valid_from="yesterday"),
            "line 3: .*valid_from must be a \\$datetime",
        ),
        (lambda f: f[2]["properties"].update(valid_to={"$date": "2024-05-01"}), "line 3: .*valid_to must be"),
        (lambda f: f[2]["properties"].pop("created_at"), 'line 3: Fact "fact_1" needs created_at'),
        (lambda f: f[1]["properties"].update(seq="1"), 'line 2: Interaction "int_1": seq must be an integer'),
        (
            lambda f: f[1]["properties"].update(consolidated=None),
            'line 2: Interaction "int_1" needs consolidated',
        ),
        (lambda f: f[3].update(to="int_9"), 'line 4: DERIVED_FROM names node "int_9", which the file lacks'),
        (
            lambda f: f[3].update(type="SUPERSEDES"),
            "line 4: SUPERSEDES must join two facts or two episode versions",
        ),
        (
            lambda f: _supersede(f, ("fact_1", "fact_2"), ("fact_2", "fact_1")),
            "line 7: SUPERSEDES closes a cycle",
        ),
        (lambda f: _supersede(f, ("fact_1", "fact_1")), "line 6: SUPERSEDES closes a cycle"),
        (lambda f: f.pop(), "incomplete or was changed"),
        (lambda f: f.append({"kind": "comment"}), 'line 5: unknown kind "comment"'),
    ],
)
def test_a_bad_file_is_refused_naming_why(change: Any, message: str) -> None:
    found = lines()
    change(found)
    with pytest.raises(InvalidInput, match=message):
        parse(text(found))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f[0]["embedder"].update(dimension=True), "dimension true is not"),
        (lambda f: f[1]["properties"].update(x={"a": 1}), 'not a property value: {"a": 1}'),
        (lambda f: f[1].update(id=None), "characters, got null"),
        (lambda f: f[1].update(labels=[None]), "list of names, got [null]"),
        (lambda f: f.append({"kind": None}), "unknown kind null (header"),
        (
            lambda f: f[1]["properties"].update(seq="1"),
            'Interaction "int_1": seq must be an integer, got "1"',
        ),
        (lambda f: f[1]["properties"].update(utc_offset_s=True), "within a day of UTC, got true"),
        (lambda f: f[2]["properties"].update(status="café"), 'Fact "fact_1": status "café" is not one'),
        (
            lambda f: f[2]["properties"].update(valid_to={"$date": "2024-05-01"}),
            "valid_to must be a $datetime with an offset, in the years 1 to 9999 in UTC, "
            'got {"$date": "2024-05-01"}',
        ),
        (lambda f: f[1]["properties"].update(x={"a": "y" * 300}), 'not a property value: {"a": "yyy'),
    ],
)
def test_a_refusal_quotes_the_files_values_as_json(change: Any, message: str) -> None:
    found = lines()
    change(found)
    with pytest.raises(InvalidInput) as refused:
        parse(text(found))
    assert message in str(refused.value)
    assert "None" not in str(refused.value) and "True" not in str(refused.value)
    assert len(str(refused.value)) < 200  # a long value is cut


def test_a_file_whose_counts_differ_says_both_in_words() -> None:
    found = lines()
    found.pop()  # the edge
    found[0]["counts"]["nodes"] = {"Interaction": 2, "Fact": 1}
    with pytest.raises(InvalidInput) as refused:
        parse(text(found))
    assert str(refused.value) == (
        'the file holds 2 nodes {"Fact": 1, "Interaction": 1} and 0 edges, its header counts '
        '3 nodes {"Fact": 1, "Interaction": 2} and 1 edge {"DERIVED_FROM": 1}: it is incomplete '
        "or was changed"
    )


def test_recmem_import_refuses_a_newer_file_before_it_connects(tmp_path: Path) -> None:
    found = lines()
    found[0]["schema_version"] = SCHEMA_VERSION + 1
    path = tmp_path / "user.jsonl"
    path.write_text("".join(text(found)))
    # No Neo4j listens there: the refusal comes from the file alone.
    env = {"RECMEM_NEO4J_URI": "bolt://127.0.0.1:9", "RECMEM_NEO4J_RETRY_SECONDS": "0.1"}
    result = CliRunner().invoke(app, ["import", "--tenant", "t2", "--user", "bob", str(path)], env=env)
    assert result.exit_code == 2
    assert "newer than this service's" in result.stderr
    binary = tmp_path / "photo.jsonl"
    binary.write_bytes(b"".join(t.encode() for t in text(lines())[:1]) + b"\x89PNG\xff\n")
    result = CliRunner().invoke(app, ["import", "--user", "bob", str(binary)], env=env)
    assert (result.exit_code, result.stderr.strip()) == (2, "error: line 2: not UTF-8 text (byte 1)")


def test_an_instant_keeps_its_nanoseconds_and_its_offset() -> None:
    moment = DateTime.from_native(datetime(2024, 5, 1, 9, tzinfo=UTC))
    assert decode_value(encode_value(moment)) == moment


def test_recmem_export_refuses_an_output_it_cannot_write_before_it_connects(tmp_path: Path) -> None:
    env = {"RECMEM_NEO4J_URI": "bolt://127.0.0.1:9", "RECMEM_NEO4J_RETRY_SECONDS": "0.1"}
    for output, why in (
        (tmp_path / "missing" / "x.jsonl", "the folder .* does not exist"),
        (tmp_path, "it is a folder"),
    ):
        args = ["export", "--tenant", "ta", "--user", "bob", "-o", str(output)]
        result = CliRunner().invoke(app, args, env=env)
        assert result.exit_code == 2, result.stderr
        assert re.fullmatch(f"error: cannot write {re.escape(str(output))}: {why}\n", result.stderr)
