"""Who sends a tool call: admission (api/mcp/endpoint.py) leaves the caller on the HTTP request,
and each tool reads it back as the GraphQL resolvers' context for that key."""

from __future__ import annotations

from dataclasses import dataclass

from mcp.server.mcpserver import Context as ToolContext
from starlette.requests import Request

from api.context import Context
from api.errors import ApiError, ErrorCode
from api.services import Services
from consolidation.forgetting.keys import Principal

# The state key under which admission leaves the caller for the tools of that HTTP request.
_CALLER = "recmem_mcp_caller"


@dataclass(frozen=True)
class Caller:
    services: Services
    principal: Principal


def admit_caller(request: Request, caller: Caller) -> None:
    """Hand the admitted caller to the tools that this request calls."""
    setattr(request.state, _CALLER, caller)


def context_of(ctx: ToolContext) -> Context:
    """The GraphQL resolvers' context for the key that sent this tool call."""
    request = ctx.request_context.request
    caller = getattr(request.state, _CALLER, None) if isinstance(request, Request) else None
    if not isinstance(caller, Caller):
        raise ApiError("a valid API key is required", ErrorCode.UNAUTHENTICATED)
    return Context(services=caller.services, principal=caller.principal)
