"""`/graphql` over HTTP and the websocket: strawberry's ASGI view, through its documented hooks,
and the endpoint that runs it behind the middleware stack (api/middleware, assembled in
api/app.py).

By the time the endpoint runs, the request has its id, its media type, its key's principal and
its whole body (under the cap). The endpoint refuses documents that name no runnable operation,
runs the view under the request timeout and answers strawberry's request errors as GraphQL
errors. Whatever goes wrong, a client gets a GraphQL error with `extensions.code` and the request
id, never a plain-text 500.
"""

from __future__ import annotations

import asyncio
import logging
from typing import cast

# strawberry's views raise cross_web's HTTPException for a request they refuse (bad JSON, another
# content type, a mutation over GET); catching it, as strawberry's integration guide does, is how
# such a request gets a typed GraphQL error instead of strawberry's plain text.
from cross_web import HTTPException
from starlette.authentication import AuthenticationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLHTTPResponse, process_result
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult
from strawberry.types.unset import UNSET, UnsetType

from api import request_body
from api.admission import Refusal
from api.auth import principal_for, token_from_params
from api.context import Context, services_of
from api.errors import ErrorCode, write_error
from api.graphiql import page_response
from api.middleware.authentication import credential_of, principal_of
from api.middleware.negotiation import media_of
from api.middleware.request_id import request_id_of
from api.operations import operation_problem, requested_operation, runs_mutation
from api.responses import (
    GRAPHQL_RESPONSE,
    JSON,
    UNAVAILABLE_HEADERS,
    content_type,
    error_response,
    request_error_status,
    status_for,
    store_unavailable,
)
from api.schema import MemorySchema
from api.settings import ApiSettings
from api.websocket import GuardedTransportWS

log = logging.getLogger("api.http")
# What a GET request's query string may carry, each at most once.
GET_PARAMETERS = ("query", "variables", "operationName", "extensions")


class MemoryGraphQL(GraphQL[Context, None]):
    """strawberry's view, customised only through its documented hooks."""

    graphql_transport_ws_handler_class = GuardedTransportWS

    def __init__(self, schema: MemorySchema, settings: ApiSettings) -> None:
        self.documents = schema.documents
        super().__init__(
            schema,
            graphql_ide="graphiql" if settings.graphiql else None,
            allow_queries_via_get=True,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            max_subscriptions_per_connection=settings.max_subscriptions_per_connection,
            allowed_origins=settings.websocket_origins,
        )

    async def render_graphql_ide(self, request: Request) -> Response:
        # strawberry's page loads React and GraphiQL from a CDN; ours comes from api/graphiql, so
        # it works offline (and its Content-Security-Policy forbids other origins).
        return page_response()

    def decode_json(self, data: str | bytes) -> object:
        # A BadJson is a JSONDecodeError: over HTTP strawberry answers it with a 400 (whose
        # reason the endpoint shows), on the websocket with close code 4400.
        return request_body.decode(data)

    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> Context:
        services, principal = services_of(request.scope), principal_of(request.scope)
        if isinstance(request, WebSocket):
            return Context(services=services, principal=principal, credential=credential_of(request.scope))
        context = Context(
            services=services, request_id=request_id_of(request.scope), principal=principal, write_refs=[]
        )
        request.state.context = context
        return context

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        """Without a key in the handshake (api/middleware/authentication.py), connection_init
        must carry one: a bad or missing one closes the connection with 4403."""
        if context.principal is None:
            token = token_from_params(context.connection_params)
            try:
                context.principal = await principal_for(context.services.authenticator, token)
            except AuthenticationError:
                raise ConnectionRejectionError({"code": ErrorCode.UNAUTHENTICATED.value}) from None
            context.credential = token
        return cast(UnsetType, UNSET)

    async def get_sub_response(self, request: Request | WebSocket) -> Response:
        sub_response = await super().get_sub_response(request)
        sub_response.media_type = media_of(request.scope)
        return sub_response

    async def process_result(self, request: Request, result: ExecutionResult) -> GraphQLHTTPResponse:
        data = process_result(result)
        if result.data is None and result.errors and all(e.path is None for e in result.errors):
            # A request error (parse, validation, coercion): no `data` entry at all.
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


