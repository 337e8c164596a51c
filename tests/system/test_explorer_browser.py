"""The memory explorer (`/ui`) in a real browser, as a support person would use it, offline.

A `recmem serve` process on the session's Neo4j is seeded over HTTP with a small consolidated
history: 28 unrelated notes, then the sushi story (an episode created, then merged, whose new
fact supersedes the old ones), and one turn of a second user. Debian's chromium then signs in,
finds the user, scrolls the timeline, opens the episode's versions and a fact's audit graph,
follows the SUPERSEDES chain, runs a recall as of a past time, sees a live consolidation arrive
after a `remember` sent from here, forgets an interaction, and at a phone's width is signed out
when its key is revoked. Another user's facts are corrected by hand, across navigations between
them. Other users' memory is filtered by agent, session and metadata, exported as a file, and
paged through (more episodes than one page of the API). Every step saves a screenshot under a
folder the test prints; every request the page makes must stay on the service's origin.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Locator, Page, WebSocket, expect

from graph.settings import Neo4jSettings
from harness.serve_process import free_port, free_ports, serving
from tests.support.api import STORY
from tests.support.browser import browser_page, offline_chromium
from tests.support.serve import (
    READY_WITHIN_S,
    STORY_SETTINGS,
    KeyedService,
    keyed_service,
    run_recmem,
    serve_env,
)

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
# Unrelated notes (no two share enough words for the recurrence gate): they fill the first page
# of the timeline, so the story is reached only by scrolling.
NOTES = [
    "The train to Lyon leaves at seven.",
    "Bought a blue umbrella yesterday.",
    "Quarterly taxes are due in June.",
    "Grandma turns ninety next spring.",
    "Printer jammed twice this morning.",
    "Finished reading Middlemarch finally.",
    "Chess club meets on Thursdays.",
    "Dentist appointment moved to Friday.",
    "Our router needs a firmware update.",
    "Hiking boots got soaked at the lake.",
    "Jazz concert tickets sold out.",
    "Painting the hallway sage green.",
    "Volunteered at the food bank.",
    "Flight delayed by two hours.",
    "Learning Portuguese verbs slowly.",
    "Garden tomatoes ripened early.",
    "Laptop battery drains quickly now.",
    "Neighbours adopted a grey kitten.",
    "Marathon training starts in March.",
    "Borrowed a ladder from Tom.",
    "Cousin Ana is getting married.",
    "Office heating broke again.",
    "Planted tulip bulbs in October.",
    "Podcast about volcanoes was great.",
    "Renewed my passport online.",
    "Bike chain snapped on the hill.",
    "Tried pottery class downtown.",
    "Kitchen faucet keeps dripping.",
]
STORY_DAY = len(NOTES)  # the story's first turn; one turn a day
REMEMBER = """mutation($input: RememberInput!, $now: Boolean) {
  remember(input: $input, consolidate: $now) {
    interactionId
    consolidation { action episodeId factIds supersededFactIds consolidatedIds }
  }
}"""
FACT = "query($id: ID!) { fact(id: $id) { id text kind status } }"
ADD_FACT = """mutation($user: ID!, $text: String!, $kind: FactKind!) {
  addFact(userId: $user, text: $text, kind: $kind) { fact { id } }
}"""
# The audit graph's node count (a data attribute): more than the fact and its neighbours.
MANY_NODES = re.compile(r"^(?:[6-9]|[1-9]\d+)$")
PHONE = 375  # a small phone's width, in CSS pixels
EPISODE_PAGE = 25  # episodes per page of the explorer's list (ui/src/views/Episodes.tsx)


@dataclass(frozen=True)
class Seeded:
    """What the seeding wrote, as the API reported it."""

    new_fact: str  # the fact of the merge (it supersedes old_fact)
    old_fact: str
    episode: str  # the merged episode version
    forget_text: str
    new_fact_kind: str  # its FactKind, as the API names it


@pytest.fixture(scope="module")
def service(
    neo4j_settings: Neo4jSettings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[KeyedService]:
    """`recmem serve` (background consolidation, offline consolidator, hashing embedder) with the
    thresholds of tests/support/api.py: three similar turns open an episode, the fourth merges."""
    env = serve_env(
        neo4j_settings,
        free_port(),
        **STORY_SETTINGS,
        # The notes stay raw turns (one is an appointment): recurrence alone forms the story.
        RECMEM_SALIENCE="off",
        # A revoked key is refused at once (no per-process key cache).
        RECMEM_API_AUTH_CACHE_S="0",
    )
    workdir = tmp_path_factory.mktemp("explorer-serve")
    with keyed_service(env, workdir, "--name", "explorer-test") as service:
        yield service


def _remember(
    service: KeyedService, user: str, text: str, day: float, session: str, **scopes: Any
) -> dict[str, Any]:
    """One turn, consolidated at once; `scopes` adds `agentId` or `metadata`."""
    unit = {
        "userId": user,
        "text": text,
        "speaker": user,
        "sessionId": session,
        "occurredAt": (T0 + timedelta(days=day)).isoformat(),
        **scopes,
    }
    return dict(service.post(REMEMBER, {"input": unit, "now": True})["remember"])


@pytest.fixture(scope="module")
def seeded(service: KeyedService) -> Seeded:
    for day, text in enumerate(NOTES):
        assert _remember(service, "alice", text, day, "notes")["consolidation"]["action"] == "NONE"
    story = [_remember(service, "alice", text, STORY_DAY + n, "food") for n, text in enumerate(STORY)]
    _remember(service, "bob", "Bob likes chess.", 1, "b1")
    created, merged = story[2]["consolidation"], story[3]["consolidation"]
    assert (created["action"], merged["action"]) == ("CREATED", "MERGED"), story
    assert merged["supersededFactIds"], "the merge superseded no fact"
    new_fact = service.post(FACT, {"id": merged["factIds"][0]})["fact"]
    old_fact = service.post(FACT, {"id": merged["supersededFactIds"][0]})["fact"]["text"]
    return Seeded(new_fact["text"], old_fact, merged["episodeId"], STORY[1], new_fact["kind"])


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with offline_chromium() as chromium:
        yield chromium


class Recorder:
    """Every request, websocket and sent frame of a page, and any error or CSP refusal."""

    def __init__(self, page: Page) -> None:
        self.requests: list[str] = []
        self.sockets: list[WebSocket] = []
        self.sent: list[str] = []
        self.problems: list[str] = []
        self.errors: list[str] = []  # the console's other errors (a refused key's 401 is one)
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("websocket", self._socket)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("console", self._console)

    def _socket(self, socket: WebSocket) -> None:
        self.sockets.append(socket)
        socket.on("framesent", lambda payload: self.sent.append(str(payload)))

    def _console(self, message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Refused to" in message.text:
            self.problems.append(f"console: {message.text}")
        elif message.type == "error":
            self.errors.append(f"{message.text} ({message.location.get('url')})")

    def assert_quiet(self, base: str, *provoked: int, at: str = "/graphql") -> None:
        """No error in the console but the answers of `base`'s `at` with a `provoked` status (a
        key refused on purpose, a store that is away): no missing file (a favicon), no exception."""
        expected = tuple(f"status of {status} " for status in provoked)
        other = [
            e for e in self.errors if not (e.endswith(f"({base}{at})") and any(s in e for s in expected))
        ]
        assert other == [], f"console errors: {other}"

    def assert_same_origin(self, base: str) -> None:
        origin = urlsplit(base).netloc
        elsewhere = [url for url in self.requests if urlsplit(url).netloc != origin]
        assert elsewhere == [], f"requests left {origin}: {elsewhere}"
        assert all(urlsplit(ws.url)[:3] == ("ws", origin, "/graphql") for ws in self.sockets), [
            ws.url for ws in self.sockets
        ]
        assert self.problems == []


class Shots:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.paths: list[str] = []

    def take(self, page: Page, name: str) -> None:
        path = self.folder / f"{len(self.paths) + 1:02d}-{name}.png"
        page.screenshot(path=str(path))
        self.paths.append(str(path))

    @contextmanager
    def on_failure(self, page: Page, seen: Recorder, name: str) -> Iterator[None]:
        """When the block fails: a screenshot of the page as it was, and its problems noted on the error."""
        try:
            yield
        except Exception as error:
            self.take(page, name)
            error.add_note(f"page problems: {seen.problems}")
            raise


@contextmanager
def recorded_page(
    browser: Browser, shots: Shots, failure: str, **options: Any
) -> Iterator[tuple[Page, Recorder]]:
    """A page of its own (`options` as browser_page takes them) and its Recorder; a failure inside
    is pictured as `failure`."""
    with browser_page(browser, **options) as page:
        seen = Recorder(page)
        with shots.on_failure(page, seen, failure):
            yield page, seen


def _sign_in(page: Page, service: KeyedService, key: str) -> None:
    page.goto(f"{service.base}/ui")
    page.get_by_label("API key").fill(key)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_test_id("tenant")).to_contain_text(service.tenant, timeout=30_000)


def _wait_for(condition: Any, what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _set_input(field: Locator, value: str) -> None:
    """Sets an input's value as its own picker would (React sees the input event), also to values
    that `fill` refuses but the field takes, like a five-digit year in a datetime-local."""
    field.evaluate(
        """(element, value) => {
            Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(element, value);
            element.dispatchEvent(new Event("input", { bubbles: true }));
        }""",
        value,
    )
    expect(field).to_have_value(value)


def _assert_open_tab_shown(page: Page) -> None:
    """The open view's tab is whole within the row of tabs and the page (not cut off by either)."""
    tabs = page.get_by_role("navigation", name="User views")
    row, tab = tabs.bounding_box(), tabs.locator("[aria-current=page]").bounding_box()
    assert row and tab, "no tabs shown"
    width = page.viewport_size["width"] if page.viewport_size else PHONE
    inside = (
        row["x"] - 0.5 <= tab["x"] and tab["x"] + tab["width"] <= min(row["x"] + row["width"], width) + 0.5
    )
    assert inside, f"the open tab {tab} is cut off by its row {row} or the page's width {width}"


