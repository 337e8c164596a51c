"""The thresholds a setting left unset resolves to: calibrated for a known (embedder, template),
else RecMem's reference values for the profile (docs/design/calibration.md).

all-MiniLM-L6-v2 with the default template: `recmem calibrate` on the LoCoMo dev file (target 0.10)
gives theta_sim 0.834; the merge threshold is 0.05 above it, as calibration sets it.
"""

from __future__ import annotations

from consolidation.providers.embedding_template import DEFAULT_TEMPLATE

REFERENCE_MERGE_THRESHOLD = 0.75
# (embedder name, template) -> (theta_sim, merge_threshold), for the chat profile.
CALIBRATED: dict[tuple[str, str], tuple[float, float]] = {
    ("all-MiniLM-L6-v2", DEFAULT_TEMPLATE): (0.834, 0.884),
}


def calibrated(embedder: str, template: str, profile: str) -> tuple[float, float] | None:
    """The calibrated (theta_sim, merge_threshold) of this embedder and template, if known."""
    return CALIBRATED.get((embedder, template)) if profile == "chat" else None
