"""Documents from the checked-in SDL: random root fields with random (valid or wrong) arguments,
inline or as variables, and random sub-selections."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLUnionType,
    Undefined,
    build_schema,
)

from bench.fuzz.values import Json, scalar_value, wrong_value

SDL = Path(__file__).resolve().parents[2] / "api" / "schema.graphql"
# Output leaves: no selection set below them.
LEAF = GraphQLScalarType | GraphQLEnumType


def load_schema(path: Path = SDL) -> GraphQLSchema:
    return build_schema(path.read_text())


# graphql-core's types are walked generically here (wrappers, named types, or None for an
# unknown input field), hence Any.
def _named(type_: Any) -> Any:
    while isinstance(type_, GraphQLNonNull | GraphQLList):
        type_ = type_.of_type
    return type_


def _unwrap_non_null(type_: Any) -> Any:
    return type_.of_type if isinstance(type_, GraphQLNonNull) else type_


@dataclass
class Doc:
    """A document being built: its text, the variables it declares and their values."""

    rng: random.Random
    schema: GraphQLSchema
    valid_values: bool = True
    declarations: list[str] = field(default_factory=list)
    variables: dict[str, Json] = field(default_factory=dict)
    fragments: list[str] = field(default_factory=list)

    def value(self, type_: GraphQLInputType, arg: str, depth: int = 0) -> Json:
        """A JSON value for an input type (a wrong one now and then unless valid_values)."""
        rng = self.rng
        if not self.valid_values and rng.random() < 0.35:
            return wrong_value(rng)
        if isinstance(type_, GraphQLNonNull):
            return self.value(type_.of_type, arg, depth)
        if rng.random() < 0.05:
            return None
        if isinstance(type_, GraphQLList):
            size = rng.choice((0, 1, 1, 2, 3)) if depth < 3 else 0
            return [self.value(type_.of_type, arg, depth + 1) for _ in range(size)]
        if isinstance(type_, GraphQLEnumType):
            return str(rng.choice(list(type_.values)))
        if isinstance(type_, GraphQLInputObjectType):
            out: dict[str, Json] = {}
            for name, input_field in type_.fields.items():
                required = (
                    isinstance(input_field.type, GraphQLNonNull) and input_field.default_value is Undefined
                )
                if required or rng.random() < 0.5:
                    out[name] = self.value(input_field.type, name, depth + 1)
            return out
        assert isinstance(type_, GraphQLScalarType)
        return scalar_value(rng, type_.name, arg)

    def literal(self, value: Json, type_: Any) -> str:
        """The GraphQL literal of a JSON value (enum values bare)."""
        named = _named(type_)
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return repr(value) if isinstance(value, float) else str(value)
        if isinstance(value, str):
            if isinstance(named, GraphQLEnumType) and value in named.values:
                return value
            return json.dumps(value, ensure_ascii=self.rng.random() < 0.5)
        if isinstance(value, list):
            inner = type_.of_type if isinstance(type_, GraphQLList) else _unwrap_non_null(type_)
            inner = inner.of_type if isinstance(inner, GraphQLList) else inner
            return "[" + ", ".join(self.literal(v, inner) for v in value) + "]"
        if isinstance(value, dict):
            fields = named.fields if isinstance(named, GraphQLInputObjectType) else {}
            parts = [
                f"{k}: {self.literal(v, fields[k].type if k in fields else None)}" for k, v in value.items()
            ]
            return "{" + ", ".join(parts) + "}"
        return json.dumps(str(value))

    def arguments(self, graphql_field: GraphQLField, extra: bool = False) -> str:
        rng = self.rng
        parts = []
        for name, argument in graphql_field.args.items():
            required = isinstance(argument.type, GraphQLNonNull) and argument.default_value is Undefined
            if not required and rng.random() < 0.6:
                continue
            if required and not self.valid_values and rng.random() < 0.1:
                continue  # a missing required argument
            value = self.value(argument.type, name)
            if rng.random() < 0.5:
                variable = f"v{len(self.declarations)}"
                self.declarations.append(f"${variable}: {argument.type}")
                self.variables[variable] = value
                parts.append(f"{name}: ${variable}")
            else:
                parts.append(f"{name}: {self.literal(value, argument.type)}")
        if extra:
            parts.append(
                rng.choice(("bogus", "limit", "userId")) + ": " + rng.choice(("1", "true", '"x"', "null"))
            )
        return f"({', '.join(parts)})" if parts else ""

    def selection(self, type_: Any, depth: int) -> str:
        """A selection set for an output type, `depth` levels deep at most."""
        rng = self.rng
        named = _named(type_)
        if isinstance(named, LEAF):
            return ""
        fields: dict[str, GraphQLField] = dict(getattr(named, "fields", {}) or {})
        leaves = [n for n, f in fields.items() if isinstance(_named(f.type), LEAF)]
        nested = [n for n in fields if n not in leaves]
        chosen = rng.sample(leaves, min(len(leaves), rng.randint(1, 3))) if leaves else []
        if depth > 0 and nested:
            chosen += rng.sample(nested, min(len(nested), rng.randint(0, 2)))
        if rng.random() < 0.2:
            chosen.append("__typename")
        parts = [self._selected(fields, name, depth) for name in chosen or ["__typename"]]
        if isinstance(named, GraphQLInterfaceType | GraphQLUnionType) and rng.random() < 0.7:
            for possible in rng.sample(list(self.schema.get_possible_types(named)), 2):
                parts.append(f"... on {possible.name} {self.selection(possible, depth - 1)}")
        if rng.random() < 0.1 and isinstance(named, GraphQLObjectType):
            name = f"F{len(self.fragments)}"
            self.fragments.append(f"fragment {name} on {named.name} {{ __typename }}")
            parts.append(f"...{name}")
        return "{ " + " ".join(parts) + " }"

    def _selected(self, fields: dict[str, GraphQLField], name: str, depth: int) -> str:
        """One selected field: its alias (now and then), arguments and sub-selection."""
        if name == "__typename":
            return name
        rng = self.rng
        graphql_field = fields[name]
        arguments = self.arguments(graphql_field) if graphql_field.args else ""
        alias = f"a{rng.randint(0, 9)}_{name}: " if rng.random() < 0.1 else ""
        inner = self.selection(graphql_field.type, depth - 1)
        if not inner and not isinstance(_named(graphql_field.type), LEAF):
            inner = "{ __typename }"
        return f"{alias}{name}{arguments} {inner}".rstrip()

    def operation(self, root: str, *, depth: int | None = None, extra_argument: bool = False) -> str:
        """A whole document: one operation on a random field of `root` (query/mutation/subscription)."""
        rng = self.rng
        root_type = {
            "query": self.schema.query_type,
            "mutation": self.schema.mutation_type,
            "subscription": self.schema.subscription_type,
        }[root]
        assert root_type is not None
        names = list(root_type.fields)
        count = 1 if root == "subscription" else rng.choice((1, 1, 1, 2))
        parts = []
        for name in rng.sample(names, min(count, len(names))):
            graphql_field = root_type.fields[name]
            selection = self.selection(graphql_field.type, rng.randint(0, 3) if depth is None else depth)
            parts.append(f"{name}{self.arguments(graphql_field, extra_argument)} {selection}".rstrip())
        declared = f"({', '.join(self.declarations)})" if self.declarations else ""
        head = root if declared or rng.random() < 0.7 or root != "query" else ""
        name = f" Op{rng.randint(0, 99)}" if head and rng.random() < 0.3 else ""
        text = f"{head}{name}{declared} {{ {' '.join(parts)} }}".strip()
        return "\n".join([text, *self.fragments])


def random_document(
    rng: random.Random, schema: GraphQLSchema, *, valid_values: bool = True, root: str | None = None
) -> tuple[str, dict[str, Json]]:
    root = root or rng.choices(("query", "mutation"), (7, 3))[0]
    doc = Doc(rng, schema, valid_values=valid_values)
    text = doc.operation(root, extra_argument=not valid_values and rng.random() < 0.3)
    return text, doc.variables
