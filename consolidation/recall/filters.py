"""The one check of a recall filter, and its form for the stores (graph/scopes.py's ScopeFilter).

An empty list is refused rather than read as "match nothing" or "match anything"; every value is
checked as a name or as a metadata scalar; a window must not end before it starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from consolidation.types import RecallFilters
from graph.errors import InvalidInput
from graph.scopes import AGENT, SESSION, SPEAKER, ScopeFilter, key_problem, meta_token, scalar_problem
from graph.validation import require_aware, require_name
from graph.vocabulary import FACT_KINDS, MAX_FILTER_VALUES, MAX_METADATA_KEYS


def scope_filter(filters: RecallFilters | None) -> ScopeFilter:
    """`filters` checked and as the stores take them; raises InvalidInput naming the field by its
    Python name (`filter.agent_ids`; GraphQL's refusals spell it as its callers do)."""
    if filters is None:
        return ScopeFilter()
    groups = [
        _group(f"filter.{field}", prefix, values)
        for field, prefix, values in (
            ("agent_ids", AGENT, filters.agent_ids),
            ("session_ids", SESSION, filters.session_ids),
            ("speakers", SPEAKER, filters.speakers),
        )
        if values is not None
    ]
    if filters.metadata is not None and not filters.metadata:
        raise InvalidInput("filter.metadata must name at least one value (leave it out to filter nothing)")
    if len(filters.metadata or ()) > MAX_METADATA_KEYS:
        raise InvalidInput(f"filter.metadata holds at most {MAX_METADATA_KEYS} conditions")
    for condition in filters.metadata or ():
        where = f"filter.metadata {condition.key[:80]!r}"
        if (problem := key_problem(condition.key)) is not None:
            raise InvalidInput(f"{where}: {problem}")
        _count(where, condition.values)
        for value in condition.values:
            if (problem := scalar_problem(value)) is not None:
                raise InvalidInput(f"{where}: {problem}")
        groups.append(tuple(dict.fromkeys(meta_token(condition.key, v) for v in condition.values)))
    if filters.kinds is not None:
        _count("filter.kinds", filters.kinds)
        for kind in filters.kinds:
            if kind not in FACT_KINDS:
                raise InvalidInput(f"filter.kinds: {kind[:40]!r} is not one of {', '.join(FACT_KINDS)}")
    _window("filter.occurred", filters.occurred_after, filters.occurred_before)
    _window("filter.valid_from", filters.valid_from_after, filters.valid_from_before)
    return ScopeFilter(
        groups=tuple(groups),
        since=filters.occurred_after,
        until=filters.occurred_before,
        valid_since=filters.valid_from_after,
        valid_until=filters.valid_from_before,
        kinds=tuple(filters.kinds) if filters.kinds is not None else None,
    )


def _group(where: str, prefix: str, values: Sequence[str]) -> tuple[str, ...]:
    _count(where, values)
    for value in values:
        require_name(where, value)
    return tuple(dict.fromkeys(f"{prefix}{v}" for v in values))


def _count(where: str, values: Sequence[object]) -> None:
    if not values:
        raise InvalidInput(f"{where} must name at least one value (leave it out to filter nothing)")
    if len(values) > MAX_FILTER_VALUES:
        raise InvalidInput(f"{where} names at most {MAX_FILTER_VALUES} values; got {len(values)}")


def _window(where: str, after: datetime | None, before: datetime | None) -> None:
    for name, moment in ((f"{where}_after", after), (f"{where}_before", before)):
        if moment is not None:
            require_aware(name, moment)
    if after is not None and before is not None and before <= after:
        raise InvalidInput(f"{where}_before must be later than {where}_after")
