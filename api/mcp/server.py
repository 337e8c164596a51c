"""The SDK's MCP server with the memory's tools, every failure of a call answered as a result."""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

from mcp.server.mcpserver import Context as ToolContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, InputRequiredResult

from api.context import new_request_id
from api.mcp.errors import tool_error
from api.mcp.tools import TOOLS
from api.settings import ApiSettings

INSTRUCTIONS = """\
Long-term memory of the users you talk with. Call `remember` for every turn worth keeping (the
user's and yours), `recall` before answering anything that may depend on earlier conversations,
`answer` for a direct answer from memory with its evidence. Recurring topics are consolidated into
episodes and facts with provenance: `audit_fact` shows why a fact is believed, `forget_interaction`
erases a turn and what rests only on it, `user_stats` sizes a user's memory, `export_user` takes it
out. User ids are yours to choose; they are private to your API key's tenant."""


class MemoryMCP(MCPServer):
    """The SDK's server, with every failure of a tool call answered as a typed `isError` result
    under the request timeout."""

    def __init__(self, settings: ApiSettings) -> None:
        # The SDK configures the root logger (a rich handler) when nothing has; the service's
        # logging is its own business, so that is undone.
        root = logging.getLogger()
        handlers, level = list(root.handlers), root.level
        super().__init__("recmem", instructions=INSTRUCTIONS)
        root.handlers[:] = handlers
        root.setLevel(level)
        self.timeout_s = settings.request_timeout_s
        # Each tool's argument names: the SDK drops any other, so a call would answer as if an
        # argument it does not take (GraphQL's include_consolidated, a misspelt name) had not been sent.
        self.arguments: dict[str, frozenset[str]] = {}
        for fn, hints in TOOLS:
            self.add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""), annotations=hints)
            parameters = inspect.signature(fn).parameters
            self.arguments[fn.__name__] = frozenset(name for name in parameters if name != "ctx")

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: ToolContext | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            _refuse_unknown(name, arguments, self.arguments.get(name))
            async with asyncio.timeout(self.timeout_s):
                return await super().call_tool(name, arguments, context)
        except MCPError:
            raise
        except Exception as error:
            return tool_error(name, error, new_request_id())


def _refuse_unknown(tool: str, arguments: dict[str, Any], known: frozenset[str] | None) -> None:
    """A call naming an argument its tool does not take changes and reads nothing."""
    if known is None:  # an unknown tool: the SDK answers it
        return
    if unknown := sorted(set(arguments) - known):
        takes = ", ".join(sorted(known))
        raise ToolError(f"invalid input: {', '.join(unknown)}: not an argument of {tool} (it takes {takes})")
