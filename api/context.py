"""The GraphQL context: who is calling (tenant), per-request loaders, and the services."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import cast

from starlette.types import Scope

from api.errors import ApiError, ErrorCode
from api.loaders import Loaders
from api.services import Services
from consolidation.forgetting.keys import Principal
from graph.errors import InvalidInput
from graph.models import Owner
from graph.validation import require_name


def new_request_id() -> str:
    return uuid.uuid4().hex[:16]


def services_of(scope: Scope) -> Services:
    """The process's Services, which the app's lifespan keeps in its state."""
    return cast(Services, scope["app"].state.services)


@dataclass
class Context:
    services: Services
    request_id: str = field(default_factory=new_request_id)
    principal: Principal | None = None
    # Set by the websocket protocol from the connection_init payload.
    connection_params: dict[str, object] | None = None
    # The key a websocket authenticated with (handshake header or connection_init), which
    # api/websocket.py looks up again while the connection lives.
    credential: str | None = None
    _loaders: Loaders | None = None
    # Kept by the mutations (api/schema/mutation.py) for the HTTP answer (api/http.py): whether a
    # field of this request committed a write (an UNAVAILABLE elsewhere in it is then no 503),
    # and the sourceRefs of its remembers that may be stored (done, or cut short by the request
    # timeout); None where nothing reads them (the websocket, which has no request timeout).
    committed: bool = False
    write_refs: list[str] | None = None

    @property
    def tenant(self) -> str:
        if self.principal is None:
            raise ApiError("a valid API key is required", ErrorCode.UNAUTHENTICATED)
        return self.principal.tenant

    @property
    def who(self) -> str:
        """The calling key's name and id, as the run of a change to memory records its maker."""
        if self.principal is None:
            raise ApiError("a valid API key is required", ErrorCode.UNAUTHENTICATED)
        return self.principal.who

    @property
    def loaders(self) -> Loaders:
        if self._loaders is None:
            self._loaders = Loaders(self.services.audit, self.tenant)
        return self._loaders

    def fresh_loaders(self) -> None:
        """Drop cached nodes: each subscription event must see the graph as it is now."""
        self._loaders = None

    def owner(self, user_id: str) -> Owner:
        try:
            require_name("userId", user_id)
        except InvalidInput as error:
            raise ApiError(str(error), ErrorCode.BAD_USER_INPUT) from error
        return Owner(self.tenant, user_id)
