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
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from graphql import GraphQLError
from mcp.server.mcpserver import Context as ToolContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST
from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from api.admission import Refusal, admit
from api.context import Context, new_request_id, services_of
from api.errors import ApiError, ErrorCode, classify, not_found
from api.responses import STATUS
from api.schema.mutation import UnitInput, checked
from api.schema.recall import MAX_CONTEXT_TOKENS
from api.services import Services
from api.settings import ApiSettings
from consolidation import types as engine
from consolidation.access import Principal
from graph import models
from graph.models import Replacement
from graph.validation import require_name

log = logging.getLogger("api.mcp")

INSTRUCTIONS = """\
Long-term memory of the users you talk with. Call `remember` for every turn worth keeping (the
user's and yours), `recall` before answering anything that may depend on earlier conversations,
`answer` for a direct answer from memory with its evidence. Recurring topics are consolidated into
episodes and facts with provenance: `audit_fact` shows why a fact is believed, `forget_interaction`
erases a turn and what rests only on it, `user_stats` sizes a user's memory. User ids are yours to
choose; they are private to your API key's tenant."""

# The state key under which admission leaves the caller for the tools of that HTTP request.
_CALLER = "recmem_mcp_caller"


# -- what the tools return ------------------------------------------------------------------------


class ConsolidationSummary(BaseModel):
    action: str = Field(description="none, created (a new episode), merged (into an episode) or deferred.")
    episode_id: str | None = Field(description="The episode version created or merged into.")
    fact_ids: list[str] = Field(description="Facts derived by this consolidation.")
    superseded_fact_ids: list[str] = Field(description="Facts the new ones replaced.")
    error: str | None = Field(description="Why it was deferred (the interaction stays pending).")


class Remembered(BaseModel):
    interaction_id: str = Field(description="The stored interaction (int_...).")
    created: bool = Field(description="False when the source_ref was known already: nothing new was stored.")
    seq: int = Field(description="Its position in the user's stream.")
    consolidation: ConsolidationSummary | None = Field(
        description="What consolidation did with it; null when it runs in the background (the default)."
    )


class ContextItem(BaseModel):
    layer: str = Field(description="subconscious (a raw turn), episodic (an episode) or semantic (a fact).")
    id: str = Field(description="The interaction, episode version or fact the line shows.")
    tokens: int = Field(description="o200k tokens its line costs.")
    score: float = Field(description="Cosine similarity to the query (0 when found by words only).")
    source_ids: list[str] = Field(description="The interactions it rests on (itself, for a turn).")


class LayerHit(BaseModel):
    id: str = Field(description="The interaction, episode version or fact.")
    text: str = Field(description="Its text (an episode's summary).")
    score: float = Field(description="Cosine similarity to the query (0 when found by words only).")
    at: datetime | None = Field(description="When it was said or holds from.")
    source_ids: list[str] = Field(description="The interactions it rests on.")


class LayerHits(BaseModel):
    subconscious: list[LayerHit] = Field(description="Raw interactions (at most 10).")
    episodic: list[LayerHit] = Field(description="Episodes (at most 5).")
    semantic: list[LayerHit] = Field(description="Facts (at most 10).")


class Recalled(BaseModel):
    context: str = Field(
        description="Facts, then episodes, then turns, each under a header: ready for a prompt."
    )
    tokens: int = Field(description="o200k tokens of `context` (at most the budget).")
    budget: int = Field(description="The token budget asked for.")
    items: list[ContextItem] = Field(description="Provenance of the context's lines, in their order.")
    layers: LayerHits | None = Field(description="The best hits of each layer, when asked for.")


class Evidence(BaseModel):
    layer: str = Field(description="subconscious, episodic or semantic.")
    id: str = Field(description="The memory item.")
    text: str = Field(description="Its text.")
    at: datetime | None = Field(description="When it was said or holds from.")
    source_ids: list[str] = Field(description="The interactions it rests on.")


class Answered(BaseModel):
    answer: str = Field(description="The answer, from memory only.")
    evidence: list[Evidence] = Field(description="The memory items the answer rests on.")
    run_id: str | None = Field(description="The ConsolidationRun recording this answer's cost.")
    prompt_tokens: int = Field(description="Prompt tokens spent.")
    completion_tokens: int = Field(description="Completion tokens spent.")


class InteractionView(BaseModel):
    id: str
    speaker: str
    text: str
    occurred_at: datetime
    session_id: str | None

    @staticmethod
    def of(m: models.Interaction) -> InteractionView:
        return InteractionView(
            id=m.id, speaker=m.speaker, text=m.text, occurred_at=m.occurred_at, session_id=m.session_id
        )


class EpisodeSource(BaseModel):
    interaction: InteractionView
    similarity: float | None = Field(description="Cosine similarity to the turn that triggered it.")


