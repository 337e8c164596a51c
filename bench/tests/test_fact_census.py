"""The fact census counts a tenant's facts by the declarative rule, from the database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bench.fact_census import census, fact_rows
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from tests.support.engines import DIMENSION, engine_settings

pytestmark = pytest.mark.bench
T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def test_census_counts_each_failing_shape() -> None:
    speakers = ["Ida", "Olek"]
    rows = [
        {"speakers": speakers, "status": "active", "text": "On 1 May 2024 Ida bakes rye bread on Sundays."},
        {"speakers": speakers, "status": "active", "text": "On 1 May 2024 Olek said Keep baking rye bread."},
        {
            "speakers": speakers,
            "status": "superseded",
            "text": "On 1 May 2024 Ida said thanks for the flour.",
        },
    ]
    report = census(rows, examples=1)
    assert report["active"] == {"facts": 2, "declarative": 1, "share": 0.5, "shapes": {"imperative": 1}}
    assert report["all"]["shapes"] == {"greeting": 1, "imperative": 1}
    assert report["examples"]["greeting"] == ["On 1 May 2024 Ida said thanks for the flour."]


async def test_census_reads_the_facts_a_run_built(db: Database, owner: Owner) -> None:
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    said = [
        ("Ida", "I bake rye bread with caraway every Sunday."),
        ("Olek", "Keep baking rye bread with caraway, it smells great."),
        ("Ida", "I sell rye bread with caraway at the farmers market."),
        ("Olek", "I tried rye bread with caraway at the market in Gdansk."),
    ]
    for n, (speaker, text) in enumerate(said):
        await engine.remember(owner, Unit(text=text, speaker=speaker, occurred_at=T0 + timedelta(minutes=n)))
    await engine.consolidate(owner)
    rows = await fact_rows(db, owner.tenant)
    assert rows and {row["user_id"] for row in rows} == {owner.user_id}
    assert set(rows[0]["speakers"]) == {"Ida", "Olek"}
    report = census(rows)
    assert report["all"]["facts"] == len(rows) and report["all"]["declarative"] == len(rows)
