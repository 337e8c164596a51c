"""A failed tool call as the client sees it: `isError` with one line, `CODE: message`."""

from __future__ import annotations

import logging

from graphql import GraphQLError
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

from api.errors import ErrorCode, classify, outcome_unknown

# Named for the endpoint, not the module: every MCP log line under one name.
log = logging.getLogger("api.mcp")
# The tools that write what the caller sent (`answer` records only its own run).
WRITING_TOOLS = frozenset({"remember", "forget_interaction", "correct_fact", "retract_fact", "add_fact"})
# The writing tools that change a fact: no source_ref to resend with; the fact's audit tells.
BELIEF_TOOLS = frozenset({"correct_fact", "retract_fact", "add_fact"})


def tool_error(tool: str, error: BaseException, request_id: str) -> CallToolResult:
    """`isError` with one line, `CODE: message`. The code comes from the same mapping as GraphQL's
    `extensions.code` (api/errors.classify), and so does the masking of internal errors."""
    cause = error.__cause__ if isinstance(error, ToolError) and error.__cause__ is not None else error
    if isinstance(cause, ToolError):
        code, message = ErrorCode.BAD_USER_INPUT, str(cause)  # the SDK's own: an unknown tool
    elif isinstance(error, TimeoutError):  # the call's own timeout (MemoryMCP.call_tool)
        code, message = ErrorCode.UNAVAILABLE, "the tool call took too long and was cancelled"
    else:
        original = cause if isinstance(cause, Exception) else None
        code, shown = classify(GraphQLError(str(cause), path=[tool], original_error=original))
        message = shown if shown is not None else str(cause)
    if code is ErrorCode.INTERNAL:
        log.error("internal error in MCP tool %s (request %s)", tool, request_id, exc_info=cause)
        message = f"internal error (request id {request_id})"
    elif code is ErrorCode.UNAVAILABLE:
        log.warning("MCP tool %s (request %s): unavailable: %r", tool, request_id, cause)
        message = f"{message} ({_written(tool, error, cause)})"
    line = " ".join(f"{code.value}: {message}".split())
    return CallToolResult(content=[TextContent(type="text", text=line)], is_error=True)


def _written(tool: str, error: BaseException, cause: BaseException) -> str:
    """The UNAVAILABLE line's `written: false` or `written: unknown`, as GraphQL's
    `extensions.written`: unknown when a write may have committed (its COMMIT in flight, or the
    call's timeout cancelling a writing tool), with what to do."""
    cut_short = isinstance(error, TimeoutError) and tool in WRITING_TOOLS
    if (outcome_unknown(cause) or cut_short) and tool in BELIEF_TOOLS:
        return "written: unknown; read the fact's audit (audit_fact) before sending it again"
    if outcome_unknown(cause) or cut_short:
        return "written: unknown; resend with the same source_ref, a stored turn is not stored twice"
    return "written: false"