class AuditedEpisode(BaseModel):
    id: str
    title: str
    summary: str
    version: int = Field(description="1 for a new episode, +1 per merge.")
    current: bool
    valid_from: datetime
    sources: list[EpisodeSource] = Field(description="The interactions it was made from.")


class FactView(BaseModel):
    id: str
    user_id: str
    text: str
    kind: str = Field(description="preference, attribute, event, plan, relation or other.")
    status: str = Field(description="active, superseded or retracted.")
    valid_from: datetime
    valid_to: datetime | None = Field(description="When it stopped holding (null: it holds).")
    created_at: datetime

    @staticmethod
    def of(m: models.Fact) -> FactView:
        return FactView(
            id=m.id,
            user_id=m.user_id,
            text=m.text,
            kind=m.kind,
            status=m.status,
            valid_from=m.valid_from,
            valid_to=m.valid_to,
            created_at=m.created_at,
        )


class FactChange(BaseModel):
    fact: FactView = Field(description="The fact on the other end of the SUPERSEDES edge.")
    reason: str | None = Field(description="Why the newer fact replaced the older one.")
    at: datetime | None = Field(description="Valid time of the replacement.")


class RunView(BaseModel):
    id: str
    op: str = Field(description="create_episode, merge_episode, refine_facts or answer.")
    provider: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    at: datetime


class FactAudit(BaseModel):
    fact: FactView
    episodes: list[AuditedEpisode] = Field(
        description="DERIVED_FROM: the episode versions, with their sources."
    )
    interactions: list[InteractionView] = Field(description="DERIVED_FROM: the exact turns that state it.")
    supersedes: list[FactChange] = Field(description="Facts it replaced.")
    superseded_by: list[FactChange] = Field(description="Facts that replaced it.")
    runs: list[RunView] = Field(description="The runs (model, tokens) that produced it and its episodes.")


class Forgotten(BaseModel):
    interaction_ids: list[str] = Field(description="Interactions erased.")
    episode_ids: list[str] = Field(description="Episode versions erased (they rested only on it).")
    fact_ids: list[str] = Field(description="Facts erased (only it stated them).")
    run_ids: list[str] = Field(description="Runs erased (everything they produced is gone).")
    rebuilt_episode_ids: list[str] = Field(description="Surviving episode versions rebuilt without it.")
    rebuilt_fact_ids: list[str] = Field(description="Surviving facts restated without it.")
    restored_fact_ids: list[str] = Field(
        description="Facts current again (only erased facts had replaced them)."
    )


class UserStats(BaseModel):
    interactions: int = Field(description="Interactions stored (the subconscious layer).")
    consolidated: int = Field(description="Interactions absorbed into episodes.")
    unconsolidated: int = Field(description="Interactions no episode has absorbed (yet).")
    pending: int = Field(description="Interactions the recurrence gate has not run on yet.")
    episodes: int = Field(description="Episodes, current versions (the episodic layer).")
    episode_versions: int = Field(description="Episode versions, old ones included.")
    active_facts: int = Field(description="Facts in force (the semantic layer).")
    superseded_facts: int = Field(description="Facts replaced by newer ones.")
    runs: int = Field(description="Consolidation and answer runs recorded.")
    prompt_tokens: int = Field(description="Prompt tokens spent in total.")
    completion_tokens: int = Field(description="Completion tokens spent in total.")


# -- arguments ------------------------------------------------------------------------------------

UserId = Annotated[
    str, Field(description="The user whose memory this is: your own id for them, private to your tenant.")
]
Tokens = Annotated[
    int, Field(ge=1, le=MAX_CONTEXT_TOKENS, description="Token budget (o200k) of the assembled context.")
]


# -- the caller -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Caller:
    services: Services
    principal: Principal


def _context(ctx: ToolContext) -> Context:
    """The GraphQL resolvers' context for the key that sent this tool call."""
    request = ctx.request_context.request
    caller = getattr(request.state, _CALLER, None) if isinstance(request, Request) else None
    if not isinstance(caller, _Caller):
        raise ApiError("a valid API key is required", ErrorCode.UNAUTHENTICATED)
    return Context(services=caller.services, principal=caller.principal)


def _owner(context: Context, user_id: str) -> models.Owner:
    require_name("user_id", user_id)  # worded with the tool's argument name
    return context.owner(user_id)


async def _require_user(context: Context, user_id: str) -> models.Owner:
    owner = _owner(context, user_id)
    if await context.loaders.users.load(user_id) is None:
        raise not_found("user", user_id)
    return owner


# -- the tools ------------------------------------------------------------------------------------


