"""Withdrawn beliefs in answers (docs/corrections.md#what-recall-and-answers-say-after-a-change):
the answer prompt lists them only when there are some, and is byte for byte the earlier prompt
otherwise; the offline answerer leaves out the sentences that state one; a recall's context is
the same whatever it names, and a recall with no episode or turn among its evidence asks nothing."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.consolidating.offline.answers import without_withdrawn
from consolidation.consolidating.prompts import answer
from consolidation.consolidating.prompts.answer import AnswerInput, EvidenceItem, WithdrawnBelief
from consolidation.recall.answering import Answerer
from consolidation.types import Recall
from graph.models import Episode, Fact, Hit, Interaction, Owner
from graph.recall import Sources
from tests.support.recall_search import CannedSearch, canned_recall

MAY_1 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
OWNER = Owner("t", "alice")
RETRACTED = "On 1 May 2024 alice lives in Paris near the river."


def _input(**extra: Any) -> AnswerInput:
    return AnswerInput(
        question="Where does Alice live?",
        as_of=None,
        asked_at=datetime(2023, 6, 14, 9, 0, tzinfo=UTC),
        facts=[
            EvidenceItem(id="f1", text="Alice walks to work.", at=datetime(2023, 5, 8, 14, 30, tzinfo=UTC))
        ],
        episodes=[
            EvidenceItem(
                id="e1",
                text="On 8 May 2023 alice lives in Paris.",
                at=datetime(2023, 5, 8, 14, 30, tzinfo=UTC),
            )
        ],
        interactions=[
            EvidenceItem(
                id="i1", text="I live in Paris.", at=datetime(2023, 5, 8, 14, 30, tzinfo=UTC), **extra
            )
        ],
    )


def test_the_answer_prompt_without_withdrawn_beliefs_is_the_earlier_one_byte_for_byte() -> None:
    # sha256 of json.dumps(answer.messages(_input())) at c4ce7c3, before withdrawn beliefs existed.
    earlier = "f0b6a38890ad84a543f1a57e2c73defa1a0a72eb1aae1819fe8363d611009813"
    for inp in (_input(), _input(speaker="alice")):  # a turn's speaker is not shown either
        assert hashlib.sha256(json.dumps(answer.messages(inp)).encode()).hexdigest() == earlier


def test_the_answer_prompt_lists_withdrawn_beliefs_with_their_rule() -> None:
    belief = WithdrawnBelief(text="On 8 May 2023 alice lives in Paris.", kind="attribute", change="retracted")
    listed = _input().model_copy(update={"withdrawn_beliefs": [belief]})
    messages = answer.messages(listed)
    assert messages[0] == answer.messages(_input())[0]  # the system prompt stays
    user = messages[1]["content"]
    assert user.startswith(f"{answer.WITHDRAWN_RULE} {answer.INSTRUCTION}\n\n<memory_data>")
    data = json.loads(user.split("<memory_data>\n", 1)[1].split("\n</memory_data>", 1)[0])
    assert data["withdrawn_beliefs"] == [
        {"change": "retracted", "kind": "attribute", "text": "On 8 May 2023 alice lives in Paris."}
    ]
    # The data block reads back as the input (the benchmarks' offline server does so).
    assert AnswerInput.model_validate(data).withdrawn_beliefs == [belief]


async def test_the_offline_answer_leaves_out_sentences_stating_a_withdrawn_belief() -> None:
    items = [
        EvidenceItem(id="f1", text="On 2 May 2024 alice walks to work.", at=MAY_1),
        EvidenceItem(id="e1", text=f"{RETRACTED} On 2 May 2024 alice walks to work.", at=MAY_1),
        # The turns the belief came from, said by alice: rendered as the consolidator renders them.
        EvidenceItem(
            id="i1", text="Hi! I live in Paris near the river. I love it.", at=MAY_1, speaker="alice"
        ),
        EvidenceItem(id="i2", text="I live in Paris near the river.", at=MAY_1, speaker="alice"),
        # Said by someone else, it is not the belief withdrawn.
        EvidenceItem(id="i3", text="I live in Paris near the river.", at=MAY_1, speaker="bob"),
    ]
    withdrawn = [WithdrawnBelief(text=RETRACTED, kind="attribute", change="retracted")]
    assert [(i.id, i.text) for i in without_withdrawn(items, withdrawn)] == [
        ("f1", "On 2 May 2024 alice walks to work."),
        ("e1", "On 2 May 2024 alice walks to work."),
        ("i1", "Hi! I love it."),
        ("i3", "I live in Paris near the river."),
    ]
    assert without_withdrawn(items, []) == items

    inp = AnswerInput(
        question="Where does Alice live?", facts=items[:1], episodes=items[1:2], interactions=items[2:4]
    )
    offline = OfflineConsolidator()
    assert "Paris" in (await offline.answer(inp)).value.answer
    draft = (await offline.answer(inp.model_copy(update={"withdrawn_beliefs": withdrawn}))).value
    assert draft.used_ids == ["f1", "e1"] and "Paris" not in draft.answer


# -- the recaller ---------------------------------------------------------------------------------


def _turn(n: int, text: str) -> Interaction:
    at = MAY_1 + timedelta(days=n)
    return Interaction(f"int_{n}", "t", "alice", None, "alice", text, at, n, True, None, at)


EPISODE = Episode("epi_1", "t", "alice", "Home", RETRACTED, 2, MAY_1, MAY_1, MAY_1, True, MAY_1)
TURNS = [_turn(1, "I live in Paris near the river."), _turn(2, "My flat has a small balcony.")]
PARIS = Fact(
    "fact_1", "t", "alice", RETRACTED, "attribute", "retracted", MAY_1, MAY_1 + timedelta(days=9), MAY_1
)


class _Search(CannedSearch):
    """The turns and the episode as candidates (none when `empty`); `sources` names each of
    `withdrawn` as reaching `reach`, and records the candidates it was asked about."""

    def __init__(
        self, withdrawn: list[Fact], empty: bool = False, reach: tuple[str, ...] = ("int_1",)
    ) -> None:
        turns = [] if empty else [Hit(t, 0.9 - t.seq / 10) for t in TURNS]
        super().__init__(turns, [] if empty else [Hit(EPISODE, 0.5)])
        self.found = withdrawn
        self.reach = list(reach)
        self.asked: list[tuple[list[str], list[str], datetime | None]] = []

    async def sources(
        self,
        owner: Owner,
        episode_ids: list[str],
        fact_ids: list[str],
        interaction_ids: Sequence[str] = (),
        as_of: datetime | None = None,
        *,
        withdrawn: bool = True,
    ) -> Sources:
        self.asked.append((list(interaction_ids), episode_ids, as_of))
        episodes: dict[str, list[tuple[str, float | None]]] = {
            e: [("int_0", 0.6), ("int_1", 0.5)] for e in episode_ids
        }
        return Sources(episodes, {}, [(f, self.reach) for f in self.found])


async def _recall(search: _Search, tokens: int | None) -> Recall:
    return await canned_recall(search, OWNER, "Where does Alice live?", tokens=tokens)


async def test_a_recalls_context_and_hits_are_the_same_whatever_it_names() -> None:
    for tokens in (None, 500):
        none, named = _Search([]), _Search([PARIS])
        without, withdrawn = await _recall(none, tokens), await _recall(named, tokens)
        assert without.withdrawn == [] and withdrawn.withdrawn == [PARIS]
        assert withdrawn.context is not None or tokens is None
        assert replace(withdrawn, withdrawn=[]) == without
        # Asked once, in the provenance statement, about the candidates: the turns and the episode.
        assert named.asked == [(["int_1", "int_2"], ["epi_1"], None)]


async def test_a_belief_is_named_only_where_the_evidence_reaches_it() -> None:
    # int_0 is a turn of the episode only: the hits hold the episode, a 500-token context holds
    # the turns int_1 and int_2 in its place.
    for tokens, named in ((None, [PARIS]), (500, [])):
        found = await _recall(_Search([PARIS], reach=("int_0",)), tokens)
        assert found.withdrawn == named, tokens
    # At most ten, in the order the store gives (the latest first).
    many = [replace(PARIS, id=f"fact_{n:02}") for n in range(12)]
    found = await _recall(_Search(many), None)
    assert [f.id for f in found.withdrawn] == [f.id for f in many[:10]]


async def test_a_recall_with_no_episode_or_turn_in_its_evidence_names_nothing() -> None:
    search = _Search([], empty=True)
    found = await _recall(search, 500)
    # No ids: the store sends no statement (tests/integration/test_withdrawn.py counts them).
    assert found.withdrawn == [] and search.asked == [([], [], None)]


async def test_the_answerer_tells_the_consolidator_the_withdrawn_beliefs() -> None:
    superseded = replace(PARIS, id="fact_2", status="superseded", text="Alice has a balcony.")
    seen: list[AnswerInput] = []

    class _Offline(OfflineConsolidator):
        async def answer(self, inp: AnswerInput) -> Any:
            seen.append(inp)
            return await super().answer(inp)

    class _Runs:
        async def record_runs(self, *args: Any) -> None:
            return None

    answerer = Answerer(_Offline(), cast(Any, _Runs()))
    recall = await _recall(_Search([PARIS, superseded]), None)
    await answerer.answer(OWNER, "Where does Alice live?", recall)
    await answerer.answer(OWNER, "Where does Alice live?", replace(recall, withdrawn=[]))
    named, plain = seen
    assert [(b.change, b.text) for b in named.withdrawn_beliefs] == [
        ("retracted", RETRACTED),
        ("corrected", "Alice has a balcony."),
    ]
    assert plain.withdrawn_beliefs == []
    assert {i.speaker for i in named.interactions} == {"alice"}