def _scroll_to_end(page: Page) -> None:
    """Scrolls until the timeline says it has reached the end of the stream (infinite scroll)."""
    end = page.get_by_text("End of the stream")
    for _ in range(20):
        if end.count():
            return
        page.get_by_test_id("interaction").last.scroll_into_view_if_needed()
        page.mouse.wheel(0, 4000)
        page.wait_for_timeout(300)
    expect(end).to_be_visible(timeout=30_000)


def test_the_page_is_served_with_a_strict_policy(service: KeyedService) -> None:
    for path in ("/ui", "/ui/"):
        page = httpx.get(f"{service.base}{path}", timeout=30)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        csp = page.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self';" in csp and "unsafe" not in csp
        assert f"connect-src 'self' ws://{urlsplit(service.base).netloc}" in csp
        assert "http" not in page.text.replace('name="referrer"', ""), "the page names another origin"
    for asset in (Path(__file__).resolve().parents[2] / "api" / "explorer" / "dist" / "assets").iterdir():
        served = httpx.get(f"{service.base}/ui/assets/{asset.name}", timeout=30)
        assert served.status_code == 200 and served.content == asset.read_bytes(), asset.name
        assert served.headers["cache-control"] == "public, max-age=31536000, immutable"
    for missing in ("nope.js", "..%2F__init__.py"):
        assert httpx.get(f"{service.base}/ui/assets/{missing}", timeout=30).status_code == 404


@pytest.fixture
def shots(capsys: pytest.CaptureFixture[str], record_property: Any) -> Iterator[Shots]:
    """A folder of its own (pytest's tmp dirs are pruned by later runs): RECMEM_EXPLORER_SHOTS
    when set (docs/explorer.md's pictures come from such a run), else a new temp dir. Printed even
    when the test fails, with a picture of the page at the failure."""
    named = os.environ.get("RECMEM_EXPLORER_SHOTS")
    folder = Path(named) if named else Path(tempfile.mkdtemp(prefix="recmem-explorer-"))
    folder.mkdir(parents=True, exist_ok=True)
    taken = Shots(folder)
    try:
        yield taken
    finally:
        record_property("screenshots", " ".join(taken.paths))
        with capsys.disabled():
            print(f"\nexplorer screenshots in {folder}:", *taken.paths, sep="\n  ")


# Carol's turns, written in this order: a session of May 2024, one of December 2026, then one of
# March 2024. The timeline reads them as said (March, May, December), whatever the write order.
CAROL = [
    ("2024-05-07T10:00:00+00:00", "late", "Carol ordered ramen with pork belly."),
    ("2024-05-07T10:05:00+00:00", "late", "Carol loves a rich ramen broth."),
    ("2026-12-03T08:00:00+00:00", "future", "Carol plans a ramen trip to Sapporo."),
    ("2024-03-01T09:00:00+00:00", "early", "Carol tried ramen for the first time."),
]
CAROL_GROUPS = ["2024-03-01 · session early", "2024-05-07 · session late", "2026-12-03 · session future"]


