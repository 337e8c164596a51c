"""Intent-aware recall planning: read a question for its time window, order, count and names
before searching (docs/design/planner.md)."""

from consolidation.recall.planning.plan import Order, Plan, QuestionKind, Window
from consolidation.recall.planning.rules import plan_question

__all__ = ["Order", "Plan", "QuestionKind", "Window", "plan_question"]
