"""Build one JSON value that validates against a JSON schema.

Covers the subset pydantic v2's `model_json_schema()` (and the openai client's strict
variant of it) produces: object/properties/required/additionalProperties, string
(with min/maxLength and the common formats), integer, number (with bounds), boolean,
null, array (items, prefixItems, min/maxItems), enum, const, anyOf/oneOf (including
nullable `anyOf[{...}, {"type": "null"}]`), allOf, and `$ref` into `$defs`/`definitions`.
Not supported: `pattern`, `multipleOf`, `not`, `if/then/else`, `patternProperties`.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any

from local_llm_server.text_source import DEFAULT_MAX_CHARS, FALLBACK_TEXT, TextSource

JsonSchema = Mapping[str, Any]

# Past this nesting depth, optional parts are left out (null, empty arrays, missing
# non-required properties) so recursive models such as trees terminate.
SOFT_DEPTH = 6
# Past this depth the schema forces endless recursion: give up instead of looping.
HARD_DEPTH = 40
_MAX_REF_HOPS = 50

# Fixed values keep replies deterministic; they parse as the pydantic types
# (datetime, date, time, timedelta, EmailStr, AnyUrl, IP addresses) they stand for.
_FORMAT_VALUES: dict[str, str] = {
    "date-time": "2025-01-01T12:00:00Z",
    "date": "2025-01-01",
    "time": "12:00:00",
    "duration": "PT1H",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "iri": "https://example.com/",
    "hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
}
_ID_SUFFIXES = frozenset({"id", "ids", "uuid", "key", "ref", "refs", "slug"})
_DATE_SUFFIXES = frozenset({"date", "at", "timestamp", "datetime", "time", "when"})
_NUMERIC_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


class SchemaInstanceError(ValueError):
    """The schema cannot be instantiated (unresolvable $ref, unknown type, endless recursion)."""


def schema_instance(schema: JsonSchema, text: TextSource) -> Any:
    """A value valid against `schema`, with strings taken from `text` in order."""
    return _Generator(schema, text).generate(schema, name="", depth=0)


class _Generator:
    """Walks one schema; `root` anchors `$ref`s, `text` supplies string content."""

    def __init__(self, root: JsonSchema, text: TextSource) -> None:
        self._root = root
        self._text = text

    def generate(self, schema: JsonSchema, name: str, depth: int) -> Any:
        """An instance of `schema`; `name` is the property it fills (guides string style)."""
        if depth > HARD_DEPTH:
            raise SchemaInstanceError("schema recursion never terminates")
        schema = self._flatten(schema)
        if "const" in schema:
            return schema["const"]
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return enum[0]
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if isinstance(branches, list) and branches:
                return self.generate(_pick_branch(branches, depth), name, depth)
        return self._by_type(schema, _schema_type(schema, depth), name, depth)

    def _by_type(self, schema: JsonSchema, type_name: str, name: str, depth: int) -> Any:
        if type_name == "object":
            return self._object(schema, depth)
        if type_name == "array":
            return self._array(schema, name, depth)
        if type_name == "string":
            return self._string(schema, name)
        if type_name == "integer":
            return _integer(schema)
        if type_name == "number":
            return _number(schema)
        if type_name == "boolean":
            return True
        if type_name == "null":
            return None
        raise SchemaInstanceError(f"unsupported schema type {type_name!r}")

    def _flatten(self, schema: JsonSchema) -> JsonSchema:
        """`schema` with `$ref` resolved and `allOf` merged, siblings kept."""
        for _ in range(_MAX_REF_HOPS):
            if "$ref" in schema:
                target = self._resolve(str(schema["$ref"]))
                schema = _merge(target, {k: v for k, v in schema.items() if k != "$ref"})
            elif isinstance(schema.get("allOf"), list):
                merged: JsonSchema = {k: v for k, v in schema.items() if k != "allOf"}
                for part in schema["allOf"]:
                    merged = _merge(merged, self._flatten(part))
                schema = merged
            else:
                return schema
        raise SchemaInstanceError("$ref chain does not end")

    def _resolve(self, ref: str) -> JsonSchema:
        """The schema a local JSON pointer (`#/$defs/Name`) points to."""
        if not ref.startswith("#"):
            raise SchemaInstanceError(f"only local $ref is supported, got {ref!r}")
        node: Any = self._root
        for raw in ref[1:].split("/"):
            if not raw:
                continue
            key = raw.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or key not in node:
                raise SchemaInstanceError(f"unresolvable $ref {ref!r}")
            node = node[key]
        if not isinstance(node, Mapping):
            raise SchemaInstanceError(f"$ref {ref!r} does not point to a schema")
        return node

    def _object(self, schema: JsonSchema, depth: int) -> dict[str, Any]:
        properties: Mapping[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        shallow = depth < SOFT_DEPTH
        result = {
            key: self.generate(sub, key, depth + 1)
            for key, sub in properties.items()
            if shallow or key in required
        }
        extra = schema.get("additionalProperties")
        # A dict[str, X] field: one entry, like arrays get one item.
        if not properties and isinstance(extra, Mapping) and shallow:
            result[self._text.slug(max_words=2)] = self.generate(extra, "", depth + 1)
        return result

    def _array(self, schema: JsonSchema, name: str, depth: int) -> list[Any]:
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list):
            return [self.generate(sub, name, depth + 1) for sub in prefix]
        items = schema.get("items", {})
        if items is False:
            return []
        item_schema: JsonSchema = items if isinstance(items, Mapping) else {}
        min_items = int(schema.get("minItems", 0))
        count = max(1, min_items) if depth < SOFT_DEPTH else min_items
        if "maxItems" in schema:
            count = min(count, int(schema["maxItems"]))
        return [self.generate(item_schema, name, depth + 1) for _ in range(count)]

    def _string(self, schema: JsonSchema, name: str) -> str:
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in _FORMAT_VALUES:
            return _FORMAT_VALUES[fmt]
        if fmt == "uuid":
            return str(uuid.uuid5(uuid.NAMESPACE_URL, self._text.sentence()))
        suffix = _name_parts(name)[-1]
        if suffix in _DATE_SUFFIXES:
            return _FORMAT_VALUES["date-time"]
        max_length = int(schema.get("maxLength", DEFAULT_MAX_CHARS))
        value = self._text.slug() if suffix in _ID_SUFFIXES else self._text.sentence(max_length)
        return _fit_length(value, int(schema.get("minLength", 0)), max_length)


def _merge(base: JsonSchema, extra: JsonSchema) -> JsonSchema:
    """`extra` laid over `base`, with `properties` and `required` combined rather than replaced."""
    merged = {**base, **extra}
    if "properties" in base and "properties" in extra:
        merged["properties"] = {**base["properties"], **extra["properties"]}
    if "required" in base and "required" in extra:
        merged["required"] = list(dict.fromkeys([*base["required"], *extra["required"]]))
    return merged


def _is_null(schema: Any) -> bool:
    return isinstance(schema, Mapping) and schema.get("type") == "null"


def _pick_branch(branches: list[JsonSchema], depth: int) -> JsonSchema:
    """The first non-null branch; the null branch once nesting is deep (ends recursion)."""
    non_null = [b for b in branches if not _is_null(b)]
    has_null = len(non_null) < len(branches)
    if not non_null or (has_null and depth >= SOFT_DEPTH):
        return {"type": "null"}
    return non_null[0]


def _schema_type(schema: JsonSchema, depth: int) -> str:
    """The JSON type to generate: the declared one, or one inferred from the keywords."""
    declared = schema.get("type")
    if isinstance(declared, list):
        non_null = [str(t) for t in declared if t != "null"]
        if not non_null or ("null" in declared and depth >= SOFT_DEPTH):
            return "null"
        return non_null[0]
    if isinstance(declared, str):
        return declared
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if any(k in schema for k in _NUMERIC_KEYWORDS):
        return "number"
    return "string"


def _name_parts(name: str) -> list[str]:
    """`createdAt` / `created_at` / `created-at` -> ["created", "at"]; never empty."""
    snake = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    return [p for p in re.split(r"[_\-\s]+", snake) if p] or [""]


def _fit_length(value: str, min_length: int, max_length: int) -> str:
    """`value` padded with repeats of itself to `min_length`, then cut to `max_length`."""
    value = value or FALLBACK_TEXT
    while len(value) < min_length:
        value = f"{value} {value}"
    return value[:max_length]


def _lower_bound(schema: JsonSchema) -> tuple[float | None, bool]:
    return _bound(schema, "minimum", "exclusiveMinimum")


def _upper_bound(schema: JsonSchema) -> tuple[float | None, bool]:
    return _bound(schema, "maximum", "exclusiveMaximum")


def _bound(schema: JsonSchema, inclusive_key: str, exclusive_key: str) -> tuple[float | None, bool]:
    """(bound, exclusive); accepts both draft-2020 numbers and draft-4 boolean exclusives."""
    exclusive = schema.get(exclusive_key)
    if isinstance(exclusive, int | float) and not isinstance(exclusive, bool):
        return float(exclusive), True
    inclusive = schema.get(inclusive_key)
    return (None if inclusive is None else float(inclusive)), exclusive is True


def _integer(schema: JsonSchema) -> int:
    """The smallest allowed integer, or 1 when unbounded (a plausible count)."""
    low, low_exclusive = _lower_bound(schema)
    high, high_exclusive = _upper_bound(schema)
    if low is not None:
        floor = int(low) + 1 if low_exclusive and low.is_integer() else -int(-low // 1)
        return floor
    if high is not None:
        ceiling = int(high) - 1 if high_exclusive and high.is_integer() else int(high // 1)
        return min(1, ceiling)
    return 1


def _number(schema: JsonSchema) -> float:
    """The midpoint of the bounds, or a value half a unit inside the single bound, or 0.5."""
    low, _ = _lower_bound(schema)
    high, _ = _upper_bound(schema)
    if low is not None and high is not None:
        return (low + high) / 2
    if low is not None:
        return low + 0.5
    if high is not None:
        return high - 0.5
    return 0.5
