"""The API key as a Starlette authentication backend, for `/graphql` over HTTP and its websocket.

Starlette's AuthenticationMiddleware runs the backend and puts its user in `scope["user"]`. Over
HTTP the key is required (`Authorization: Bearer <key>`). On the websocket handshake it is
optional, since browsers cannot set the header: a bad one refuses the handshake (HTTP 403), and
without one the key must come in connection_init (api/http.py `on_ws_connect`). Both ask
api.auth.principal_for, as `/mcp` does.
"""

from __future__ import annotations

from starlette.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    BaseUser,
)
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import Scope

from api.admission import RenderRefusal, key_refusal
from api.auth import bearer_token, principal_for
from api.context import services_of
from consolidation.forgetting.keys import Principal

SCOPE = "authenticated"


class KeyUser(BaseUser):
    """The caller behind a key, and the key itself (an open websocket checks it again)."""

    def __init__(self, principal: Principal, token: str | None) -> None:
        self.principal = principal
        self.token = token

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def display_name(self) -> str:
        return self.principal.tenant

    @property
    def identity(self) -> str:
        return self.principal.key_id


class BearerKeyBackend(AuthenticationBackend):
    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, BaseUser] | None:
        header = conn.headers.get("authorization")
        if header is None and conn.scope["type"] == "websocket":
            return None  # the key may come in connection_init
        token = bearer_token(header)
        principal = await principal_for(services_of(conn.scope).authenticator, token)
        return AuthCredentials([SCOPE]), KeyUser(principal, token)


def principal_of(scope: Scope) -> Principal | None:
    user = scope.get("user")
    return user.principal if isinstance(user, KeyUser) else None


def credential_of(scope: Scope) -> str | None:
    user = scope.get("user")
    return user.token if isinstance(user, KeyUser) else None


def authentication(render: RenderRefusal) -> Middleware:
    """Starlette's AuthenticationMiddleware with the key backend; a refusal over HTTP is rendered
    by `render` (a refused websocket is closed before it is accepted: HTTP 403)."""

    def on_error(conn: HTTPConnection, error: AuthenticationError) -> Response:
        return render(conn.scope, key_refusal(error))

    return Middleware(AuthenticationMiddleware, backend=BearerKeyBackend(), on_error=on_error)
