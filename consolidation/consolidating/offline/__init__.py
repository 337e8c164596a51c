"""The offline consolidator: extractive, deterministic, no model and no network.

It keeps the service usable (and testable) without an LLM endpoint, and the LoCoMo bench's local
LLM server answers the engine's prompts with the same rules. Every run it records says `offline` /
`extractive-v2` with zero tokens. The rules, a module each (its docstring states them):

- `splitting`: a turn's sentences, without interjections, asides and vocatives; a shared photo
  becomes a sentence of its own.
- `statements`: a sentence restated self-contained (names for "I" and "you", absolute dates, who
  said it and when), shared by episodes and facts; `dates` resolves the relative dates, and
  annotates them in the turns a recall context shows.
- `words`: content words and informative words; `units`: the rendered sentences of turns, and
  which are informative; `declarative`: which are statements about someone (no questions,
  greetings, thanks, imperatives or subjectless reactions), the only ones facts and summaries
  are made of.
- `summary`: the bounded extractive summary of an episode; `episodes`: titles and merges.
- `facts`: one fact per informative sentence, its kind, near-duplicates dropped, at most 8;
  `preferences`: when a new preference replaces a fact.
- `answers`: the evidence items sharing the most content words with the question.
- `consolidator`: `OfflineConsolidator`, the `Consolidator` interface over these rules.
"""

from consolidation.consolidating.offline.answers import ANSWER_TOP
from consolidation.consolidating.offline.consolidator import MODEL, OfflineConsolidator
from consolidation.consolidating.offline.dates import annotate_relative_dates, resolve_relative_dates
from consolidation.consolidating.offline.declarative import MIN_INFORMATIVE, declarative, shape
from consolidation.consolidating.offline.episodes import MERGE_MIN_FRACTION, MERGE_MIN_SHARED
from consolidation.consolidating.offline.facts import FACT_DUPLICATE, FACTS_MAX, classify
from consolidation.consolidating.offline.preferences import stance
from consolidation.consolidating.offline.splitting import sentences
from consolidation.consolidating.offline.statements import resolve_first_person, resolve_second_person
from consolidation.consolidating.offline.summary import (
    SUMMARY_MAX_SENTENCES,
    SUMMARY_MAX_WORDS,
    SUMMARY_REDUNDANT,
)
from consolidation.consolidating.offline.words import content_words

__all__ = [
    "ANSWER_TOP",
    "FACTS_MAX",
    "FACT_DUPLICATE",
    "MERGE_MIN_FRACTION",
    "MERGE_MIN_SHARED",
    "MIN_INFORMATIVE",
    "MODEL",
    "SUMMARY_MAX_SENTENCES",
    "SUMMARY_MAX_WORDS",
    "SUMMARY_REDUNDANT",
    "OfflineConsolidator",
    "annotate_relative_dates",
    "classify",
    "content_words",
    "declarative",
    "resolve_first_person",
    "resolve_relative_dates",
    "resolve_second_person",
    "sentences",
    "shape",
    "stance",
]