def test_the_timeline_reads_in_time_order_and_hits_by_their_score(
    service: KeyedService, browser: Browser, shots: Shots
) -> None:
    for at, session, text in CAROL:
        unit = {"userId": "carol", "text": text, "speaker": "carol", "sessionId": session, "occurredAt": at}
        service.post(REMEMBER, {"input": unit, "now": False})
    with recorded_page(browser, shots, "time-order-failure") as (page, seen):
        _sign_in(page, service, service.key)
        page.get_by_role("link", name="carol").click()
        items = page.get_by_test_id("interaction")
        expect(items).to_have_count(len(CAROL), timeout=30_000)
        expect(page.get_by_test_id("timeline-group")).to_have_text(CAROL_GROUPS)
        said = [text for _, _, text in sorted(CAROL)]
        assert [items.nth(n).locator(".text").inner_text() for n in range(len(CAROL))] == said
        shots.take(page, "timeline-time-order")

        # Recall: each layer's hits sorted by the score shown, which is the one they were ranked by.
        page.get_by_role("link", name="Recall", exact=True).click()
        page.get_by_label("Query").fill("ramen broth")
        page.get_by_role("button", name="Recall").click()
        turns = page.get_by_test_id("layer-subconscious").locator("li")
        expect(turns).to_have_count(len(CAROL), timeout=30_000)
        shown = [float(t) for t in turns.locator(".score").all_inner_texts()]
        assert shown == sorted(shown, reverse=True), shown
        ranked = [float(r) for r in turns.evaluate_all("items => items.map(i => i.dataset.rankScore)")]
        # Shown to 4 decimals (JavaScript's toFixed, which rounds 0.03125 up where Python's round,
        # half to even, rounds it down): equal within half a unit of the last place.
        assert shown == pytest.approx(ranked, abs=5e-5 + 1e-9), (shown, ranked)
        assert len(set(ranked)) > 1, ranked  # a real ranking, not one score for all
        shots.take(page, "recall-ranked")
    seen.assert_same_origin(service.base)
    seen.assert_quiet(service.base)


