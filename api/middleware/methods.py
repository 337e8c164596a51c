"""The HTTP methods an endpoint serves; any other is refused with 405 and `Allow`."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.types import ASGIApp, Scope

from api.admission import Refusal, RenderRefusal
from api.errors import ErrorCode
from api.middleware.base import CheckMiddleware


class MethodsMiddleware(CheckMiddleware):
    def __init__(self, app: ASGIApp, methods: Sequence[str], render: RenderRefusal) -> None:
        super().__init__(app, render)
        self.methods = tuple(methods)

    async def refusal(self, scope: Scope) -> Refusal | None:
        if scope["method"] in self.methods:
            return None
        return Refusal(
            f"use {' or '.join(self.methods)}",
            ErrorCode.BAD_USER_INPUT,
            {"allow": ", ".join(self.methods)},
            status=405,
        )
