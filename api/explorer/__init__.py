"""The memory explorer (ui/, a React app built by Vite into dist/), served at `/ui`.

Node is needed only to build it: dist/ is committed, and `ui/check.sh` (run by CI) checks that a
fresh `npm ci && npm run build` reproduces it byte for byte. The page talks to `/graphql` of the
same origin only; a Content-Security-Policy makes the browser refuse anything else. Hash routing
(`/ui/#/u/alice/facts`) means the service serves one page and the hashed assets, nothing more.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from api.static_files import file_response, page_response

DIST = Path(__file__).resolve().parent / "dist"
# Vite names each asset after its content (`index-<hash>.js`): it never changes under its name.
_HASHED = re.compile(r"-[A-Za-z0-9_-]{8}\.(?:js|css)$")
# A Host header goes into the policy only when it is a plain host[:port] (no header injection).
_HOST = re.compile(r"^[A-Za-z0-9.\-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$")
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'{sockets}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@cache
def _index() -> str:
    return (DIST / "index.html").read_text(encoding="utf-8")


@cache
def _assets() -> dict[str, Path]:
    """The files `asset` serves: exactly those in dist/assets (a name cannot reach further)."""
    folder = DIST / "assets"
    return {path.name: path for path in folder.iterdir() if path.is_file()} if folder.is_dir() else {}


def policy(host: str | None) -> str:
    """The page's CSP. 'self' covers same-origin websockets in current browsers; the explicit
    ws:/wss: origin keeps older ones (CSP2 'self' is http(s) only) working too."""
    sockets = f" ws://{host} wss://{host}" if host and _HOST.match(host) else ""
    return _CSP.format(sockets=sockets)


async def page(request: Request) -> Response:
    """GET /ui and /ui/: the single page (views live after the `#`)."""
    if not (DIST / "index.html").is_file():
        return PlainTextResponse("the explorer is not built: run ui/check.sh", status_code=404)
    return page_response(_index(), policy(request.headers.get("host")))


async def asset(request: Request) -> Response:
    """GET /ui/assets/{name}: a built file, with its type and cache headers."""
    return file_response(
        request,
        _assets(),
        missing="no such explorer asset",
        default_type="application/octet-stream",
        immutable=_HASHED,
        cache_control="no-cache",
    )


def routes() -> list[BaseRoute]:
    """The explorer's routes, for the app's route list."""
    return [Route("/ui", page), Route("/ui/", page), Route("/ui/assets/{name}", asset)]
