"""Which operation of a document an HTTP request runs, checked before strawberry executes it.

GraphQL over HTTP: a document with several operations needs `operationName`; a name the document
does not define is a request error (HTTP 200 with `application/json`, 400 with
`application/graphql-response+json`), not a transport failure; and subscriptions are served on
the websocket only (strawberry would start one over HTTP, and it could never deliver).
"""

from __future__ import annotations

from graphql import OperationType
from starlette.requests import Request

from api import request_body
from api.schema.documents import Documents


async def requested_operation(request: Request) -> tuple[str, object] | None:
    """The document and `operationName` of a request the view will run, read as it reads them
    (GET parameters, or a POST body of `application/json`); None for one it refuses itself with
    a 400 (another content type, a body that is not a JSON object, a `variables` or `extensions`
    that is not an object, no document), so that its reason comes first, as before execution."""
    if request.method == "GET":
        params = request.query_params
        if not all(_decodes(params[name]) for name in ("variables", "extensions") if name in params):
            return None
        data: dict[str, object] = dict(params)
    else:
        if "application/json" not in request.headers.get("content-type", "").split(";")[0]:
            return None
        try:
            data = request_body.decode(await request.body())
        except request_body.BadJson:
            return None
        if not all(isinstance(data.get(name), dict | None) for name in ("variables", "extensions")):
            return None
    query = data.get("query")
    return (query, data.get("operationName")) if isinstance(query, str) else None


def _decodes(text: str) -> bool:
    """Whether a GET parameter holds a JSON object (an empty one is refused by the view)."""
    try:
        request_body.decode(text)
    except request_body.BadJson:
        return False
    return True


def operation_problem(documents: Documents, query: str | None, operation_name: object) -> str | None:
    """Why the request names no runnable operation, or None (a syntax error is left to the
    executor, which reports it with its location)."""
    document = documents.read(query) if query else None
    if document is None:
        return None
    operations = document.operations
    if operation_name is None:
        if len(operations) > 1:
            return "the document holds several operations: name the one to run in operationName"
        chosen = operations[0] if operations else None
    else:
        chosen = next((o for o in operations if o.name and o.name.value == operation_name), None)
        if chosen is None:
            return f'Unknown operation named "{operation_name}".'
    if chosen is not None and chosen.operation is OperationType.SUBSCRIPTION:
        return "subscriptions are served on the websocket at /graphql (graphql-transport-ws), not over HTTP"
    return None


def runs_mutation(documents: Documents, query: str | None, operation_name: object) -> bool:
    """Whether the request's chosen operation is a mutation (it may have written something)."""
    return documents.runs_mutation(query, operation_name)
