"""The unscripted reply: content derived from the request, valid for its response_format."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from local_llm_server.schema_instance import schema_instance
from local_llm_server.text_source import TextSource
from local_llm_server.tokens import message_text


def prompt_text(messages: Any) -> str:
    """The text of the last user message (or of the last message with text, if none is a user's)."""
    if not isinstance(messages, list):
        return ""
    with_text = [m for m in messages if isinstance(m, Mapping) and message_text(m.get("content"))]
    users = [m for m in with_text if m.get("role") == "user"]
    chosen = users or with_text
    return message_text(chosen[-1].get("content")) if chosen else ""


def json_schema_field(body: Mapping[str, Any], field: str) -> Any:
    """`field` of a `json_schema` response_format's spec (its `name`, its `schema`), or None."""
    fmt = body.get("response_format")
    if not isinstance(fmt, Mapping) or fmt.get("type") != "json_schema":
        return None
    spec = fmt.get("json_schema")
    return spec.get(field) if isinstance(spec, Mapping) else None


def response_schema(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The JSON schema of a `json_schema` response_format, if the request has one."""
    schema = json_schema_field(body, "schema")
    return schema if isinstance(schema, Mapping) else None


def wants_json(body: Mapping[str, Any]) -> bool:
    fmt = body.get("response_format")
    return isinstance(fmt, Mapping) and fmt.get("type") in ("json_object", "json_schema")


def generic_content(body: Mapping[str, Any]) -> str:
    """Deterministic assistant content for `body`.

    json_schema -> an instance of the schema; json_object (or a schema-less json_schema)
    -> `{"response": <first sentence>}`; plain -> `Summary: <first sentence>`.
    Raises SchemaInstanceError when the schema cannot be instantiated.
    """
    text = TextSource(prompt_text(body.get("messages")))
    schema = response_schema(body)
    if schema is not None:
        return json.dumps(schema_instance(schema, text))
    if wants_json(body):
        return json.dumps({"response": text.sentence()})
    return f"Summary: {text.sentence()}"
