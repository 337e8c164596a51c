"""Each recall layer's hits carry the score they were ranked by (`rankScore`, reciprocal-rank
fusion of the similarity and lexical rankings) and come sorted by it, highest first."""

from __future__ import annotations

from tests.support.api import Caller, tell_story

RECALL = """
query($q: String!) {
  recall(userId: "alice", query: $q, budget: { subconscious: 10, episodic: 5, semantic: 10 }) {
    subconscious { score rankScore interaction { id } }
    episodic { score rankScore episode { id } }
    semantic { score rankScore fact { id } }
  }
}"""
RRF_K = 60  # consolidation/recall/recaller.py: the best a hit can score is 2 / (RRF_K + 1), first in both


async def test_each_layer_is_sorted_by_the_score_it_shows(caller: Caller) -> None:
    await tell_story(caller)
    recall = (await caller.gql(RECALL, {"q": "sushi salmon"}))["recall"]
    for layer in ("subconscious", "episodic", "semantic"):
        ranks = [hit["rankScore"] for hit in recall[layer]]
        assert ranks, layer
        assert ranks == sorted(ranks, reverse=True), (layer, ranks)
        assert all(0 < r <= 2 / (RRF_K + 1) for r in ranks), (layer, ranks)
    # The top turn was first in at least one of the two rankings.
    assert recall["subconscious"][0]["rankScore"] >= 1 / (RRF_K + 1)
