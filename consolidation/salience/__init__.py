"""Salience: a check on every write, with no LLM call, for one-off statements worth keeping at once."""

from consolidation.salience.detector import SalienceDetector, SalienceError, detector_for

__all__ = ["SalienceDetector", "SalienceError", "detector_for"]
