"""What the explorer (api/explorer) and GraphiQL (api/graphiql) share in serving a page and its
files: the page's headers, and a file by name from a fixed set, typed and cached."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response

_MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css"}
# A file whose name changes with its content never changes under its name: kept for a year.
_IMMUTABLE = "public, max-age=31536000, immutable"


def page_response(html: str, policy: str) -> HTMLResponse:
    """A page under its Content-Security-Policy, revalidated on every load."""
    return HTMLResponse(
        html,
        headers={
            "content-security-policy": policy,
            "cache-control": "no-cache",
            "referrer-policy": "no-referrer",
            "x-content-type-options": "nosniff",
        },
    )


def file_response(
    request: Request,
    files: Mapping[str, Path],
    *,
    missing: str,
    default_type: str,
    immutable: re.Pattern[str],
    cache_control: str,
) -> Response:
    """The file of `files` the path's `name` names (404 `missing` for any other name): immutable
    when its name matches `immutable`, else cached as `cache_control` says."""
    name = str(request.path_params["name"])
    path = files.get(name)
    if path is None:
        return PlainTextResponse(missing, status_code=404)
    return FileResponse(
        path,
        media_type=_MEDIA_TYPES.get(path.suffix, default_type),
        headers={
            "cache-control": _IMMUTABLE if immutable.search(name) is not None else cache_control,
            "x-content-type-options": "nosniff",
        },
    )