def test_a_support_session_in_the_explorer(
    service: KeyedService, seeded: Seeded, browser: Browser, shots: Shots
) -> None:
    with recorded_page(browser, shots, "failure") as (page, seen):
        # Sign-in: a wrong key is refused in place, the right one shows the tenant.
        page.goto(f"{service.base}/ui")
        page.get_by_label("API key").fill("rmk_not-a-key")
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("alert")).to_contain_text("refused", timeout=30_000)
        shots.take(page, "sign-in-refused")
        _sign_in(page, service, service.key)
        assert page.evaluate("() => Object.values(sessionStorage)") == [service.key]
        assert page.evaluate("() => localStorage.length") == 0

        # Users: both are listed; the search keeps alice only.
        expect(page.get_by_role("link", name="bob")).to_be_visible(timeout=30_000)
        page.get_by_label("Search users").fill("ali")
        expect(page.get_by_role("link", name="bob")).to_have_count(0, timeout=30_000)
        alice = page.get_by_role("row", name="alice")
        expect(alice).to_contain_text(str(len(NOTES) + len(STORY)))
        shots.take(page, "users")

        # Timeline: one page of 25, the story only after scrolling; its turns are consolidated.
        page.get_by_role("link", name="alice").click()
        expect(page.get_by_test_id("interaction")).to_have_count(25, timeout=30_000)
        assert page.get_by_text(STORY[3]).count() == 0
        _scroll_to_end(page)
        expect(page.get_by_test_id("interaction")).to_have_count(len(NOTES) + len(STORY))
        merged_turn = page.get_by_test_id("interaction").filter(has_text=STORY[3])
        expect(merged_turn).to_contain_text("consolidated")
        expect(merged_turn).to_contain_text("v2")
        expect(page.get_by_test_id("interaction").filter(has_text=NOTES[0])).to_contain_text("raw only")
        merged_turn.scroll_into_view_if_needed()
        shots.take(page, "timeline")

        # The episode it was absorbed into: two versions, the merge shown as a diff.
        merged_turn.get_by_role("link", name="v2").click()
        versions = page.get_by_test_id("episode-version")
        expect(versions).to_have_count(2, timeout=30_000)
        expect(versions.first).to_contain_text("current")
        assert versions.first.locator("ins").count() + versions.first.locator("del").count() > 0
        versions.first.locator("summary").click()
        expect(versions.first).to_contain_text(STORY[3])
        shots.take(page, "episode-versions")

        # Facts: the kind filter (the API's, not the loaded page's), the merge's fact, its audit
        # graph, and the fact it superseded.
        page.get_by_role("link", name="Facts", exact=True).click()
        new_fact = page.get_by_test_id("fact-list").get_by_role("link", name=seeded.new_fact, exact=True)
        other_kind = "EVENT" if seeded.new_fact_kind != "EVENT" else "PLAN"
        page.get_by_label("Kind").select_option(other_kind)
        expect(new_fact).to_have_count(0, timeout=30_000)
        page.get_by_label("Kind").select_option(seeded.new_fact_kind)
        expect(new_fact.first).to_be_visible(timeout=30_000)
        new_fact.first.click()
        graph = page.get_by_test_id("audit-graph")
        expect(graph).to_have_attribute("data-nodes", MANY_NODES, timeout=30_000)
        expect(graph.locator("canvas").first).to_be_attached()
        expect(page.get_by_test_id("supersedes")).to_contain_text(seeded.old_fact)
        expect(page.get_by_test_id("fact-history")).to_contain_text(seeded.old_fact)
        graph.evaluate("element => element.scrollIntoView({block: 'end'})")
        page.wait_for_timeout(500)  # the picture after the scroll has been painted
        shots.take(page, "fact-audit")

        # Following SUPERSEDES backwards: the old fact, replaced by the new one.
        page.get_by_test_id("supersedes").get_by_role("link", name=seeded.old_fact).click()
        expect(page.get_by_role("heading", name=seeded.old_fact)).to_be_visible(timeout=30_000)
        expect(page.get_by_test_id("superseded-by")).to_contain_text(seeded.new_fact)
        expect(page.get_by_test_id("fact-detail")).to_contain_text("superseded")
        shots.take(page, "fact-superseded")

        # Recall as of the day between the episode's creation and its merge: the old fact held.
        page.get_by_role("link", name="Recall", exact=True).click()
        page.get_by_label("Query").fill("sushi with salmon")
        as_of = T0 + timedelta(days=STORY_DAY + 2, hours=12)
        page.get_by_label("As of (UTC)").fill(as_of.strftime("%Y-%m-%dT%H:%M"))
        page.get_by_role("button", name="Recall").click()
        result = page.get_by_test_id("recall-result")
        expect(result).to_contain_text(as_of.strftime("%Y-%m-%d %H:%M"), timeout=30_000)
        semantic = page.get_by_test_id("layer-semantic")
        expect(semantic).to_contain_text(seeded.old_fact)
        assert seeded.new_fact not in semantic.inner_text()
        expect(page.get_by_test_id("recall-context")).to_contain_text("sushi")
        shots.take(page, "recall-as-of")

        # The question's day: "last week" resolves against it, and the plan says so.
        page.get_by_label("As of (UTC)").fill("")
        page.get_by_label("Query").fill("What sushi did I have last week?")
        asked = T0 + timedelta(days=STORY_DAY + 9, hours=12)
        page.get_by_label("Asked on (UTC)").fill(asked.strftime("%Y-%m-%dT%H:%M"))
        page.get_by_role("button", name="Recall").click()
        plan = page.get_by_test_id("recall-plan")
        expect(plan).to_contain_text("“last week”", timeout=30_000)
        expect(plan).to_contain_text(asked.strftime("%Y-%m-%d %H:%M"))
        shots.take(page, "recall-plan")

        # Live: a remember sent from here (consolidated in the background) arrives as a MERGED
        # event once the page's subscription is open.
        page.get_by_role("link", name="Timeline", exact=True).click()
        _wait_for(lambda: any('"subscribe"' in frame for frame in seen.sent), "the subscription")
        page.wait_for_timeout(1_000)  # the server registers the subscriber before the event
        live_text = "I love sushi with salmon and tuna again."
        reply = service.post(REMEMBER, {"input": {"userId": "alice", "text": live_text}, "now": None})
        assert reply["remember"]["consolidation"] is None  # left to the background
        events = page.get_by_test_id("live-events")
        expect(events).to_contain_text("MERGED", timeout=60_000)
        expect(page.get_by_test_id("user-stats")).to_contain_text(str(len(NOTES) + len(STORY) + 1))
        shots.take(page, "live-event")

        # Forget a consolidated turn: the confirmation lists it and the rebuilt episode.
        _scroll_to_end(page)
        target = page.get_by_test_id("interaction").filter(has_text=seeded.forget_text)
        expect(target).to_have_count(1)
        target.get_by_role("button", name="Forget").click()
        preview = page.get_by_test_id("forget-preview")
        expect(preview).to_contain_text("Interactions (1)", timeout=30_000)
        expect(preview).to_contain_text(seeded.forget_text)
        expect(preview).to_contain_text("Episodes rebuilt")
        shots.take(page, "forget-confirm")
        page.get_by_role("button", name="Forget for good").click()
        expect(page.get_by_role("dialog")).to_have_count(0, timeout=30_000)
        _scroll_to_end(page)
        expect(page.get_by_text(seeded.forget_text, exact=True)).to_have_count(0, timeout=30_000)
        expect(page.get_by_text(STORY[3], exact=True)).to_have_count(1)
        shots.take(page, "forgotten")

        # Forget a whole user: the confirmation counts what goes; the user leaves the list.
        page.get_by_role("link", name="Users", exact=True).click()
        page.get_by_role("link", name="bob", exact=True).click()
        page.get_by_role("button", name="Forget user…").click()
        everything = page.get_by_test_id("forget-user-preview")
        expect(everything).to_contain_text("1 interaction", timeout=30_000)
        shots.take(page, "forget-user-confirm")
        page.get_by_role("button", name="Erase everything").click()
        expect(page.get_by_role("heading", name="Users")).to_be_visible(timeout=30_000)
        expect(page.get_by_role("link", name="alice", exact=True)).to_be_visible(timeout=30_000)
        expect(page.get_by_role("link", name="bob", exact=True)).to_have_count(0)

    with recorded_page(browser, shots, "failure-phone", width=PHONE, height=844, is_mobile=True) as (
        small,
        seen_small,
    ):
        # A phone's width: no sideways scrolling, the open view's tab in sight; a revoked key sends
        # the tab back to sign-in.
        second = service.keys("create", "--tenant", service.tenant, "--name", "phone", "--json")
        _sign_in(small, service, str(second["key"]))
        small.get_by_role("link", name="alice").click()
        small.get_by_role("link", name="Facts", exact=True).click()
        small.get_by_test_id("fact-list").get_by_role("link", name=seeded.new_fact, exact=True).first.click()
        expect(small.get_by_test_id("audit-graph")).to_have_attribute(
            "data-nodes", MANY_NODES, timeout=30_000
        )
        assert small.evaluate("() => document.documentElement.scrollWidth") <= PHONE
        _assert_open_tab_shown(small)
        shots.take(small, "phone-fact")
        for view, shown in (("timeline", NOTES[1]), ("recall", "Recall playground")):
            small.evaluate(f"() => {{ window.location.hash = '#/u/alice/{view}' }}")
            expect(small.get_by_text(shown).first).to_be_visible(timeout=30_000)
            assert small.evaluate("() => document.documentElement.scrollWidth") <= PHONE, view
            _assert_open_tab_shown(small)
        service.keys("revoke", str(second["id"]))
        # The next read is refused (or the server closes the subscription's socket first): either
        # way the tab is signed out. A hash change asks for the users whichever page shows.
        small.evaluate("() => { window.location.hash = '#/' }")
        expect(small.get_by_role("alert")).to_contain_text("expired or revoked", timeout=30_000)
        expect(small.get_by_label("API key")).to_be_visible()
        assert small.evaluate("() => sessionStorage.getItem('recmem.explorer.apiKey')") is None
        shots.take(small, "phone-revoked")

    seen.assert_same_origin(service.base)
    seen_small.assert_same_origin(service.base)
    seen.assert_quiet(service.base, 401)  # the wrong key
    seen_small.assert_quiet(service.base, 401)  # the revoked key
    assert any("/ui/assets/cytoscape-" in url for url in seen.requests), seen.requests


# Dave: two turns and two facts added by hand, which the next test changes in the explorer.
SCOPED_FACTS = """query($user: ID!, $filter: RecallFilter) { user(id: $user) {
  facts(first: 100, filter: $filter) { nodes { text agentIds sessionIds } } } }"""
