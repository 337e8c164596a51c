"""A headless chromium for the browser tests (GraphiQL, the memory explorer): Debian's
/usr/bin/chromium driven by Playwright (no browser download), as on an offline host, and pages
in contexts of their own."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
INSTALL_HINT = (
    "the browser tests need Debian's chromium at /usr/bin/chromium: install it with "
    "`apt-get update && apt-get install -y chromium` (as root; scripts/setup.sh does it when run as root)"
)
# Every host name but the service's address fails to resolve: a CDN could not be reached.
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"


@contextmanager
def offline_chromium() -> Iterator[Browser]:
    """The launched browser, closed on leaving; the test fails (not skips) without chromium."""
    if not CHROMIUM.exists():
        pytest.fail(INSTALL_HINT)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=[OFFLINE])
        try:
            yield chromium
        finally:
            chromium.close()


@contextmanager
def browser_page(browser: Browser, width: int = 1280, height: int = 800, **options: Any) -> Iterator[Page]:
    """A page in a context of its own (a `width` x `height` viewport, and `options`), closed on
    leaving."""
    context = browser.new_context(viewport={"width": width, "height": height}, **options)
    with closing(context):
        yield context.new_page()
