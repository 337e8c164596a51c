"""What the tools take: the argument types they share and the checks of what a caller sends.

An argument's description is part of the tool's published input schema. A bad argument raises
the same errors as in GraphQL, worded with the tool's argument name.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BeforeValidator, Field

from api.context import Context
from api.errors import not_found
from api.schema.scalars import parse_value
from consolidation.types import Unit
from consolidation.writing.checks import CheckedBatch, check_batch
from graph import models
from graph.validation import require_name
from graph.vocabulary import MAX_CONTEXT_TOKENS

UserId = Annotated[
    str, Field(description="The user whose memory this is: your own id for them, private to your tenant.")
]
# A time as GraphQL's DateTime reads it (api/schema/scalars.py): ISO 8601 text with an offset,
# which it keeps; a naive time is refused.
Moment = Annotated[datetime, BeforeValidator(parse_value)]
Tokens = Annotated[
    int, Field(ge=1, le=MAX_CONTEXT_TOKENS, description="Token budget (o200k) of the assembled context.")
]


def owner_of(context: Context, user_id: str) -> models.Owner:
    require_name("user_id", user_id)  # worded with the tool's argument name
    return context.owner(user_id)


async def require_user(context: Context, user_id: str) -> models.Owner:
    owner = owner_of(context, user_id)
    if await context.loaders.users.load(user_id) is None:
        raise not_found("user", user_id)
    return owner


def checked_unit(context: Context, owner: models.Owner, unit: Unit) -> CheckedBatch:
    """The one check of a remember (consolidation/writing/checks.py), here at the entry point, so the
    engine takes it as it is; a field is named as the tool's argument ("text", "source_ref")."""
    return check_batch(owner, [unit], context.services.max_text_bytes, label="{field}")
