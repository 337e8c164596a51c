"""A value of a `rememberBatch` unit that graphql-core refuses (a literal that fails validation, a
variable that fails coercion) is named by the unit's index, as the service's own checks name it:
`units[1].occurredAt: ...` (docs/api/errors.md#field-names)."""

from __future__ import annotations

import re
from collections.abc import Callable

from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLError,
    ListValueNode,
    Node,
    ObjectValueNode,
    ValueNode,
    VariableNode,
    visit,
)
from graphql.language import Visitor

# The batch argument: field, argument (as written in the schema).
BATCH_FIELD, BATCH_ARGUMENT = "rememberBatch", "units"

LITERAL = "Expected value of type "
VARIABLE = re.compile(
    r"Variable '\$(?P<name>\w+)' has invalid value(?: at (?P<at>\S+))?: (?P<reason>.*)", re.S
)


def named_unit(error: GraphQLError, document: DocumentNode | None) -> GraphQLError:
    """`error` naming the unit and field it refused, when it refused a value in a batch's units."""
    if document is None:
        return error
    batches = _batch_values(document)
    where: str | None = None
    reason = error.message
    variable = VARIABLE.fullmatch(error.message)
    if variable is not None:
        for value in batches:
            inside = _path(value, lambda n: isinstance(n, VariableNode) and n.name.value == variable["name"])
            if inside is not None:
                where, reason = inside + (variable["at"] or ""), variable["reason"]
                break
    elif error.message.startswith(LITERAL) and error.nodes:
        refused = error.nodes[0]
        for value in batches:
            where = _path(value, lambda n: n is refused)
            if where is not None:
                break
    if where is None:
        return error
    return GraphQLError(
        f"{BATCH_ARGUMENT}{where}: {reason}",
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=error.original_error,
        extensions=error.extensions,
    )


def _batch_values(document: DocumentNode) -> list[ValueNode]:
    """The `units` argument's value of every `rememberBatch` field of the document."""
    found: list[ValueNode] = []

    class Batches(Visitor):
        def enter_field(self, node: FieldNode, *_: object) -> None:
            if node.name.value == BATCH_FIELD:
                found.extend(a.value for a in node.arguments or () if a.name.value == BATCH_ARGUMENT)

    visit(document, Batches())
    return found


def _path(value: Node, hit: Callable[[Node], bool]) -> str | None:
    """Where the node `hit` picks lies in `value`: "" for itself, "[1].occurredAt" below; None if
    nowhere in it."""
    if hit(value):
        return ""
    if isinstance(value, ListValueNode):
        for index, item in enumerate(value.values):
            below = _path(item, hit)
            if below is not None:
                return f"[{index}]{below}"
    if isinstance(value, ObjectValueNode):
        for field in value.fields:
            below = _path(field.value, hit)
            if below is not None:
                return f".{field.name.value}{below}"
    return None
