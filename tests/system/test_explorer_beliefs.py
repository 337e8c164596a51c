"""The explorer corrects and retracts a fact and adds one by hand, in a real browser, and the
fact's audit view shows each change (what, why, who, when) and the superseding fact.

A `recmem serve` on the session's Neo4j is seeded over HTTP with the sushi story (an episode
created, then merged); chromium signs in, opens the merge's fact, corrects it, follows the
correction to the new fact, retracts that, and adds a fact on the list; a replacement an older
version wrote out of time order, repaired by migration, shows as such. Screenshots go to the
folder the test prints (RECMEM_EXPLORER_SHOTS to choose it).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.backfill import backfill
from graph.database import Database
from graph.models import Owner
from graph.settings import Neo4jSettings
from harness.serve_process import free_port
from tests.support.api import STORY
from tests.support.browser import browser_page, offline_chromium
from tests.support.engines import DIMENSION
from tests.support.misordered import consolidate, old_replacement
from tests.support.serve import STORY_SETTINGS, KeyedService, keyed_service, serve_env

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
REMEMBER = """mutation($input: RememberInput!) {
  remember(input: $input, consolidate: true) { consolidation { action factIds } }
}"""
AUDIT = """query($id: ID!) { fact(id: $id) { status supersededBy { fact { id text } reason }
  audit { corrections { trigger reason by } } } }"""
KEY_NAME = "support-desk"


@pytest.fixture(scope="module")
def service(
    neo4j_settings: Neo4jSettings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[KeyedService]:
    env = serve_env(neo4j_settings, free_port(), **STORY_SETTINGS)
    with keyed_service(env, tmp_path_factory.mktemp("beliefs-serve"), "--name", KEY_NAME) as service:
        yield service


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with offline_chromium() as chromium:
        yield chromium


def _seed(service: KeyedService) -> str:
    """The sushi story for dave; the merge's fact id."""
    done: list[dict[str, Any]] = []
    for day, text in enumerate(STORY):
        unit = {
            "userId": "dave",
            "text": text,
            "speaker": "dave",
            "occurredAt": (T0 + timedelta(days=day)).isoformat(),
        }
        done.append(service.post(REMEMBER, {"input": unit})["remember"]["consolidation"])
    assert done[3]["action"] == "MERGED" and done[3]["factIds"], done
    return str(done[3]["factIds"][0])


def _shots() -> Path:
    named = os.environ.get("RECMEM_EXPLORER_SHOTS")
    folder = Path(named) if named else Path(tempfile.mkdtemp(prefix="recmem-beliefs-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nexplorer screenshots in {folder}")
    return folder


def _fill(page: Page, form: str, **fields: str) -> None:
    scope = page.get_by_role("form", name=form)
    for label, value in fields.items():
        scope.get_by_label(label.capitalize()).fill(value)


@contextmanager
def _signed_in(browser: Browser, service: KeyedService) -> Iterator[tuple[Page, list[str]]]:
    """A page of its own signed in to the explorer, and the errors the page raises."""
    problems: list[str] = []
    with browser_page(browser, height=900) as page:
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(f"{service.base}/ui")
        page.get_by_label("API key").fill(service.key)
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_test_id("tenant")).to_contain_text(service.tenant, timeout=30_000)
        yield page, problems


