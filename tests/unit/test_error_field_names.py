"""GraphQL refusals name fields as GraphQL callers write them (docs/api/errors.md#field-names); MCP's
keep the Python names its callers write."""

from __future__ import annotations

from graphql import GraphQLError

from api.errors import as_written, recode
from api.mcp.errors import tool_error
from api.schema import build_schema
from api.schema.extensions import written_names
from graph.errors import InvalidInput

NAMES = written_names(build_schema())


def test_the_names_are_the_schemas_arguments_and_input_fields() -> None:
    assert NAMES["valid_from"] == "validFrom" and NAMES["user_id"] == "userId"
    assert NAMES["source_ref"] == "sourceRef" and NAMES["valid_from_before"] == "validFromBefore"
    assert "fact_id" not in NAMES  # an MCP argument's name; GraphQL's is `id`
    assert all("_" in python and "_" not in written for python, written in NAMES.items())


def test_only_whole_names_outside_quotes_are_rewritten() -> None:
    cases = {
        "invalid input: source_ref: too short": "invalid input: sourceRef: too short",
        "filter.agent_ids must name at least one value": "filter.agentIds must name at least one value",
        "metadata key 'source_ref!' is not allowed: letters, '_' and '-'": (
            "metadata key 'source_ref!' is not allowed: letters, '_' and '-'"
        ),
        'the value "user_id" is quoted': 'the value "user_id" is quoted',
        "the header's owner needs a user_id": "the header's owner needs a userId",
        "my_user_id and user_ids are no field": "my_user_id and user_ids are no field",
        "RECMEM_MAX_TEXT_BYTES": "RECMEM_MAX_TEXT_BYTES",
    }
    assert {said: as_written(said, NAMES) for said in cases} == cases


def test_graphql_rewrites_refusals_only_and_mcp_keeps_python_names() -> None:
    invalid = InvalidInput("source_ref must not be empty")
    refused = GraphQLError(str(invalid), path=["remember"], original_error=invalid)
    assert recode(refused, "r1", NAMES).message == "sourceRef must not be empty"
    broken = RuntimeError("source_ref broke")
    internal = GraphQLError(str(broken), path=["remember"], original_error=broken)
    assert recode(internal, "r1", NAMES).message == "internal error (request id r1)"
    (line,) = tool_error("remember", InvalidInput("source_ref must not be empty"), "r1").content
    assert getattr(line, "text", None) == "BAD_USER_INPUT: source_ref must not be empty"
