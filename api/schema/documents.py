"""Parsed documents, kept per document text, with what the checks before execution need of them.

Clients send the same few documents over and over. Without this, every request parsed its
document twice (once to pick the operation, api/operations.py, and once for strawberry) and
walked it three times for the checks below. A document is parsed once, under the schema's token
limit, and its checks are made once (docs/benchmarks/service.md#what-was-cut-and-what-each-costs).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    Visitor,
    parse,
    visit,
)
from strawberry.types.execution import ExecutionContext

# Fields a document may select once its fragments are expanded (the token limit bounds the text,
# not this: `fragment F1 on T { ...F0 ...F0 }` doubles it per line).
MAX_EXPANDED_FIELDS = 10_000


@dataclass(frozen=True)
class ParsedDocument:
    node: DocumentNode
    # Fragments spread twice per level expand exponentially: such a document is refused before
    # any validation rule walks it.
    too_many_fields: bool
    # A spread of an undefined fragment, or `{}`: strawberry's depth limiter fails on either
    # (KeyError, ValueError) instead of reporting; graphql-core's own rules report them.
    unfit_for_depth_rule: bool

    @property
    def operations(self) -> list[OperationDefinitionNode]:
        return [d for d in self.node.definitions if isinstance(d, OperationDefinitionNode)]


class Documents:
    """An LRU of parsed documents, shared by the HTTP endpoint and the schema's extensions."""

    def __init__(self, maxsize: int, max_tokens: int) -> None:
        self.max_tokens = max_tokens
        # A text that does not parse is kept as None: strawberry parses it again to report it.
        self.read = lru_cache(maxsize=maxsize)(self._parse)

    def _parse(self, query: str) -> ParsedDocument | None:
        try:
            node = parse(query, max_tokens=self.max_tokens)
        except GraphQLError:
            return None
        return checked(node)

    def of(self, context: ExecutionContext) -> ParsedDocument | None:
        """The operation's document with its checks: the cached one, unless strawberry got its
        document elsewhere."""
        document = context.graphql_document
        if document is None:
            return None
        cached = self.read(context.query) if context.query else None
        return cached if cached is not None and cached.node is document else checked(document)

    def runs_mutation(self, query: str | None, operation_name: object) -> bool:
        """Whether the request's chosen operation is a mutation (it may have written something)."""
        document = self.read(query) if query else None
        if document is None:
            return False
        operations = document.operations
        if operation_name is None:
            chosen = operations[0] if len(operations) == 1 else None
        else:
            chosen = next((o for o in operations if o.name and o.name.value == operation_name), None)
        return chosen is not None and chosen.operation is OperationType.MUTATION


def checked(node: DocumentNode) -> ParsedDocument:
    too_many = _expanded_fields(node) > MAX_EXPANDED_FIELDS
    unfit = not too_many and (_spreads_undefined_fragment(node) or _has_empty_selection(node))
    return ParsedDocument(node, too_many, unfit)


def _expanded_fields(document: DocumentNode) -> int:
    """Fields the operations select with every fragment spread expanded (cycles and unknown
    fragments count nothing: validation reports them); stops counting past the limit."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    memo: dict[str, int] = {}

    def size(selections: SelectionSetNode | None, visiting: frozenset[str]) -> int:
        total = 0
        for selection in selections.selections if selections is not None else ():
            if isinstance(selection, FieldNode):
                total += 1 + size(selection.selection_set, visiting)
            elif isinstance(selection, InlineFragmentNode):
                total += size(selection.selection_set, visiting)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                if name in visiting or name not in fragments:
                    continue
                if name not in memo:
                    memo[name] = size(fragments[name].selection_set, visiting | {name})
                total += memo[name]
            if total > MAX_EXPANDED_FIELDS:
                break
        return total

    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    try:
        return sum(size(operation.selection_set, frozenset()) for operation in operations)
    except RecursionError:
        return MAX_EXPANDED_FIELDS + 1


def _has_empty_selection(document: DocumentNode) -> bool:
    empty = False

    class Sets(Visitor):
        def enter_selection_set(self, node: SelectionSetNode, *_: object) -> None:
            nonlocal empty
            empty = empty or not node.selections

    visit(document, Sets())
    return empty


def _spreads_undefined_fragment(document: DocumentNode) -> bool:
    defined = {d.name.value for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    spread: set[str] = set()

    class Spreads(Visitor):
        def enter_fragment_spread(self, node: FragmentSpreadNode, *_: object) -> None:
            spread.add(node.name.value)

    visit(document, Spreads())
    return not spread <= defined