DAVE_TURNS = ["Dave moved to a flat with a roof terrace.", "Dave starts a new job on Monday."]
DAVE_FACTS = ["Dave keeps bees on the roof.", "Dave drinks his coffee black."]


def test_changes_by_hand_stay_with_the_fact_on_screen(
    service: KeyedService, browser: Browser, shots: Shots
) -> None:
    """Correct, retract, add and forget in the explorer: a form belongs to the fact on screen,
    whatever the navigation in between, and the user's header counts each change at once."""
    for day, text in enumerate(DAVE_TURNS):
        _remember(service, "dave", text, day, "d1")
    added = [{"user": "dave", "text": text, "kind": "ATTRIBUTE"} for text in DAVE_FACTS]
    first, second = (service.post(ADD_FACT, fact)["addFact"]["fact"]["id"] for fact in added)
    with recorded_page(browser, shots, "changes-failure") as (page, seen):
        _sign_in(page, service, service.key)
        page.get_by_role("link", name="dave").click()
        page.get_by_role("link", name="Facts", exact=True).click()
        stats = page.get_by_test_id("user-stats")
        facts_shown = stats.locator("div", has=page.get_by_text("Facts", exact=True)).locator("dd")
        turns_shown = stats.locator("div", has=page.get_by_text("Interactions", exact=True)).locator("dd")
        expect(facts_shown).to_have_text("2 +0 superseded, 0 retracted", timeout=30_000)
        expect(turns_shown).to_have_text(str(len(DAVE_TURNS)))

        # A Correct form opened on one fact does not follow a hash change (or history) to another.
        page.get_by_test_id("fact-list").get_by_role("link", name=DAVE_FACTS[0]).click()
        expect(page.get_by_role("heading", name=DAVE_FACTS[0])).to_be_visible(timeout=30_000)
        # A fact added by hand rests on no episode and no turn: its lists say so.
        expect(page.get_by_test_id("derived-from")).to_have_text("none")
        expect(page.get_by_test_id("stated-in")).to_have_text("none")
        page.get_by_role("button", name="Correct…").click()
        expect(page.get_by_label("Corrected statement")).to_have_value(DAVE_FACTS[0])
        page.evaluate(f"() => {{ window.location.hash = '#/u/dave/facts/{second}' }}")
        expect(page.get_by_role("heading", name=DAVE_FACTS[1])).to_be_visible(timeout=30_000)
        expect(page.get_by_role("form", name="Correct the fact")).to_have_count(0)
        page.go_back()
        expect(page.get_by_role("heading", name=DAVE_FACTS[0])).to_be_visible(timeout=30_000)
        expect(page.get_by_role("form", name="Correct the fact")).to_have_count(0)
        page.go_forward()
        expect(page.get_by_role("heading", name=DAVE_FACTS[1])).to_be_visible(timeout=30_000)
        page.get_by_role("button", name="Correct…").click()
        expect(page.get_by_label("Corrected statement")).to_have_value(DAVE_FACTS[1])
        corrected = "Dave drinks his coffee with oat milk."
        page.get_by_label("Corrected statement").fill(corrected)
        page.get_by_label("Reason").fill("Dave said so on the phone")
        page.get_by_role("button", name="Save correction").click()
        expect(page.get_by_test_id("superseded-by")).to_contain_text(corrected, timeout=30_000)
        untouched = service.post(FACT, {"id": first})["fact"]
        assert (untouched["text"], untouched["status"]) == (DAVE_FACTS[0], "ACTIVE"), untouched
        # The header counts each change as it is made (no live event announces one).
        expect(facts_shown).to_have_text("2 +1 superseded, 0 retracted", timeout=30_000)
        shots.take(page, "fact-corrected")

        page.evaluate(f"() => {{ window.location.hash = '#/u/dave/facts/{first}' }}")
        expect(page.get_by_role("heading", name=DAVE_FACTS[0])).to_be_visible(timeout=30_000)
        page.get_by_role("button", name="Retract…").click()
        page.get_by_label("Reason").fill("Dave sold the hives")
        page.get_by_role("button", name="Retract", exact=True).click()
        expect(page.get_by_test_id("fact-corrections")).to_contain_text("Retracted", timeout=30_000)
        expect(facts_shown).to_have_text("1 +1 superseded, 1 retracted", timeout=30_000)
        # A retracted fact was not replaced, but it does not hold either: its page says so.
        not_replaced = page.get_by_test_id("superseded-by")
        expect(not_replaced).to_contain_text("retracted")
        expect(not_replaced).to_contain_text("“Dave sold the hives”")
        expect(not_replaced).not_to_contain_text("still holds")
        not_replaced.scroll_into_view_if_needed()
        shots.take(page, "fact-retracted")

        page.get_by_role("link", name="← All facts").click()
        page.get_by_role("button", name="Add a fact…").click()
        page.get_by_label("Statement").fill("Dave grows tomatoes on the terrace.")
        page.get_by_label("Agent (optional)").fill("desk")
        page.get_by_role("button", name="Add", exact=True).click()
        expect(page.get_by_test_id("fact-list")).to_contain_text("tomatoes", timeout=30_000)
        # Given an agent and no session, the fact answers in that agent's scope alone.
        scoped = service.post(SCOPED_FACTS, {"user": "dave", "filter": {"agentIds": ["desk"]}})
        assert [(f["text"], f["agentIds"], f["sessionIds"]) for f in scoped["user"]["facts"]["nodes"]] == [
            ("Dave grows tomatoes on the terrace.", ["desk"], [])
        ]
        expect(facts_shown).to_have_text("2 +1 superseded, 1 retracted", timeout=30_000)

        page.get_by_role("link", name="Timeline", exact=True).click()
        page.get_by_test_id("interaction").filter(has_text=DAVE_TURNS[1]).get_by_role(
            "button", name="Forget"
        ).click()
        expect(page.get_by_test_id("forget-preview")).to_contain_text("Interactions (1)", timeout=30_000)
        page.get_by_role("button", name="Forget for good").click()
        expect(page.get_by_role("dialog")).to_have_count(0, timeout=30_000)
        expect(page.get_by_test_id("interaction")).to_have_count(len(DAVE_TURNS) - 1, timeout=30_000)
        expect(turns_shown).to_have_text(str(len(DAVE_TURNS) - 1), timeout=30_000)
        shots.take(page, "changes-counted")

        # Recall: a time the field takes but no DateTime holds (a five-digit year) is said to be
        # wrong, in place of the last result.
        page.get_by_role("link", name="Recall", exact=True).click()
        page.get_by_label("Query").fill("bees on the roof")
        page.get_by_role("button", name="Recall").click()
        expect(page.get_by_test_id("recall-result")).to_be_visible(timeout=30_000)
        for field in ("As of (UTC)", "Asked on (UTC)"):
            _set_input(page.get_by_label(field), "10000-01-01T00:00")
            page.get_by_role("button", name="Recall").click()
            expect(page.get_by_role("alert")).to_contain_text(f"{field}: not a date", timeout=30_000)
            expect(page.get_by_test_id("recall-result")).to_have_count(0)
            shots.take(page, "recall-invalid-time")
            _set_input(page.get_by_label(field), "")
        page.get_by_role("button", name="Recall").click()
        expect(page.get_by_test_id("recall-result")).to_be_visible(timeout=30_000)
        expect(page.get_by_role("alert")).to_have_count(0)
    seen.assert_same_origin(service.base)
    seen.assert_quiet(service.base)


