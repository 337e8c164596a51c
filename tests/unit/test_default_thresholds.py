"""Unset thresholds resolve to the calibrated values of the default embedder and template, and
to RecMem's reference values for any other embedder; a value that is set always wins."""

from __future__ import annotations

from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.embedding_template import DEFAULT_TEMPLATE
from consolidation.settings import EngineSettings

MINILM = "all-MiniLM-L6-v2"


def test_the_default_embedder_and_template_get_the_calibrated_values() -> None:
    settings = EngineSettings(embedding_template=DEFAULT_TEMPLATE)
    assert (settings.theta_sim_for(MINILM), settings.merge_threshold_for(MINILM)) == (0.834, 0.884)


def test_another_embedder_or_template_gets_the_reference_values() -> None:
    hashing = HashingEmbedder(64).name
    assert EngineSettings().theta_sim_for(hashing) == 0.7
    assert EngineSettings().merge_threshold_for(hashing) == 0.75
    other = EngineSettings(embedding_template="{speaker}: {text}")
    assert (other.theta_sim_for(MINILM), other.merge_threshold_for(MINILM)) == (0.7, 0.75)
    assert EngineSettings(profile="task").theta_sim_for(MINILM) == 0.6


def test_a_set_value_wins() -> None:
    settings = EngineSettings(theta_sim=0.5, merge_threshold=0.55)
    assert (settings.theta_sim_for(MINILM), settings.merge_threshold_for(MINILM)) == (0.5, 0.55)
