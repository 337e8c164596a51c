"""`/graphql`: strawberry's ASGI view with authentication, limits and GraphQL-over-HTTP semantics.

Over HTTP every request is authenticated, rate limited and size checked before the document is
even parsed; execution runs under a timeout. On the websocket the key comes in the handshake's
Authorization header (a bad one refuses the handshake) or in the connection_init payload (a bad or
missing one closes the connection with 4403); api/websocket.py keeps checking it, and applies the
rate limit and the body cap to each operation. Whatever goes wrong, a client gets a GraphQL error
with `extensions.code` and the request id, never a plain-text 500.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import cast

from cross_web import AsyncHTTPRequestAdapter, HTTPException
from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData, process_result
from strawberry.schema import BaseSchema
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult
from strawberry.types.unset import UNSET, UnsetType

from api import request_body
from api.admission import Refusal, admit
from api.auth import bearer_token, token_from_params
from api.context import Context, new_request_id
from api.errors import ErrorCode, write_error
from api.graphiql import page, page_response
from api.operations import operation_problem
from api.responses import (
    GRAPHQL_RESPONSE,
    JSON,
    UNAVAILABLE_HEADERS,
    content_type,
    error_response,
    negotiate,
    status_for,
    store_unavailable,
)
from api.services import Services
from api.settings import ApiSettings
from api.websocket import GuardedTransportWS, capped
from graph.errors import StoreUnavailable

log = logging.getLogger("api.http")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class BodyTooLarge(Exception):
    pass


def services_of(scope: Scope) -> Services:
    return cast(Services, scope["app"].state.services)


class MemoryGraphQL(GraphQL[Context, None]):
    graphql_transport_ws_handler_class = GuardedTransportWS

    def __init__(self, schema: BaseSchema, settings: ApiSettings) -> None:
        super().__init__(
            schema,
            graphql_ide="graphiql" if settings.graphiql else None,
            allow_queries_via_get=True,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            max_subscriptions_per_connection=settings.max_subscriptions_per_connection,
            allowed_origins=settings.websocket_origins,
        )
        self.settings = settings

    # -- GraphiQL ------------------------------------------------------------------------------
    # strawberry's page loads React and GraphiQL from a CDN; ours comes from api/graphiql, so it
    # works offline (and its Content-Security-Policy forbids other origins).

    @property
    def graphql_ide_html(self) -> str:
        return page()[0]

    async def render_graphql_ide(self, request: Request) -> Response:
        return page_response()

    # -- HTTP ----------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            receive, send = capped(receive, send, self.settings.max_body_bytes)
            if await self._handshake_allowed(WebSocket(scope, receive, send)):
                await super().__call__(scope, receive, send)
            return
        request_id = _request_id(scope)
        try:
            response = await self._http(scope, receive, request_id)
        except asyncio.CancelledError:
            if _being_cancelled():
                raise  # the request itself is cancelled (client gone, shutdown): nothing to answer
            response = _internal_error(request_id)  # a stray cancellation, e.g. of a shared future
        except Exception:
            response = _internal_error(request_id)
        await response(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, request_id: str) -> Response:
        request = Request(scope, receive)
        media = negotiate(request.headers.get("accept"))
        if request.method not in ("GET", "POST"):
            return error_response(
                "use GET or POST",
                ErrorCode.BAD_USER_INPUT,
                request_id,
                status=405,
                headers={"allow": "GET, POST"},
            )
        if self.should_render_graphql_ide(self.request_adapter_class(request)) and self.graphql_ide:
            return await self.render_graphql_ide(request)
        if media is None:
            return error_response(
                f"acceptable media types: {GRAPHQL_RESPONSE}, {JSON}",
                ErrorCode.BAD_USER_INPUT,
                request_id,
                status=406,
            )
        rejection, context = await self._admit(request, request_id, media)
        if rejection is not None:
            return rejection
        try:
            body = await self._body(request)
        except BodyTooLarge:
            return error_response(
                f"request body exceeds {self.settings.max_body_bytes} bytes",
                ErrorCode.BAD_USER_INPUT,
                request_id,
                media=media,
                status=413,
            )
        replay = Request(scope, _replay(body))
        replay.state.context = context
        replay.state.media = media
        try:
            response = await self.run(replay)
        except HTTPException as error:
            status = error.status_code
            headers = {"allow": "POST"} if status == 405 else None
            return error_response(
                error.reason,
                ErrorCode.BAD_USER_INPUT,
                request_id,
                media=media,
                status=status,
                headers=headers,
            )
        response.headers["x-request-id"] = request_id
        if getattr(replay.state, "unavailable", False):
            # One shape for an outage, whatever failed and wherever (README, "Errors").
            response.status_code = 503
            response.headers.update(UNAVAILABLE_HEADERS)
        return response

    async def _admit(self, request: Request, request_id: str, media: str) -> tuple[Response | None, Context]:
        """Authentication, rate limit and readiness, in that order; a Response means rejected."""
        services = services_of(request.scope)
        context = Context(services=services, request_id=request_id, write_refs=[])
        admitted = await admit(services, request.headers.get("authorization"))
        if isinstance(admitted, Refusal):
            response = error_response(
                admitted.message, admitted.code, request_id, media=media, headers=admitted.headers or None
            )
            return response, context
        principal = admitted
        context.principal = principal
        return None, context

    async def _body(self, request: Request) -> bytes:
        """The body, refusing more than max_body_bytes whatever Content-Length claims."""
        limit = self.settings.max_body_bytes
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise BodyTooLarge
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge
            chunks.append(chunk)
        return b"".join(chunks)

    def parse_json(self, data: str | bytes) -> object:
        """The POST body and GET `variables`/`extensions`: a typed 400 for anything unusable."""
        try:
            return request_body.decode(data)
        except request_body.BadJson as error:
            raise HTTPException(400, error.reason) from error

    def decode_json(self, data: str | bytes) -> object:
        # Websocket messages; a BadJson is a JSONDecodeError, which the protocol answers with 4400.
        return request_body.decode(data)

    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> Context:
        if isinstance(request, WebSocket):
            context = Context(services=services_of(request.scope))
            context.principal = getattr(request.state, "principal", None)
            return context
        return cast(Context, request.state.context)

    async def get_sub_response(self, request: Request | WebSocket) -> Response:
        sub_response = await super().get_sub_response(request)
        sub_response.media_type = getattr(request.state, "media", JSON)
        return sub_response

    async def process_result(self, request: Request, result: ExecutionResult) -> GraphQLHTTPResponse:
        data = process_result(result)
        if result.data is None and result.errors and all(e.path is None for e in result.errors):
            # A request error (parse, validation, coercion, timeout): no `data` entry at all.
            data.pop("data", None)
        context = getattr(request.state, "context", None)
        committed = isinstance(context, Context) and context.committed
        request.state.unavailable = store_unavailable(data, committed=committed)
        return data

    def create_response(
        self, response_data: GraphQLHTTPResponse | list[GraphQLHTTPResponse], sub_response: Response
    ) -> Response:
        media = sub_response.media_type or JSON
        status = 200
        if media == GRAPHQL_RESPONSE and isinstance(response_data, dict) and "data" not in response_data:
            status = status_for(list(response_data.get("errors") or []))
        response = Response(
            self.encode_json(response_data), status_code=status, media_type=content_type(media)
        )
        response.headers.raw.extend(h for h in sub_response.headers.raw if h[0] != b"content-type")
        return response

    async def execute_single(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        sub_response: Response,
        context: Context,
        root_value: None,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        problem = operation_problem(request_data.query, request_data.operation_name)
        if problem is not None:
            error = GraphQLError(
                problem, extensions={"code": ErrorCode.BAD_USER_INPUT.value, "requestId": context.request_id}
            )
            return ExecutionResult(data=None, errors=[error])
        try:
            async with asyncio.timeout(self.settings.request_timeout_s):
                return await super().execute_single(
                    request, request_adapter, sub_response, context, root_value, request_data
                )
        except TimeoutError:
            log.warning("request %s timed out after %ss", context.request_id, self.settings.request_timeout_s)
            return ExecutionResult(data=None, errors=[self._timed_out(context)])
        except HTTPException as error:
            if request_adapter.method == "GET" and isinstance(error.__cause__, InvalidOperationTypeError):
                raise HTTPException(405, "mutations and subscriptions need POST") from error
            raise

    def _timed_out(self, context: Context) -> GraphQLError:
        """The request's one error after its timeout cancelled it. Its data went with the
        cancelled execution, and a remember cut short may have committed (the cancellation can
        land during COMMIT): the sourceRefs of every remember it ran or started are named, to
        resend (one already stored is answered, not stored again)."""
        message = f"the request took longer than {self.settings.request_timeout_s:g}s and was cancelled"
        extensions: dict[str, object] = {}
        if context.write_refs:
            extensions = write_error("unknown", context.write_refs).extensions
            message += "; its writes may or may not be stored: resend them with the same sourceRefs"
        context.committed = False  # nothing in the answer shows a write
        extensions |= {"code": ErrorCode.UNAVAILABLE.value, "requestId": context.request_id}
        return GraphQLError(message, extensions=extensions)

    # -- websocket -----------------------------------------------------------------------------

    async def _handshake_allowed(self, websocket: WebSocket) -> bool:
        """A key in the handshake's Authorization header is checked before accepting: a bad one is
        refused with HTTP 403. Without the header the key must come in connection_init."""
        if "authorization" not in websocket.headers:
            return True
        try:
            token = bearer_token(websocket.headers["authorization"])
            principal = await services_of(websocket.scope).authenticator.authenticate(token)
        except StoreUnavailable:
            principal = None
        if principal is None:
            await self.reject_websocket(websocket)
            return False
        websocket.state.principal = principal
        websocket.state.token = token  # GuardedTransportWS looks it up again while the socket lives
        return True

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        if context.principal is None:
            token = token_from_params(context.connection_params)
            try:
                context.principal = await context.services.authenticator.authenticate(token)
            except StoreUnavailable:
                context.principal = None
            if context.principal is None:
                raise ConnectionRejectionError({"code": ErrorCode.UNAUTHENTICATED.value})
        return cast(UnsetType, UNSET)


def _request_id(scope: Scope) -> str:
    """The caller's X-Request-Id when it is a sane token, else a fresh one."""
    header_id = Request(scope).headers.get("x-request-id", "")
    return header_id if _REQUEST_ID.match(header_id) else new_request_id()


def _being_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _internal_error(request_id: str) -> Response:
    """The last resort for an exception nothing else handled: logged with its traceback under the
    request id, answered as a JSON GraphQL error (never Starlette's plain-text 500)."""
    log.exception("unhandled error in request %s", request_id)
    return error_response(f"internal error (request id {request_id})", ErrorCode.INTERNAL, request_id)


def _replay(body: bytes) -> Receive:
    """A receive channel that hands the already-read body to the view once."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive
