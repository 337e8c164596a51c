"""GraphiQL served from this package, so that `/graphql` in a browser works on an offline host.

strawberry's own page loads React and GraphiQL from a CDN. Here the page (index.html with
page.js inlined) references only `graphiql/assets/<name>`, files shipped in `assets/`: upstream's
npm builds, byte for byte (versions, checksums and how to update them in README.md). A
Content-Security-Policy keeps the browser from loading anything from another origin.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from api import static_files

GRAPHIQL_VERSION = "3.9.0"
REACT_VERSION = "18.3.1"
# The route `asset` answers on (api/app.py); the page's relative URLs resolve to it.
ASSET_PATH = "/graphiql/assets/{name}"

_HERE = Path(__file__).resolve().parent
_ASSETS = _HERE / "assets"
# Template placeholder -> asset file.
_PAGE_ASSETS = {
    "react": f"react-{REACT_VERSION}.production.min.js",
    "react_dom": f"react-dom-{REACT_VERSION}.production.min.js",
    "graphiql_js": f"graphiql-{GRAPHIQL_VERSION}.min.js",
    "graphiql_css": f"graphiql-{GRAPHIQL_VERSION}.min.css",
}
# A file whose name carries its version never changes: browsers may keep it for a year.
_VERSIONED = re.compile(r"-\d+\.\d+\.\d+\.")
# Inline styles: GraphiQL's components set them at run time. Fonts and icons are data: URIs.
# connect-src 'self' covers the same-origin ws:/wss: of subscriptions.
_CSP = (
    "default-src 'none'; script-src 'self' '{script_hash}'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@cache
def page() -> tuple[str, str]:
    """The page's HTML and the Content-Security-Policy that allows exactly its inline script."""
    html = (_HERE / "index.html").read_text(encoding="utf-8")
    script = (_HERE / "page.js").read_text(encoding="utf-8")
    for placeholder, name in _PAGE_ASSETS.items():
        html = html.replace("{{" + placeholder + "}}", "graphiql/assets/" + name)
    html = html.replace("{{script}}", script)
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return html, _CSP.format(script_hash=f"sha256-{digest}")


def page_response() -> HTMLResponse:
    return static_files.page_response(*page())


@cache
def _served() -> dict[str, Path]:
    """The files `asset` serves: exactly those in assets/ (a name cannot reach further)."""
    return {path.name: path for path in _ASSETS.iterdir() if path.is_file()}


async def asset(request: Request) -> Response:
    """GET /graphiql/assets/{name}: a bundled file, with its type and cache headers."""
    # Starlette adds `charset=utf-8` to text/* types; the licence files are plain text.
    return static_files.file_response(
        request,
        _served(),
        missing="no such GraphiQL asset",
        default_type="text/plain",
        immutable=_VERSIONED,
        cache_control="public, max-age=3600",
    )
