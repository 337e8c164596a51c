"""BM25 over one user's items (graph/lexical.py), against a direct computation of Lucene's."""

from __future__ import annotations

import math
from typing import Any

from graph.lexical import K1, B, query_terms, rank, stored_length, words


def _item(n: int, text: str) -> dict[str, Any]:
    return {"id": f"i{n:02d}", "text": text}


def _bm25(
    text: str, terms: list[str], texts: list[str], documents: int, average: float | None = None
) -> float:
    """Lucene's BM25 written out once more, query clause by clause, for the comparison."""
    if average is None:
        average = sum(len(words(t)) for t in texts) / len(texts)
    score = 0.0
    for term in terms:
        df = sum(term in words(t) for t in texts)
        tf = words(text).count(term)
        if df and tf:
            idf = math.log(1 + (documents - df + 0.5) / (df + 0.5))
            score += idf * tf / (tf + K1 * (1 - B + B * stored_length(len(words(text))) / average))
    return score


def test_scores_are_lucene_bm25_over_the_given_items_and_their_count() -> None:
    texts = ["Violin lesson on Monday", "the violin, the violin again", "garden and tomato seeds", "violin"]
    items = [_item(n, t) for n, t in enumerate(texts)]
    terms = query_terms("Violin garden GARDEN")
    assert terms == ["violin", "garden", "garden"]
    found = rank(items, "text", terms, documents=40, k=10)
    expected = sorted(((i["id"], _bm25(i["text"], terms, texts, 40)) for i in items), key=lambda p: -p[1])
    assert [i["id"] for i, _ in found] == [i for i, _ in expected]
    assert [s for _, s in found] == [s for _, s in expected]
    # The collection's size moves the weights: with 4 items "violin" (in 3) is common.
    pair = ["violin", "garden"]
    small = dict((i["id"], s) for i, s in rank(items, "text", pair, documents=4, k=10))
    large = dict((i["id"], s) for i, s in rank(items, "text", pair, documents=40, k=10))
    assert small["i02"] > small["i03"]
    assert large["i02"] < large["i03"]


def test_a_repeated_query_word_counts_twice_as_in_the_lucene_query() -> None:
    items = [_item(1, "violin lesson"), _item(2, "garden lesson")]
    once = dict((i["id"], s) for i, s in rank(items, "text", ["violin", "garden"], documents=10, k=10))
    twice = dict(
        (i["id"], s) for i, s in rank(items, "text", ["violin", "garden", "garden"], documents=10, k=10)
    )
    assert once["i01"] == twice["i01"]
    assert math.isclose(twice["i02"], 2 * once["i02"])


def test_the_average_length_is_the_users_own_when_given() -> None:
    texts = ["violin", "violin lesson on a cold day", "garden"]
    items = [_item(n, t) for n, t in enumerate(texts)]
    # 30 items of 300 words in all: an average of 10, not the candidates' 2.67.
    found = dict(
        (i["id"], s) for i, s in rank(items, "text", ["violin"], documents=30, k=10, total_length=300)
    )
    assert math.isclose(found["i00"], _bm25("violin", ["violin"], texts, 30, average=10.0))
    assert math.isclose(found["i01"], _bm25(texts[1], ["violin"], texts, 30, average=10.0))
    guessed = dict((i["id"], s) for i, s in rank(items, "text", ["violin"], documents=30, k=10))
    assert math.isclose(guessed["i00"], _bm25("violin", ["violin"], texts, 30))
    assert not math.isclose(guessed["i00"], found["i00"])


def test_lengths_are_rounded_as_lucene_norms_keep_them() -> None:
    # Exact below 24 words; then 4 significant bits above 24 (SmallFloat.intToByte4/byte4ToInt).
    assert [stored_length(n) for n in (0, 1, 23, 24, 39, 40, 41, 42, 100, 1000)] == [
        0, 1, 23, 24, 39, 40, 40, 42, 96, 984,
    ]  # fmt: skip


def test_words_follow_the_standard_tokenisers_word_breaks() -> None:
    text = "Caroline's U.S.A. trip cost 1,000 dollars; 3.5 hours, e.g. a.1 don\u2019t hello_world 東京"
    assert words(text) == [
        "caroline's", "u.s.a", "trip", "cost", "1,000", "dollars", "3.5", "hours", "e.g",
        "a", "1", "don\u2019t", "hello_world", "東", "京",
    ]  # fmt: skip
    assert query_terms("Caroline's  caroline") == ["caroline's", "caroline"]


def test_items_without_a_query_word_drop_and_ties_go_by_text_then_id() -> None:
    items = [_item(3, "red apple"), _item(1, "red apple"), _item(2, "blue sky"), _item(0, "rad apple")]
    found = rank(items, "text", ["apple"], documents=4, k=10)
    assert [i["id"] for i, _ in found] == ["i00", "i01", "i03"]
    assert rank(items, "text", ["apple"], documents=4, k=2)[1][0]["id"] == "i01"
    assert rank(items, "text", [], documents=3, k=10) == []
    assert rank([], "text", ["apple"], documents=0, k=10) == []


def test_items_not_searched_count_in_the_statistics_but_are_not_returned() -> None:
    items = [_item(1, "red apple"), _item(2, "green apple pie"), _item(3, "apple")]
    hidden = [items[0], items[1], {**items[2], "searched": False}]
    assert [i["id"] for i, _ in rank(hidden, "text", ["apple"], documents=3, k=10)] == ["i01", "i02"]
    assert rank(hidden, "text", ["apple"], documents=3, k=10) == [
        pair for pair in rank(items, "text", ["apple"], documents=3, k=10) if pair[0]["id"] != "i03"
    ]
