"""`/mcp`: the memory as Model Context Protocol tools (Streamable HTTP, official MCP Python SDK).

Same keys, tenants, limits and error codes as `/graphql`: every HTTP request is admitted like a
GraphQL one (readiness, `Authorization: Bearer <key>` through the same Authenticator, the key's
rate limit), so a bad or missing key answers HTTP 401 before the SDK sees the request. Tools call
the engine, the audit and the forgetter of the process's Services with an `api.context.Context`
for the key's tenant, exactly as the resolvers do: another tenant's ids are NOT_FOUND, worded as
ids that do not exist.

The transport is stateless and answers JSON (no MCP session, no SSE stream): any process of the
service can take any request, as with GraphQL, and the tools need no server-to-client messages. A
failing tool answers `isError` with one line, `CODE: message`, the codes of GraphQL's
`extensions.code`.

The parts: `endpoint` (the ASGI app and its admission), `server` (the SDK's server with the
tools), `tools` (which tools, with their hints), one module per concern of tools (`remembering`,
`recalling`, `auditing`, `forgetting`), `caller` and `arguments` (who calls, what they send),
`results` and `rendering` (what the tools return), `errors` (a failure as a tool result).
"""

from api.mcp.endpoint import McpEndpoint, build_mcp

__all__ = ["McpEndpoint", "build_mcp"]
