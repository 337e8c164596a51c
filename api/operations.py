"""Which operation of a document an HTTP request runs, checked before strawberry executes it.

GraphQL over HTTP: a document with several operations needs `operationName`; a name the document
does not define is a request error (HTTP 200 with `application/json`, 400 with
`application/graphql-response+json`), not a transport failure; and subscriptions are served on
the websocket only (strawberry would start one over HTTP, and it could never deliver).
"""

from __future__ import annotations

from graphql import GraphQLSyntaxError, OperationDefinitionNode, OperationType, parse


def operation_problem(query: str | None, operation_name: str | None) -> str | None:
    """Why the request names no runnable operation, or None (a syntax error is left to the
    executor, which reports it with its location)."""
    if not query:
        return None
    try:
        document = parse(query)
    except GraphQLSyntaxError:
        return None
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
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