class GraphQLEndpoint:
    """The ASGI endpoint of `/graphql` over HTTP, innermost in the middleware stack."""

    def __init__(self, view: MemoryGraphQL, settings: ApiSettings) -> None:
        self.view = view
        self.timeout_s = settings.request_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await self._respond(Request(scope, receive))
        await response(scope, receive, send)

    async def _respond(self, request: Request) -> Response:
        media, request_id = media_of(request.scope), request_id_of(request.scope)
        if request.method == "GET":
            repeated = request_body.repeated_parameter(request.query_params, GET_PARAMETERS)
            if repeated is not None:
                code = ErrorCode.BAD_USER_INPUT
                return error_response(repeated, code, request_id, media=media, status=400)
        operation = await requested_operation(request)
        problem = None if operation is None else operation_problem(self.view.documents, *operation)
        if problem is not None:
            code = ErrorCode.BAD_USER_INPUT
            return error_response(
                problem, code, request_id, media=media, status=request_error_status(media, code)
            )
        try:
            async with asyncio.timeout(self.timeout_s):
                response = await self.view.run(request)
        except TimeoutError:
            return self._timed_out(request, media, request_id, operation)
        except HTTPException as error:
            return _refused_request(error, request.method, media, request_id)
        if getattr(request.state, "unavailable", False):
            # One shape for an outage, whatever failed and wherever (docs/failures.md#the-shape-of-an-outage).
            response.status_code = 503
            response.headers.update(UNAVAILABLE_HEADERS)
        return response

    def _timed_out(
        self, request: Request, media: str, request_id: str, operation: tuple[str, object] | None
    ) -> Response:
        """The request's one error after its timeout cancelled it. Its data went with the
        cancelled execution, and a mutation cut short may have committed (the cancellation can
        land during COMMIT): `written` is "unknown" for a mutation, and the sourceRefs of every
        remember it ran or started are named, to resend (one already stored is answered, not
        stored again)."""
        log.warning("request %s timed out after %ss", request_id, self.timeout_s)
        message = f"the request took longer than {self.timeout_s:g}s and was cancelled"
        context = getattr(request.state, "context", None)
        refs = context.write_refs if isinstance(context, Context) else None
        extensions: dict[str, object] = {"written": False}
        if refs:
            extensions = dict(write_error("unknown", refs).extensions)
            message += "; its writes may or may not be stored: resend them with the same sourceRefs"
        elif operation is not None and runs_mutation(self.view.documents, *operation):
            extensions["written"] = "unknown"
            message += "; its writes may or may not be stored"
        return error_response(
            message, ErrorCode.UNAVAILABLE, request_id, media=media, status=503, extensions=extensions
        )


def _refused_request(error: HTTPException, method: str, media: str, request_id: str) -> Response:
    """strawberry's refusal of a request, as a GraphQL error with its status."""
    status, reason, cause = error.status_code, error.reason, error.__cause__
    if isinstance(cause, request_body.BadJson):
        reason = cause.reason
    elif method == "GET" and isinstance(cause, InvalidOperationTypeError):
        status, reason = 405, "mutations and subscriptions need POST"
    headers = {"allow": "POST"} if status == 405 else None
    return error_response(
        reason, ErrorCode.BAD_USER_INPUT, request_id, media=media, status=status, headers=headers
    )


def render_refusal(scope: Scope, refusal: Refusal) -> Response:
    """How `/graphql`'s middleware answers a refusal: one GraphQL error in the negotiated type."""
    return error_response(
        refusal.message,
        refusal.code,
        request_id_of(scope),
        media=media_of(scope),
        status=refusal.status,
        headers=refusal.headers or None,
    )


def internal_error(scope: Scope) -> Response:
    """The last resort for an exception nothing else handled: logged with its traceback under the
    request id, answered as a JSON GraphQL error (never Starlette's plain-text 500)."""
    request_id = request_id_of(scope)
    log.exception("unhandled error in request %s", request_id)
    return error_response(f"internal error (request id {request_id})", ErrorCode.INTERNAL, request_id)
