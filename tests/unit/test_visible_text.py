"""The one rule for texts people send (graph/validation.py require_text): at least one visible
character; a fact's text and a reason also refuse NUL, a turn keeps its control characters."""

from __future__ import annotations

import pytest

from consolidation.types import Unit
from consolidation.writing.checks import check_batch
from graph.errors import InvalidInput
from graph.models import Owner
from graph.validation import require_text


@pytest.mark.parametrize("text", ["", " \t\n", "\u200b\u00a0", "\u200d\ufeff\u2060", "\u2028\x00"])
def test_a_text_with_nothing_visible_is_refused(text: str) -> None:
    with pytest.raises(InvalidInput, match="must not be empty"):
        require_text("text", text, 100)


def test_nul_is_refused_only_where_asked() -> None:
    require_text("text", "a\x00b", 100)
    with pytest.raises(InvalidInput, match=r"U\+0000 \(NUL\) at character 1"):
        require_text("reason", "a\x00b", 100, nul=False)


def test_a_turn_of_zero_width_spaces_is_refused_and_one_with_tabs_kept() -> None:
    owner = Owner("t", "alice")
    with pytest.raises(InvalidInput, match="no visible character"):
        check_batch(owner, [Unit(text="\u200b\u200b", speaker="alice")], 100)
    check_batch(owner, [Unit(text="line one\n\tline two", speaker="alice")], 100)
