"""Scope tokens and the metadata map's rules (graph/scopes.py), and the batch check that runs them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from consolidation.recall.filters import scope_filter
from consolidation.types import MetadataCondition, RecallFilters, Unit
from consolidation.writing.checks import check_batch
from graph.errors import InvalidInput
from graph.models import Owner
from graph.scopes import Metadata, metadata_json, metadata_problem, scope_tokens, scoped_ids

OWNER = Owner("t", "u")


def test_tokens_name_agent_session_speaker_and_each_metadata_value() -> None:
    tokens = scope_tokens("a1", "s1", "user", {"tags": ["x", "y", "x"], "n": 2.0, "ok": True, "c": "2"})
    assert tokens == [
        "agent:a1",
        "session:s1",
        "speaker:user",
        'meta:c="2"',
        "meta:n=2",
        "meta:ok=true",
        'meta:tags="x"',
        'meta:tags="y"',
    ]
    assert scoped_ids(tokens, "agent:") == ["a1"]
    assert scope_tokens(None, None, "bot", None) == ["speaker:bot"]


def test_a_number_and_its_string_are_different_values() -> None:
    assert scope_tokens(None, None, "u", {"n": 1}) != scope_tokens(None, None, "u", {"n": "1"})
    assert scope_tokens(None, None, "u", {"n": 1}) == scope_tokens(None, None, "u", {"n": 1.0})
    assert scope_tokens(None, None, "u", {"n": True}) != scope_tokens(None, None, "u", {"n": 1})


@pytest.mark.parametrize(
    ("metadata", "words"),
    [
        ({f"k{i}": 1 for i in range(33)}, "33 keys; at most 32"),
        ({"bad key": 1}, "'bad key' is not allowed"),
        ({"1st": 1}, "'1st' is not allowed"),
        ({"k" * 65: 1}, "longer than 64 bytes"),
        ({"k": "v" * 513}, "'k': the value is 513 bytes; the limit is 512"),
        ({"k": None}, "'k': a value must be a string"),
        ({"k": {"nested": 1}}, "'k': a value must be a string"),
        ({"k": [1, 2]}, "'k': a list may hold strings only"),
        ({"k": ["a"] * 33}, "'k': a list holds at most 32"),
        ({"k": float("nan")}, "'k': a number must be finite"),
        ({"k": ["\ud800"]}, "'k': in its list: the value is not valid Unicode"),
        ({f"k{i}": "v" * 200 for i in range(30)}, "larger than 4096 bytes"),
    ],
)
def test_each_rule_names_its_key(metadata: dict[str, object], words: str) -> None:
    problem = metadata_problem(metadata)
    assert problem is not None and words in problem, problem


def test_a_valid_map_passes_and_is_stored_as_sorted_json() -> None:
    metadata: Metadata = {"topic": "travel", "priority": 2, "pinned": False, "tags": ["a", "b"], "w": 0.5}
    assert metadata_problem(metadata) is None
    assert (
        metadata_json(metadata) == '{"pinned":false,"priority":2,"tags":["a","b"],"topic":"travel","w":0.5}'
    )
    assert metadata_json({}) is None


def test_the_batch_check_refuses_the_whole_batch_naming_the_unit() -> None:
    good = Unit(text="fine", metadata={"topic": "travel"})
    bad = Unit(text="also fine", metadata={"topic": ["travel", 3]})
    check_batch(OWNER, [good, good], 1024)
    with pytest.raises(InvalidInput, match=r"interaction 1 metadata: metadata 'topic': a list may hold"):
        check_batch(OWNER, [good, bad], 1024)
    with pytest.raises(InvalidInput, match="interaction 0 agent_id must not be empty"):
        check_batch(OWNER, [Unit(text="x", agent_id=" ")], 1024)
    for blank in ("", " "):
        with pytest.raises(InvalidInput, match="interaction 0 session_id must not be empty"):
            check_batch(OWNER, [Unit(text="x", session_id=blank)], 1024)
    check_batch(OWNER, [Unit(text="x")], 1024)  # no session at all is fine


def test_a_filter_becomes_groups_of_tokens() -> None:
    moment = datetime(2024, 5, 1, tzinfo=UTC)
    scope = scope_filter(
        RecallFilters(
            agent_ids=("a1", "a2", "a1"),
            speakers=("user",),
            metadata=(MetadataCondition("topic", ("x",)), MetadataCondition("n", (1, 2.0, "2"))),
            kinds=("preference",),
            occurred_after=moment,
        )
    )
    assert scope.groups == (
        ("agent:a1", "agent:a2"),
        ("speaker:user",),
        ('meta:topic="x"',),
        ("meta:n=1", "meta:n=2", 'meta:n="2"'),
    )
    assert (
        scope.active and scope.params()["f_since"] == moment and scope.params()["f_kinds"] == ["preference"]
    )
    assert not scope_filter(None).active and scope_filter(RecallFilters()).params()["f_scopes"] is None


@pytest.mark.parametrize(
    ("filters", "words"),
    [
        (RecallFilters(agent_ids=()), "filter.agent_ids must name at least one value"),
        (RecallFilters(session_ids=(" ",)), "filter.session_ids must not be empty"),
        (RecallFilters(speakers=tuple(str(i) for i in range(101))), "at most 100 values"),
        (RecallFilters(metadata=(MetadataCondition("bad key", ("x",)),)), "'bad key' is not allowed"),
        (RecallFilters(metadata=()), "filter.metadata must name at least one value"),
        (RecallFilters(metadata=(MetadataCondition("k" * 65, ("x",)),)), "is longer than 64 bytes"),
        # arg-type: a list where a string belongs, as a client's JSON may send.
        (RecallFilters(metadata=(MetadataCondition("k", (["x"],)),)), "a value must be a string"),  # type: ignore[arg-type]
        (RecallFilters(kinds=("opinion",)), "'opinion' is not one of"),
        (
            RecallFilters(
                occurred_after=datetime(2024, 5, 2, tzinfo=UTC),
                occurred_before=datetime(2024, 5, 1, tzinfo=UTC),
            ),
            "filter.occurred_before must be later than filter.occurred_after",
        ),
        (
            RecallFilters(valid_from_after=datetime(2024, 5, 2)),
            "filter.valid_from_after must carry a timezone",
        ),
    ],
)
def test_a_bad_filter_is_refused_naming_its_field(filters: RecallFilters, words: str) -> None:
    with pytest.raises(InvalidInput, match=words):
        scope_filter(filters)


def test_a_time_beyond_year_1_to_9999_in_utc_is_bad_input_not_an_overflow() -> None:
    with pytest.raises(ValidationError, match="years 1 to 9999"):
        Unit(text="x", speaker="alice", occurred_at="0001-01-01T00:30:00+01:00")
    assert Unit(text="x", speaker="alice", occurred_at="0001-01-01T00:00:00Z").occurred_at.year == 1
