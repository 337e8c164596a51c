"""GraphiQL in a real browser, as on an offline host: Debian's chromium opens `/graphql` of a
`recmem serve` process, the key goes into the Headers tab, a query and a subscription run, and no
request may leave the service's own origin.

Chromium resolves no host name but 127.0.0.1 (as offline), and every request and websocket it
opens is recorded. Screenshots of the page with its results are saved under the test's tmp dir.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Request, WebSocket

from graph.settings import Neo4jSettings
from harness.serve_process import free_port
from tests.support.api import STORY
from tests.support.browser import offline_chromium
from tests.support.serve import KeyedService, keyed_service, serve_env

STATS = 'query Stats {\n  user(id: "alice") {\n    id\n    stats { interactions episodes }\n  }\n}\n'
SUBSCRIBE = 'subscription Events {\n  consolidations(userId: "alice") { userId action consolidatedIds }\n}\n'
REMEMBER = 'mutation($text: String!) { remember(input: {userId: "alice", text: $text}) { created } }'


@pytest.fixture(scope="module")
def service(
    neo4j_settings: Neo4jSettings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[KeyedService]:
    """`recmem serve` with a fresh tenant's key; thresholds low enough that three similar turns of
    the hashing embedder open an episode (the subscription's event)."""
    env = serve_env(neo4j_settings, free_port(), RECMEM_THETA_SIM="0.3", RECMEM_THETA_COUNT="3")
    with keyed_service(env, tmp_path_factory.mktemp("graphiql-serve")) as service:
        yield service


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with offline_chromium() as chromium:
        yield chromium


def _editor_value(page: Page, selector: str) -> str:
    return str(page.eval_on_selector(selector, "el => el.CodeMirror.getValue()"))


def _replace_text(page: Page, selector: str, text: str) -> None:
    """Types into a CodeMirror editor as a user pasting would: focus, select all, insert."""
    page.locator(selector).click()
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.insert_text(text)
    assert _editor_value(page, selector) == text


def _set_query(page: Page, text: str, operation: str) -> None:
    """The query editor's text; GraphiQL works out the operation to send 100 ms after an edit
    (debounced), so wait for that rather than run the previous one."""
    _replace_text(page, QUERY_EDITOR, text)
    page.wait_for_function(
        "([selector, name]) => document.querySelector(selector).CodeMirror.operationName === name",
        arg=[QUERY_EDITOR, operation],
    )


def _result(page: Page, must_contain: str) -> dict[str, Any]:
    """The result pane's JSON once it contains `must_contain`."""
    page.wait_for_function(
        "text => document.querySelector('.result-window .CodeMirror').CodeMirror.getValue().includes(text)",
        arg=must_contain,
        timeout=30_000,
    )
    return dict(json.loads(_editor_value(page, ".result-window .CodeMirror")))


def test_the_page_and_its_assets_come_from_the_service(service: KeyedService) -> None:
    page = httpx.get(f"{service.base}/graphql", headers={"accept": "text/html"}, timeout=30)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert re.findall(r"https?://|(?:src|href)=[\"']//", page.text) == [], "the page names another origin"
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp and "unsafe-eval" not in csp
    referenced = re.findall(r'(?:src|href)="graphiql/assets/([^"]+)"', page.text)
    assert len(referenced) == 4, referenced
    for name in [*referenced, "LICENSE.graphiql", "LICENSE.react", "LICENSE.react-dom"]:
        asset = httpx.get(f"{service.base}/graphiql/assets/{name}", timeout=30)
        assert asset.status_code == 200 and asset.content, name
        kind = {"js": "text/javascript", "css": "text/css"}.get(name.rsplit(".", 1)[-1], "text/plain")
        assert asset.headers["content-type"] == f"{kind}; charset=utf-8", name
        assert asset.headers["x-content-type-options"] == "nosniff"
        if name in referenced:
            assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
    for missing in ("nope.js", "..%2Fpage.js", "..%2F__init__.py"):
        assert httpx.get(f"{service.base}/graphiql/assets/{missing}", timeout=30).status_code == 404


QUERY_EDITOR = ".graphiql-query-editor .CodeMirror"
HEADERS_EDITOR = ".graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror"


def test_graphiql_runs_queries_and_subscriptions_offline(
    service: KeyedService,
    browser: Browser,
    tmp_path: Path,
    record_property: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service.post(REMEMBER, {"text": "Hello there."})
    requests: list[str] = []
    sockets: list[WebSocket] = []
    problems: list[str] = []
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    context.on("request", lambda request: requests.append(request.url))
    page.on("websocket", lambda socket: sockets.append(socket))
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("console", lambda message: _keep_csp_violation(message, problems))
    page.on("requestfailed", lambda request: _keep_failure(request, problems))
    try:
        page.goto(f"{service.base}/graphql")
        page.wait_for_selector(QUERY_EDITOR, timeout=30_000)
        page.wait_for_load_state("load")
        assert problems == []

        # The Headers tab starts open, with a placeholder that says what to put there.
        assert '"Authorization": "Bearer rmk_..."' in _editor_value(page, HEADERS_EDITOR)
        page.get_by_role("button", name="Headers", exact=True).click()
        _replace_text(page, HEADERS_EDITOR, json.dumps({"Authorization": f"Bearer {service.key}"}))
        _set_query(page, STATS, "Stats")
        page.locator(".graphiql-execute-button").click()
        shown = _result(page, '"interactions"')
        assert shown == {"data": service.post(STATS)}
        assert shown["data"]["user"]["stats"]["interactions"] == 1
        assert '"interactions": 1' in page.locator(".result-window").inner_text()
        screenshots = [_screenshot(page, tmp_path / "graphiql-query.png")]

        # Entering the key re-fetches the schema by itself: completion and the Docs need it.
        page.get_by_role("button", name="Show Documentation Explorer").click()
        page.locator(".graphiql-doc-explorer").get_by_role("link", name="Subscription").wait_for(
            timeout=30_000
        )

        _set_query(page, SUBSCRIBE, "Events")
        page.locator(".graphiql-execute-button").click()
        page.wait_for_timeout(1_000)  # the server registers the subscriber before the first event
        for text in STORY[:3]:
            service.post(REMEMBER, {"text": text})
        event = _result(page, "CREATED")["data"]["consolidations"]
        assert event["action"] == "CREATED" and len(event["consolidatedIds"]) == 3

        screenshots.append(_screenshot(page, tmp_path / "graphiql-subscription.png"))
        record_property("screenshots", " ".join(screenshots))
        with capsys.disabled():
            print("\nGraphiQL screenshots:", *screenshots)
    finally:
        context.close()

    origin = urlsplit(service.base).netloc
    elsewhere = [url for url in requests if urlsplit(url).netloc != origin]
    assert elsewhere == [], f"requests left {origin}: {elsewhere}"
    assert [urlsplit(ws.url)[:3] for ws in sockets] == [("ws", origin, "/graphql")]
    assert any(url.endswith(".min.js") for url in requests), requests
    assert problems == []


def _screenshot(page: Page, path: Path) -> str:
    page.screenshot(path=str(path))
    return str(path)


def _keep_csp_violation(message: ConsoleMessage, problems: list[str]) -> None:
    # 401s of the schema fetch before the key is set are expected console errors; a blocked
    # load (Content-Security-Policy) means the page tried to reach beyond its assets.
    if "Content Security Policy" in message.text or "Refused to" in message.text:
        problems.append(f"console: {message.text}")


def _keep_failure(request: Request, problems: list[str]) -> None:
    problems.append(f"request failed: {request.url} ({request.failure})")