FORGET = "mutation($id: ID!) { forgetInteraction(id: $id) { restoredFactIds } }"


def test_a_forget_is_named_among_the_changes_of_a_fact(
    service: KeyedService, browser: Browser, shots: Shots
) -> None:
    """Forgetting the turn whose merge replaced facts restores them; each restored fact's audit
    lists the forget as a person's change, worded like the others (trigger `erasure`)."""
    story = [_remember(service, "fran", text, n, "food") for n, text in enumerate(STORY[:4])]
    merged = story[3]["consolidation"]
    assert merged["action"] == "MERGED" and merged["supersededFactIds"], story
    restored = service.post(FORGET, {"id": story[3]["interactionId"]})["forgetInteraction"]["restoredFactIds"]
    assert restored, merged
    fact = service.post(FACT, {"id": restored[0]})["fact"]
    with recorded_page(browser, shots, "erasure-failure") as (page, seen):
        _sign_in(page, service, service.key)
        page.evaluate(f"() => {{ window.location.hash = '#/u/fran/facts/{restored[0]}' }}")
        expect(page.get_by_role("heading", name=fact["text"])).to_be_visible(timeout=30_000)
        change = page.get_by_test_id("fact-corrections").locator("li[data-trigger=erasure]")
        expect(change).to_have_count(1, timeout=30_000)
        expect(change.locator(".badge")).to_have_text("Turn forgotten")
        change.scroll_into_view_if_needed()
        shots.take(page, "fact-turn-forgotten")
    seen.assert_same_origin(service.base)
    seen.assert_quiet(service.base)


# Erin: the sushi story said to agent "chef" in session "dinner" (an episode and its facts), and
# three notes to agent "planner" in two sessions of its own; each with a topic in its metadata.
ERIN_FOOD = STORY[:4]
ERIN_TRAVEL = [("trip", NOTES[0]), ("trip", NOTES[13]), ("visa", NOTES[24])]
FACTS_OF = "query($user: ID!) { user(id: $user) { facts(first: 100) { nodes { text } } } }"
FACT_STATUSES = """query($user: ID!, $filter: RecallFilter) {
  user(id: $user) { facts(first: 100, filter: $filter) { nodes { status } } } }"""


