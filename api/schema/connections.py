"""Relay cursor connections over keyset pages: `first`/`after` forward, `last`/`before` backward.

A cursor is an opaque base64url token holding the sort key (seq, or a time in ns) and the node id,
so a page stays correct while new memory arrives in between.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

import strawberry
from strawberry.annotation import StrawberryAnnotation
from strawberry.extensions.field_extension import AsyncExtensionResolver, FieldExtension
from strawberry.types.arguments import StrawberryArgument
from strawberry.types.field import StrawberryField

from api.errors import bad_input
from api.schema.decorators import resolver
from api.schema.nodes import Info, NodeKind
from graph.models import Cursor, Page, PageRequest
from graph.vocabulary import MAX_ID_CHARS

T = TypeVar("T")
M = TypeVar("M")
DEFAULT_PAGE = 20
CURSOR_VERSION = "c1"


def _arguments(described: tuple[tuple[str, type, str], ...]) -> list[StrawberryArgument]:
    """(name, scalar, description) as field arguments, each optional and defaulting to null."""
    return [
        StrawberryArgument(
            python_name=name,
            graphql_name=None,
            type_annotation=StrawberryAnnotation(scalar | None),
            description=description,
            default=None,
        )
        for name, scalar, description in described
    ]


def _paging(noun: str, time_field: str) -> tuple[list[StrawberryArgument], list[StrawberryArgument]]:
    """What every connection takes: Relay's four arguments, and a time window on the listing's own
    time field. Their descriptions name the listing's items (`noun`, plural) and that field, so
    each listing documents its own."""
    relay = _arguments(
        (
            ("first", int, f"{noun.capitalize()} per page, reading forward from the start or from `after`."),
            ("after", str, f"Start after this cursor (an edge's, from this listing of {noun})."),
            ("last", int, f"{noun.capitalize()} per page, reading backward from the end or from `before`."),
            ("before", str, f"End before this cursor (an edge's, from this listing of {noun})."),
        )
    )
    window = _arguments(
        (
            ("since", datetime, f"Only {noun} whose {time_field} is at or after this time."),
            ("until", datetime, f"Only {noun} whose {time_field} is before this time."),
        )
    )
    return relay, window


@strawberry.type(description="Relay page information: whether more items lie either way.")
class PageInfo:
    has_next_page: bool = strawberry.field(description="More items follow the last edge.")
    has_previous_page: bool = strawberry.field(description="More items precede the first edge.")
    start_cursor: str | None = strawberry.field(description="Cursor of the first edge.")
    end_cursor: str | None = strawberry.field(description="Cursor of the last edge.")


@strawberry.type(description="One item of a connection with its cursor.")
class Edge(Generic[T]):
    cursor: str = strawberry.field(description="Opaque position of this item, for after/before.")
    node: T = strawberry.field(description="The item.")


@strawberry.type(description="A page of items in ascending order (stream order or time).")
class Connection(Generic[T]):
    edges: list[Edge[T]] = strawberry.field(description="The items of this page with their cursors.")
    page_info: PageInfo = strawberry.field(description="Where this page lies in the whole list.")

    @resolver(description="The items of this page without cursors.")
    def nodes(self) -> list[T]:
        return [edge.node for edge in self.edges]


def encode_cursor(cursor: Cursor) -> str:
    raw = f"{CURSOR_VERSION}:{cursor.key}:{cursor.id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(token: str) -> Cursor:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        version, key, node_id = raw.split(":", 2)
        if version != CURSOR_VERSION or not node_id or len(node_id) > MAX_ID_CHARS:
            raise ValueError(raw)
        return Cursor(int(key), node_id)
    except (ValueError, UnicodeDecodeError, binascii.Error):
        raise bad_input("invalid cursor") from None


def page_request(
    *,
    max_size: int,
    first: int | None,
    after: str | None,
    last: int | None = None,
    before: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> PageRequest:
    """Validated Relay arguments; `first` and `last` together are refused (ambiguous), and so is
    a window that does not end after it starts, as a filter's is (consolidation/recall/filters.py)."""
    if first is not None and last is not None:
        raise bad_input("pass either first or last, not both")
    if since is not None and until is not None and until <= since:
        raise bad_input("until must be later than since")
    for name, size in (("first", first), ("last", last)):
        if size is not None and not 0 <= size <= max_size:
            raise bad_input(f"{name} must be between 0 and {max_size}")
    backward = last is not None
    limit = last if last is not None else first if first is not None else DEFAULT_PAGE
    return PageRequest(
        limit=limit,
        backward=backward,
        after=decode_cursor(after) if after is not None else None,
        before=decode_cursor(before) if before is not None else None,
        since=since,
        until=until,
    )


def connection(page: Page[M], request: PageRequest, wrap: Callable[[M], T]) -> Connection[T]:
    edges = [Edge(cursor=encode_cursor(cursor), node=wrap(item)) for cursor, item in page.items]
    if request.backward:
        has_previous, has_next = page.has_more, request.before is not None
    else:
        has_previous, has_next = request.after is not None, page.has_more
    return Connection(
        edges=edges,
        page_info=PageInfo(
            has_next_page=has_next,
            has_previous_page=has_previous,
            start_cursor=edges[0].cursor if edges else None,
            end_cursor=edges[-1].cursor if edges else None,
        ),
    )


ReadPage = Callable[..., Awaitable[Page[M]]]
Resolve = Callable[..., Awaitable[Connection[T]]]
# The read's parameter that receives the page asked for; it is no argument of the field.
REQUEST = "request"


class Paging(FieldExtension, Generic[M, T]):
    """A field extension making a page read a Relay connection of `kind`: the field shows Relay's
    arguments, the read's own, then the time window on `time_field`; the read gets Relay's and
    the window's values as one PageRequest (`request`), bounded by the configured page size."""

    def __init__(self, kind: NodeKind[M, T], time_field: str) -> None:
        self.kind = kind
        self.relay, self.window = _paging(f"{kind.name}s", time_field)

    def apply(self, field: StrawberryField) -> None:
        filters = [argument for argument in field.arguments if argument.python_name != REQUEST]
        field.arguments = [*self.relay, *filters, *self.window]

    async def resolve_async(
        self, next_: AsyncExtensionResolver, source: Any, info: Info, **arguments: Any
    ) -> Connection[T]:
        given = {a.python_name: arguments.pop(a.python_name, None) for a in (*self.relay, *self.window)}
        request = page_request(max_size=info.context.services.settings.max_page_size, **given)
        page: Page[M] = await next_(source, info, **{REQUEST: request}, **arguments)
        return connection(page, request, self.kind.of)


def listing(
    kind: NodeKind[M, T], description: str, *, time_field: str
) -> Callable[[ReadPage[M]], Resolve[T]]:
    """A connection of `kind` from `read(self, info, request, **filters)`, which reads one page
    (see Paging)."""
    # Connection of a node type known at run time: a subscription mypy reads only on a literal type.
    connection_type = cast("Any", Connection)[kind.type]
    field = strawberry.field(
        description=description,
        graphql_type=connection_type,
        extensions=[Paging(kind, time_field)],
    )
    return cast("Callable[[ReadPage[M]], Resolve[T]]", field)