def test_the_explorer_corrects_retracts_and_adds_facts(service: KeyedService, browser: Browser) -> None:
    fact_id = _seed(service)
    shots = _shots()
    with _signed_in(browser, service) as (page, problems):
        page.goto(f"{service.base}/ui#/u/dave/facts/{fact_id}")
        detail = page.get_by_test_id("fact-detail")
        expect(detail).to_be_visible(timeout=30_000)
        expect(detail.get_by_text("None: memory holds it as consolidation wrote it.")).to_be_visible()

        # Correct: the old fact is superseded, replaced by the new one for the reason given, and
        # its changes list the correction with who made it.
        page.get_by_role("button", name="Correct…").click()
        _fill(page, "Correct the fact", **{"corrected statement": "Dave can't stand salmon sushi any more."})
        _fill(page, "Correct the fact", reason="clearer wording")
        page.screenshot(path=str(shots / "01-correcting.png"))
        page.get_by_role("button", name="Save correction").click()
        expect(page.get_by_test_id("superseded-by")).to_contain_text(
            "Dave can't stand salmon sushi any more.", timeout=30_000
        )
        expect(page.get_by_test_id("superseded-by")).to_contain_text("clearer wording")
        changes = page.get_by_test_id("fact-corrections")
        expect(changes).to_contain_text("Corrected")
        expect(changes).to_contain_text(KEY_NAME)
        expect(page.get_by_test_id("fact-actions")).to_have_count(0)  # superseded: nothing to change
        page.screenshot(path=str(shots / "02-corrected.png"))
        audited = service.post(AUDIT, {"id": fact_id})["fact"]
        assert audited["status"] == "SUPERSEDED"
        new_id = audited["supersededBy"][0]["fact"]["id"]

        # Retract the correction itself: its audit shows both changes.
        page.get_by_test_id("superseded-by").get_by_role("link").click()
        expect(page.get_by_role("heading", name="“Dave can't stand salmon sushi any more.”")).to_be_visible(
            timeout=30_000
        )
        page.get_by_role("button", name="Retract…").click()
        _fill(page, "Retract the fact", reason="Dave never said it")
        page.get_by_role("form", name="Retract the fact").get_by_role("button", name="Retract").click()
        changes = page.get_by_test_id("fact-corrections")
        expect(changes.locator("li")).to_have_count(2, timeout=30_000)
        expect(changes.locator("li[data-trigger=retraction]")).to_contain_text("Dave never said it")
        expect(page.get_by_test_id("fact-detail").get_by_text("retracted", exact=True).first).to_be_visible()
        page.screenshot(path=str(shots / "03-retracted.png"))
        made = service.post(AUDIT, {"id": new_id})["fact"]
        assert made["status"] == "RETRACTED"
        assert [(c["trigger"], c["reason"]) for c in made["audit"]["corrections"]] == [
            ("correction", "clearer wording"),
            ("retraction", "Dave never said it"),
        ]
        assert all(c["by"].startswith(f"{KEY_NAME} (key_") for c in made["audit"]["corrections"])

        # Add a fact by hand on the list: it is listed, active.
        page.goto(f"{service.base}/ui#/u/dave/facts")
        page.get_by_role("button", name="Add a fact…").click()
        _fill(page, "Add a fact", statement="Dave is allergic to shellfish.")
        page.get_by_role("form", name="Add a fact").get_by_label("Kind").select_option("ATTRIBUTE")
        page.get_by_role("form", name="Add a fact").get_by_role("button", name="Add").click()
        expect(page.get_by_test_id("fact-list")).to_contain_text(
            "Dave is allergic to shellfish.", timeout=30_000
        )
        page.screenshot(path=str(shots / "04-added.png"))
    assert problems == []


def test_a_replacement_repaired_on_upgrade_shows_as_such(
    service: KeyedService, browser: Browser, neo4j_settings: Neo4jSettings
) -> None:
    owner = Owner(service.tenant, "erin")

    async def misordered_then_migrated() -> str:
        """Erin's later fact closed by an earlier one as older versions wrote it, then a migration."""
        db = Database.connect(neo4j_settings)
        try:
            embedder = HashingEmbedder(DIMENSION)
            later, _ = await consolidate(db, owner, embedder, "Erin drinks coffee.", 60)
            await old_replacement(db, owner, embedder, later, "Erin drinks tea.", 1, "switched drinks")
            assert (await backfill(db, recheck=True)).replacements >= 1
            return later
        finally:
            await db.close()

    # Playwright's sync API runs an event loop on this thread: the store's coroutine gets its own.
    with ThreadPoolExecutor(1) as thread:
        fact_id = thread.submit(asyncio.run, misordered_then_migrated()).result()
    with _signed_in(browser, service) as (page, problems):
        page.goto(f"{service.base}/ui#/u/erin/facts/{fact_id}")
        expect(page.get_by_test_id("fact-detail")).to_be_visible(timeout=30_000)
        expect(page.get_by_role("heading", name="Changes", exact=True)).to_be_visible()
        repair = page.get_by_test_id("fact-corrections").locator("li[data-trigger=upgrade]")
        expect(repair).to_contain_text("Repaired on upgrade", timeout=30_000)
        expect(repair).to_contain_text("recmem upgrade")
        expect(repair).to_contain_text("had replaced")
        page.screenshot(path=str(_shots() / "05-repaired.png"))
    assert problems == []
