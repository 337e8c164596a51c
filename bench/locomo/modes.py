"""The modes a run compares, and the engine settings each one streams with."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bench.locomo.results import Thresholds
from consolidation.settings import EngineSettings
from consolidation.types import Budgets

MODES = ("recmem", "eager", "raw", "focused-raw")
# Modes that never consolidate: the subconscious layer alone.
UNCONSOLIDATED = ("raw", "focused-raw")
RAW_BATCH = 50
# Raw recall again, with as many interactions as fit in the context recmem recalled for the same
# question: shows whether recmem's recall is bought by a larger context.
MATCHED = "raw@recmem-tokens"
MATCH_POOL = 100
# Context sizes (o200k tokens) at which every mode's assembled context is scored.
TOKEN_BUDGETS = (250, 500, 1000, 2000)


@dataclass
class Options:
    answers: bool
    budgets: Budgets = field(default_factory=Budgets)
    token_budgets: tuple[int, ...] = TOKEN_BUDGETS
    # "off" / "rules" / "llm": every mode recalls with that planner; "both": the modes' rows with it off,
    # and a `<mode>+planner` row per mode recalled again with the rules.
    planner: str = "rules"
    # A JSON-lines file that receives every scored context's text (--contexts); None: not kept.
    contexts: Path | None = None


PLANNED = "+planner"


def mode_settings(mode: str, base: EngineSettings) -> EngineSettings:
    """recmem and the raw modes use `base` (they never consolidate); eager opens the gate for
    every unit. `raw` is plain retrieval: its contexts show every turn whole and as said.
    `focused-raw` shows them as recmem's contexts do (focused on the query, relative dates
    resolved beside them), which tells how much of recmem's lead over raw that accounts for."""
    if mode == "raw":
        return base.model_copy(update={"context_focus": False, "context_dates": False})
    if mode != "eager":
        return base
    # model_copy skips validation on purpose: the service refuses theta_count 1.
    # merge_batch 1: eager merges each unit the moment it arrives, never waiting for a batch.
    return base.model_copy(update={"theta_count": 1, "theta_sim": 1.0, "gate_top_k": 1, "merge_batch": 1})


def thresholds(settings: EngineSettings, embedder: str) -> Thresholds:
    return {
        "theta_sim": settings.theta_sim_for(embedder),
        "theta_count": settings.resolved_theta_count,
        "gate_top_k": settings.resolved_gate_top_k,
        "merge_threshold": settings.merge_threshold_for(embedder),
    }