async def remember(
    ctx: ToolContext,
    user_id: UserId,
    text: Annotated[str, Field(description="What was said, verbatim.")],
    speaker: Annotated[str, Field(description="Who said it: 'user', 'assistant' or a name.")] = "user",
    occurred_at: Annotated[
        datetime | None, Field(description="When it was said, ISO 8601 with a timezone (default: now).")
    ] = None,
    session_id: Annotated[str | None, Field(description="Your conversation or session id.")] = None,
    source_ref: Annotated[
        str | None,
        Field(description="Your own id for this turn: sending it again stores nothing new (safe retries)."),
    ] = None,
) -> Remembered:
    """Store one conversation turn in the user's long-term memory.

    Use it for every turn worth keeping, the user's and your own, as it happens. It is durable when
    this returns. Topics that come back are consolidated into episodes and facts (with provenance).
    Send a `source_ref` whenever the call may be retried: a repeat returns the same id with
    `created: false`."""
    context = _context(ctx)
    owner = _owner(context, user_id)
    unit = UnitInput(
        text=text, speaker=speaker, occurred_at=occurred_at, session_id=session_id, source_ref=source_ref
    ).to_unit()
    (done,) = await context.services.engine.remember_batch(owner, checked(context, owner, [unit]))
    outcome = done.consolidation
    return Remembered(
        interaction_id=done.interaction_id,
        created=done.created,
        seq=done.seq,
        consolidation=None
        if outcome is None
        else ConsolidationSummary(
            action=outcome.action,
            episode_id=outcome.episode_id,
            fact_ids=outcome.fact_ids,
            superseded_fact_ids=outcome.superseded_fact_ids,
            error=outcome.error,
        ),
    )


def _hit(h: engine.RecallHit) -> LayerHit:
    return LayerHit(id=h.id, text=h.text, score=h.score, at=h.at, source_ids=h.interaction_ids)


async def recall(
    ctx: ToolContext,
    user_id: UserId,
    query: Annotated[str, Field(description="What to look for, in plain words (a question works).")],
    tokens: Tokens = 1000,
    layers: Annotated[
        bool, Field(description="Also return the best hits of each layer separately (larger result).")
    ] = False,
) -> Recalled:
    """Fetch what memory holds about a topic, as one context text within a token budget.

    Use it before answering anything that may depend on what the user said before (preferences,
    plans, facts about them, earlier events). The context has the best facts, episodes and raw turns
    together, each interaction at most once; `items` tells where each line comes from. Set `layers`
    only when you need the per-layer hit lists as well."""
    context = _context(ctx)
    owner = await _require_user(context, user_id)
    found = await context.services.engine.recall(owner, query, tokens=tokens)
    assembled = found.context
    assert assembled is not None  # a recall with a token budget assembles one
    return Recalled(
        context=assembled.text,
        tokens=assembled.tokens,
        budget=assembled.budget,
        items=[
            ContextItem(
                layer=i.hit.layer,
                id=i.hit.id,
                tokens=i.tokens,
                score=i.hit.score,
                source_ids=i.hit.interaction_ids,
            )
            for i in assembled.items
        ],
        layers=LayerHits(
            subconscious=[_hit(h) for h in found.subconscious],
            episodic=[_hit(h) for h in found.episodic],
            semantic=[_hit(h) for h in found.semantic],
        )
        if layers
        else None,
    )


async def answer(
    ctx: ToolContext,
    user_id: UserId,
    question: Annotated[str, Field(description="The question about the user or your past conversations.")],
    tokens: Annotated[
        int | None,
        Field(
            ge=1,
            le=MAX_CONTEXT_TOKENS,
            description="Answer from an assembled context of this many tokens (default: the per-layer hits).",
        ),
    ] = None,
) -> Answered:
    """Answer a question from the user's memory alone, with the evidence used.

    Use it when you want memory's own answer and the items it rests on (ids you can `audit_fact`),
    rather than raw context to reason over yourself (that is `recall`). It costs one LLM call on the
    server, recorded as a run."""
    context = _context(ctx)
    owner = await _require_user(context, user_id)
    found = await context.services.engine.answer(owner, question, tokens=tokens)
    read = found.recall.context
    hits = [i.hit for i in read.items] if read is not None else found.recall.all_hits()
    by_id = {h.id: h for h in hits}
    return Answered(
        answer=found.text,
        evidence=[
            Evidence(
                layer=by_id[i].layer,
                id=i,
                text=by_id[i].text,
                at=by_id[i].at,
                source_ids=by_id[i].interaction_ids,
            )
            for i in found.used_ids
            if i in by_id
        ],
        run_id=found.run_id,
        prompt_tokens=found.prompt_tokens,
        completion_tokens=found.completion_tokens,
    )


def _change(r: Replacement) -> FactChange:
    return FactChange(fact=FactView.of(r.fact), reason=r.reason, at=r.at)