def test_a_scope_filter_narrows_the_views(service: KeyedService, browser: Browser, shots: Shots) -> None:
    """The filter by agent, session and metadata: asked of the API by every list and by recall,
    kept in the hash (a reload or a shared link keeps it), said on screen and
    in the header's counts, and cleared at once."""
    story = [
        _remember(service, "erin", text, day, "dinner", agentId="chef", metadata={"topic": "food"})
        for day, text in enumerate(ERIN_FOOD)
    ]
    assert [s["consolidation"]["action"] for s in story[2:]] == ["CREATED", "MERGED"], story
    for day, (session, text) in enumerate(ERIN_TRAVEL, start=10):
        meta = {"topic": "travel"}
        _remember(service, "erin", text, day, session, agentId="planner", metadata=meta)
    facts = [fact["text"] for fact in service.post(FACTS_OF, {"user": "erin"})["user"]["facts"]["nodes"]]
    assert facts, "the story made no fact"
    everything = len(ERIN_FOOD) + len(ERIN_TRAVEL)
    with recorded_page(browser, shots, "scope-failure") as (page, seen):
        asked: list[str] = []  # the GraphQL requests' bodies: the filter must be the API's
        page.on("request", lambda r: asked.append(r.post_data or "") if r.url.endswith("/graphql") else None)
        _sign_in(page, service, service.key)
        page.evaluate("() => { window.location.hash = '#/u/erin/timeline' }")
        items = page.get_by_test_id("interaction")
        expect(items).to_have_count(everything, timeout=30_000)
        scope = page.get_by_test_id("scope-active")
        expect(scope).to_have_count(0)
        # The header counts what the filter lets through, as the lists do, and says so.
        stats, counted_in_scope = page.get_by_test_id("user-stats"), page.get_by_test_id("stats-filtered")
        turns_shown = stats.locator("div", has=page.get_by_text("Interactions", exact=True)).locator("dd")
        facts_shown = stats.locator("div", has=page.get_by_text("Facts", exact=True)).locator("dd")
        episodes_shown = stats.locator("div", has=page.get_by_text("Episodes", exact=True)).locator("dd")
        expect(turns_shown).to_have_text(str(everything), timeout=30_000)
        expect(counted_in_scope).to_have_count(0)

        # One session: only its turns, said so, in the hash, and asked of the API.
        page.get_by_label("Session", exact=True).fill("trip")
        page.get_by_role("button", name="Apply filter").click()
        trip = [text for session, text in ERIN_TRAVEL if session == "trip"]
        expect(items).to_have_count(len(trip), timeout=30_000)
        assert items.locator(".text").all_inner_texts() == trip
        expect(scope).to_contain_text("session trip")
        expect(turns_shown).to_have_text(str(len(trip)), timeout=30_000)
        expect(counted_in_scope).to_be_visible()
        assert page.evaluate("() => window.location.hash") == "#/u/erin/timeline?session=trip"
        assert any('"sessionIds":["trip"]' in body and "TimelinePage" in body for body in asked)
        shots.take(page, "scope-timeline")
        page.reload()
        expect(items).to_have_count(len(trip), timeout=30_000)
        expect(scope).to_contain_text("session trip")
        expect(page.get_by_label("Session", exact=True)).to_have_value("trip")

        # The tabs keep it: the facts and episodes of that session (none), then of the story's.
        page.get_by_role("link", name="Facts", exact=True).click()
        expect(page.get_by_text("No facts")).to_be_visible(timeout=30_000)
        expect(scope).to_contain_text("session trip")
        expect(facts_shown).to_have_text("0 +0 superseded, 0 retracted", timeout=30_000)
        page.get_by_label("Session", exact=True).fill("dinner")
        page.get_by_role("button", name="Apply filter").click()
        fact_list = page.get_by_test_id("fact-list")
        for text in facts:
            expect(fact_list.get_by_text(text, exact=True).first).to_be_visible(timeout=30_000)
        assert page.evaluate("() => window.location.hash") == "#/u/erin/facts?session=dinner"
        assert any('"sessionIds":["dinner"]' in body and "FactList" in body for body in asked)
        dinner = service.post(FACT_STATUSES, {"user": "erin", "filter": {"sessionIds": ["dinner"]}})
        statuses = [fact["status"] for fact in dinner["user"]["facts"]["nodes"]]
        expect(facts_shown).to_have_text(
            f"{statuses.count('ACTIVE')} +{statuses.count('SUPERSEDED')} superseded, 0 retracted",
            timeout=30_000,
        )
        expect(turns_shown).to_have_text(str(len(ERIN_FOOD)))
        shots.take(page, "scope-facts")
        page.get_by_role("link", name="Episodes", exact=True).click()
        expect(page.locator("ul.cards > li.card")).to_have_count(1, timeout=30_000)
        page.get_by_label("Agent", exact=True).fill("planner")
        page.get_by_role("button", name="Apply filter").click()
        expect(page.get_by_text("No episodes")).to_be_visible(timeout=30_000)
        expect(scope).to_contain_text("agent planner")
        expect(scope).to_contain_text("session dinner")
        expect(episodes_shown).to_have_text("0 (0 versions)", timeout=30_000)
        expect(turns_shown).to_have_text("0")

        # Metadata: key=value, or it is said to be wrong in place.
        page.get_by_role("link", name="Timeline", exact=True).click()
        page.get_by_label("Agent", exact=True).fill("")
        page.get_by_label("Session", exact=True).fill("")
        page.get_by_label("Metadata", exact=True).fill("topic")
        page.get_by_role("button", name="Apply filter").click()
        expect(page.get_by_role("alert")).to_contain_text("key=value", timeout=30_000)
        page.get_by_label("Metadata", exact=True).fill("topic=travel")
        page.get_by_role("button", name="Apply filter").click()
        expect(items).to_have_count(len(ERIN_TRAVEL), timeout=30_000)
        expect(scope).to_contain_text("topic=travel")
        expect(turns_shown).to_have_text(str(len(ERIN_TRAVEL)), timeout=30_000)
        shots.take(page, "scope-counts")
        expect(page.get_by_role("alert")).to_have_count(0)

        # Cleared: everything again, and a hash without a query.
        page.get_by_role("button", name="Clear filter").click()
        expect(items).to_have_count(everything, timeout=30_000)
        expect(scope).to_have_count(0)
        expect(turns_shown).to_have_text(str(everything), timeout=30_000)
        expect(counted_in_scope).to_have_count(0)
        assert page.evaluate("() => window.location.hash") == "#/u/erin/timeline"
        expect(page.get_by_label("Metadata", exact=True)).to_have_value("")

        # A shared link opens filtered; recall takes the same filter.
        page.goto(f"{service.base}/ui/#/u/erin/recall?agent=planner")
        expect(scope).to_contain_text("agent planner", timeout=30_000)
        page.get_by_label("Query").fill("sushi with salmon")
        page.get_by_role("button", name="Recall").click()
        turns = page.get_by_test_id("layer-subconscious").locator("li")
        expect(page.get_by_test_id("recall-result")).to_be_visible(timeout=30_000)
        assert turns.count() > 0
        said = {text for _, text in ERIN_TRAVEL}
        assert all(any(text in turn for text in said) for turn in turns.all_inner_texts())
        expect(page.get_by_test_id("layer-semantic").locator("li")).to_have_count(0)
        assert any('"agentIds":["planner"]' in body and "RecallPlayground" in body for body in asked)
        shots.take(page, "scope-recall")
        # Cleared, the same recall is asked again: the story's facts come back.
        page.get_by_role("button", name="Clear filter").click()
        semantic = page.get_by_test_id("layer-semantic").locator("li")
        expect(semantic.first).to_be_visible(timeout=30_000)
        assert all(any(text in hit for text in facts) for hit in semantic.all_inner_texts())

        # Add a fact starts from the filter in force (agent and metadata) and takes more metadata,
        # one key=value a line: the fact shows in the filtered list and its header's counts.
        page.goto(f"{service.base}/ui/#/u/erin/facts?agent=planner&meta=topic%3Dtravel")
        expect(page.get_by_text("No facts")).to_be_visible(timeout=30_000)
        expect(facts_shown).to_have_text("0 +0 superseded, 0 retracted", timeout=30_000)
        page.get_by_role("button", name="Add a fact…").click()
        form = page.get_by_role("form", name="Add a fact")
        expect(form.get_by_label("Agent (optional)")).to_have_value("planner")
        expect(form.get_by_label("Session (optional)")).to_have_value("")
        metadata = form.get_by_label("Metadata (optional)")
        expect(metadata).to_have_value("topic=travel")
        passport = "Erin renews her passport every ten years."
        form.get_by_label("Statement").fill(passport)
        metadata.fill("topic=travel\npriority")
        form.get_by_role("button", name="Add", exact=True).click()
        expect(form.get_by_role("alert")).to_contain_text("as key=value", timeout=30_000)
        expect(page.get_by_text("No facts")).to_be_visible()
        metadata.fill("topic=travel\npriority=2")
        shots.take(page, "scope-add-fact")
        form.get_by_role("button", name="Add", exact=True).click()
        expect(fact_list.get_by_text(passport)).to_be_visible(timeout=30_000)
        expect(facts_shown).to_have_text("1 +0 superseded, 0 retracted", timeout=30_000)
        by_priority = {"metadata": [{"key": "priority", "equals": 2}], "agentIds": ["planner"]}
        found = service.post(SCOPED_FACTS, {"user": "erin", "filter": by_priority})["user"]["facts"]["nodes"]
        assert [(f["text"], f["agentIds"], f["sessionIds"]) for f in found] == [(passport, ["planner"], [])]
    seen.assert_same_origin(service.base)
    seen.assert_quiet(service.base)


