"""The ASGI app at `/mcp`: admission as for GraphQL (api/admission.py), then the SDK's
Streamable HTTP handler, stateless and answering JSON."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from api.admission import Refusal, admit
from api.context import new_request_id, services_of
from api.errors import ErrorCode
from api.mcp.caller import Caller, admit_caller
from api.mcp.server import MemoryMCP
from api.responses import STATUS, UNAVAILABLE_HEADERS
from api.services import Services
from api.settings import ApiSettings

# Named for the endpoint, not the module: every MCP log line under one name.
log = logging.getLogger("api.mcp")


def _refusal(
    message: str, code: ErrorCode, headers: dict[str, str] | None = None, *, status: int | None = None
) -> Response:
    """A JSON-RPC error answered before the SDK sees the request (MCP clients read its message)."""
    rpc = INTERNAL_ERROR if code is ErrorCode.INTERNAL else INVALID_REQUEST
    data: dict[str, object] = {"code": code.value}
    if code is ErrorCode.UNAVAILABLE:
        data["written"] = False  # refused before any tool ran
        headers = {**UNAVAILABLE_HEADERS, **(headers or {})}
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": rpc, "message": f"{code.value}: {message}", "data": data},
    }
    return JSONResponse(body, status_code=status or STATUS[code], headers=headers)


class McpEndpoint:
    """The ASGI app at `/mcp`: admission as for GraphQL, then the SDK's Streamable HTTP handler.

    `run()` must be entered for requests to be served (the app's lifespan does)."""

    def __init__(self, settings: ApiSettings, services: Callable[[Scope], Services] = services_of) -> None:
        self.server = MemoryMCP(settings)
        self.settings = settings
        self.services = services
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """Serve until exited. The SDK's session manager holds an anyio task group, which must be
        left by the task that entered it: it lives in a task of its own, so the lifespan may be
        entered and left by different tasks (as test fixtures do)."""
        # A manager runs once: each run gets a new one.
        self.server.streamable_http_app(
            stateless_http=True,
            json_response=True,
            max_request_body_size=self.settings.max_body_bytes,
            # Every request carries a bearer key, which a rebinding page cannot have; the Host check
            # would refuse the service behind a proxy or on another address.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        manager = self.server.session_manager
        started, stop = asyncio.Event(), asyncio.Event()

        async def host() -> None:
            async with manager.run():
                started.set()
                await stop.wait()

        task = asyncio.create_task(host(), name="recmem-mcp")
        ready = asyncio.create_task(started.wait())
        await asyncio.wait({task, ready}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            ready.cancel()
            task.result()  # raises what stopped it
        self._manager = manager
        try:
            yield
        finally:
            self._manager = None
            stop.set()
            await task

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":
            # Stateless: no SSE stream to open (GET) and no session to end (DELETE), which the
            # protocol says with a 405.
            refusal = _refusal(
                "use POST: this endpoint keeps no session and opens no event stream",
                ErrorCode.BAD_USER_INPUT,
                {"allow": "POST"},
                status=405,
            )
            await refusal(scope, receive, send)
            return
        manager = self._manager
        if manager is None:
            await _refusal("the MCP endpoint is not running", ErrorCode.UNAVAILABLE)(scope, receive, send)
            return
        try:
            rejection = await self._admit(Request(scope, receive))
        except Exception:
            request_id = new_request_id()
            log.exception("unhandled error admitting an MCP request (request id %s)", request_id)
            rejection = _refusal(f"internal error (request id {request_id})", ErrorCode.INTERNAL)
        if rejection is not None:
            await rejection(scope, receive, send)
            return
        await manager.handle_request(scope, receive, send)

    async def _admit(self, request: Request) -> Response | None:
        """Readiness, the key and its rate limit, as `/graphql` checks them; None: admitted."""
        services = self.services(request.scope)
        admitted = await admit(services, request.headers.get("authorization"))
        if isinstance(admitted, Refusal):
            return _refusal(admitted.message, admitted.code, admitted.headers or None)
        admit_caller(request, Caller(services, admitted))
        return None


def build_mcp(settings: ApiSettings, services: Callable[[Scope], Services] = services_of) -> McpEndpoint:
    """The MCP app for `/mcp`; `services` finds the process's Services from a request's scope (the
    app's state, built in its lifespan). Enter its `run()` in the app's lifespan."""
    return McpEndpoint(settings, services)