async def audit_fact(
    ctx: ToolContext,
    fact_id: Annotated[str, Field(description="The fact's id (fact_...), e.g. from recall's items.")],
) -> FactAudit:
    """Explain why memory believes a fact: the episodes and exact turns it was derived from, the facts
    it replaced or was replaced by (with reasons), and the runs (model, tokens) that produced it.

    Use it when a fact is surprising, contested or about to be relied on."""
    context = _context(ctx)
    require_name("fact_id", fact_id)
    fact = await context.loaders.facts.load(fact_id)
    if fact is None:
        raise not_found("fact", fact_id)
    p = await context.services.audit.audit(context.owner(fact.user_id), fact_id)
    return FactAudit(
        fact=FactView.of(p.fact),
        episodes=[
            AuditedEpisode(
                id=e.episode.id,
                title=e.episode.title,
                summary=e.episode.summary,
                version=e.episode.version,
                current=e.episode.current,
                valid_from=e.episode.valid_from,
                sources=[
                    EpisodeSource(interaction=InteractionView.of(i), similarity=s) for i, s in e.sources
                ],
            )
            for e in p.episodes
        ],
        interactions=[InteractionView.of(i) for i in p.interactions],
        supersedes=[_change(r) for r in p.supersedes],
        superseded_by=[_change(r) for r in p.superseded_by],
        runs=[
            RunView(
                id=r.id,
                op=r.op,
                provider=r.provider,
                model=r.model,
                prompt_tokens=r.prompt_tokens,
                completion_tokens=r.completion_tokens,
                at=r.at,
            )
            for r in p.runs
        ],
    )


async def forget_interaction(
    ctx: ToolContext,
    interaction_id: Annotated[
        str, Field(description="The interaction's id (int_...), as remember returned it.")
    ],
) -> Forgotten:
    """Erase one interaction and everything derived only from it; rebuild what also rests on others.

    Use it when the user asks to forget something they said, or a turn was stored by mistake. It
    cannot be undone."""
    context = _context(ctx)
    require_name("interaction_id", interaction_id)
    found = await context.loaders.interactions.load(interaction_id)
    if found is None:
        raise not_found("interaction", interaction_id)
    f = await context.services.forgetter.forget_interaction(context.owner(found.user_id), interaction_id)
    return Forgotten(
        interaction_ids=f.interaction_ids,
        episode_ids=f.episode_ids,
        fact_ids=f.fact_ids,
        run_ids=f.run_ids,
        rebuilt_episode_ids=f.rebuilt_episode_ids,
        rebuilt_fact_ids=f.rebuilt_fact_ids,
        restored_fact_ids=f.restored_fact_ids,
    )


async def user_stats(ctx: ToolContext, user_id: UserId) -> UserStats:
    """Sizes of a user's memory per layer and what consolidation has cost.

    Use it to check whether memory knows a user at all, or how much has been consolidated."""
    context = _context(ctx)
    s = await context.services.audit.stats(_owner(context, user_id))
    if s is None:
        raise not_found("user", user_id)
    return UserStats(unconsolidated=s.interactions - s.consolidated, **s.__dict__)


_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
TOOLS: list[tuple[Callable[..., Any], ToolAnnotations]] = [
    (remember, ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)),
    (recall, _READ),
    # It records a run (its cost), nothing else.
    (answer, ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)),
    (audit_fact, _READ),
    (forget_interaction, ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)),
    (user_stats, _READ),
]


# -- errors ---------------------------------------------------------------------------------------


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
    line = " ".join(f"{code.value}: {message}".split())
    return CallToolResult(content=[TextContent(type="text", text=line)], is_error=True)


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
        for fn, hints in TOOLS:
            self.add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""), annotations=hints)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: ToolContext | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            async with asyncio.timeout(self.timeout_s):
                return await super().call_tool(name, arguments, context)
        except MCPError:
            raise
        except Exception as error:
            return tool_error(name, error, new_request_id())


# -- HTTP -----------------------------------------------------------------------------------------


def _refusal(
    message: str, code: ErrorCode, headers: dict[str, str] | None = None, *, status: int | None = None
) -> Response:
    """A JSON-RPC error answered before the SDK sees the request (MCP clients read its message)."""
    rpc = INTERNAL_ERROR if code is ErrorCode.INTERNAL else INVALID_REQUEST
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": rpc, "message": f"{code.value}: {message}", "data": {"code": code.value}},
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
        principal = admitted
        setattr(request.state, _CALLER, _Caller(services, principal))
        return None


def build_mcp(settings: ApiSettings, services: Callable[[Scope], Services] = services_of) -> McpEndpoint:
    """The MCP app for `/mcp`; `services` finds the process's Services from a request's scope (the
    app's state, built in its lifespan). Enter its `run()` in the app's lifespan."""
    return McpEndpoint(settings, services)