FORGET_USER = "mutation($id: ID!) { forgetUser(id: $id) { userId } }"
FAY_TURNS = ["Fay rides to work on a red bike.", "Fay is learning the cello.", "Fay hates olives."]


def test_export_downloads_the_users_memory(
    service: KeyedService, browser: Browser, shots: Shots, tmp_path: Path
) -> None:
    """Export on the user's page saves the user's JSON Lines (GET /export with the tab's key) as
    <user>.jsonl; a refused export is said in place."""
    for day, text in enumerate(FAY_TURNS):
        _remember(service, "fay", text, day, "f1")
    _remember(service, "gil", "Gil collects stamps.", 0, "g1")
    with recorded_page(browser, shots, "export-failure", accept_downloads=True) as (page, seen):
        _sign_in(page, service, service.key)
        page.evaluate("() => { window.location.hash = '#/u/fay/timeline' }")
        expect(page.get_by_test_id("interaction")).to_have_count(len(FAY_TURNS), timeout=30_000)
        with page.expect_download(timeout=30_000) as downloading:
            page.get_by_role("button", name="Export", exact=True).click()
        download = downloading.value
        assert download.suggested_filename == "fay.jsonl"
        saved = tmp_path / download.suggested_filename
        download.save_as(saved)
        lines = [json.loads(line) for line in saved.read_text(encoding="utf-8").splitlines()]
        header = lines[0]
        assert (header["kind"], header["format"]) == ("header", "recmem-export"), header
        assert header["owner"] == {"tenant": service.tenant, "user_id": "fay"}, header
        turns = [line for line in lines if line["kind"] == "node" and "Interaction" in line["labels"]]
        assert sorted(turn["properties"]["text"] for turn in turns) == sorted(FAY_TURNS)
        assert f"{service.base}/export?user=fay" in seen.requests
        shots.take(page, "export")

        # Gil is forgotten behind the page's back: the export's 404 is said on the page.
        page.evaluate("() => { window.location.hash = '#/u/gil/timeline' }")
        expect(page.get_by_test_id("interaction")).to_have_count(1, timeout=30_000)
        service.post(FORGET_USER, {"id": "gil"})
        page.get_by_role("button", name="Export", exact=True).click()
        expect(page.get_by_role("alert")).to_contain_text("NOT_FOUND", timeout=30_000)
        expect(page.get_by_role("alert")).to_contain_text("gil")
        shots.take(page, "export-refused")
    seen.assert_same_origin(service.base)
    seen.assert_quiet(service.base, 404, at="/export?user=gil")


# Gus: more current episodes than one page of the API holds (at most 100 a page).
GUS_EPISODES = 105


def _episodes_file(path: Path, count: int) -> Path:
    """An export file (docs/export.md) of `count` current episodes, one a day: far quicker to
    import than to consolidate."""

    def at(day: int) -> dict[str, str]:
        return {"$datetime": (T0 + timedelta(days=day)).isoformat()}

    header = {
        "kind": "header",
        "format": "recmem-export",
        "schema_version": 1,
        "exported_at": T0.isoformat(),
        "owner": {"tenant": "seed", "user_id": "gus"},
        "embedder": {"name": "hashing-v2", "dimension": 384},
        "embedding_template": "{text}",
        "counts": {"nodes": {"Episode": count}, "edges": {}},
    }
    episodes = [
        {
            "kind": "node",
            "labels": ["Episode"],
            "id": f"epi_{day:032x}",
            "held": True,
            "properties": {
                "title": f"Topic {day:03d}",
                "summary": f"Gus talked about topic {day:03d}.",
                "version": 1,
                "first_at": at(day),
                "last_at": at(day),
                "created_at": at(day),
                "current": True,
                "valid_from": at(day),
            },
        }
        for day in range(count)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in [header, *episodes]), encoding="utf-8")
    return path


def test_episodes_load_page_by_page(
    service: KeyedService, browser: Browser, shots: Shots, tmp_path: Path
) -> None:
    """A user with more episodes than one page of the API: the list loads a page, then the next
    ones on "Load more episodes", until every episode is shown."""
    run_recmem(
        service.served,
        *("import", "--tenant", service.tenant, "--user", "gus"),
        str(_episodes_file(tmp_path / "gus.jsonl", GUS_EPISODES)),
    )
    with recorded_page(browser, shots, "episodes-paging-failure") as (page, seen):
        _sign_in(page, service, service.key)
        page.evaluate("() => { window.location.hash = '#/u/gus/episodes' }")
        cards = page.locator("ul.cards > li.card")
        more = page.get_by_role("button", name="Load more episodes")
        expect(cards).to_have_count(EPISODE_PAGE, timeout=30_000)
        expect(more).to_be_visible()
        for loaded in range(2 * EPISODE_PAGE, GUS_EPISODES + EPISODE_PAGE, EPISODE_PAGE):
            more.click()
            expect(cards).to_have_count(min(loaded, GUS_EPISODES), timeout=30_000)
        expect(more).to_have_count(0)
        titles = cards.locator("strong").all_inner_texts()
        assert sorted(titles) == [f"Topic {day:03d}" for day in range(GUS_EPISODES)], titles
        cards.last.scroll_into_view_if_needed()
        shots.take(page, "episodes-paged")
    seen.assert_same_origin(service.base)
    seen.assert_quiet(service.base)


def test_an_unreachable_store_is_said_so(
    neo4j_settings: Neo4jSettings, browser: Browser, tmp_path: Path, shots: Shots
) -> None:
    """A service whose Neo4j does not answer still serves the page; signing in says UNAVAILABLE
    rather than calling the key wrong."""
    nobody, port = free_ports(2)  # nobody: a port nothing listens on (not the local server's)
    env = serve_env(neo4j_settings, port, RECMEM_NEO4J_URI=f"bolt://127.0.0.1:{nobody}")
    with serving(env, tmp_path, "serve.log", ready_within_s=None) as served, browser_page(browser) as page:
        base = served.base
        served.wait_ready(READY_WITHIN_S, path="/healthz")
        assert httpx.get(f"{base}/readyz", timeout=10).status_code == 503
        seen = Recorder(page)
        page.goto(f"{base}/ui")
        page.get_by_label("API key").fill("rmk_any-key")
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("alert")).to_contain_text("unavailable", timeout=60_000)
        expect(page.get_by_role("alert")).not_to_contain_text("refused")
        shots.take(page, "store-unavailable")
        seen.assert_same_origin(base)
        seen.assert_quiet(base, 503)
