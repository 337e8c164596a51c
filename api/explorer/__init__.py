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
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

DIST = Path(__file__).resolve().parent / "dist"
_MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css"}
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
    return HTMLResponse(
        _index(),
        headers={
            "content-security-policy": policy(request.headers.get("host")),
            "cache-control": "no-cache",
            "referrer-policy": "no-referrer",
            "x-content-type-options": "nosniff",
        },
    )


async def asset(request: Request) -> Response:
    """GET /ui/assets/{name}: a built file, with its type and cache headers."""
    name = str(request.path_params["name"])
    path = _assets().get(name)
    if path is None:
        return PlainTextResponse("no such explorer asset", status_code=404)
    hashed = _HASHED.search(name) is not None
    return FileResponse(
        path,
        media_type=_MEDIA_TYPES.get(path.suffix, "application/octet-stream"),
        headers={
            "cache-control": "public, max-age=31536000, immutable" if hashed else "no-cache",
            "x-content-type-options": "nosniff",
        },
    )


def routes() -> list[BaseRoute]:
    """The explorer's routes, for the app's route list."""
    return [Route("/ui", page), Route("/ui/", page), Route("/ui/assets/{name}", asset)]
