"""Write recmem_client/generated.py from the SDL (api/schema.graphql) and the client's operation
documents (recmem_client/graphql/*.graphql); `--check` fails when the file is stale.

    python scripts/generate_client.py [--check]

Every document is validated against the SDL first: one that no longer validates fails generation.
The rules, so that a record's name and fields are the documents' own:
- a fragment is a record, named as the fragment, with the fields it selects;
- a selection that is one fragment spread is that fragment's record; any other selection is a
  record named by its type (two different selections of one type need fragments);
- each operation has exactly one root field; its result is the first field, from the root down,
  whose selection is not a single field, without null at the top (an error-free response
  carries it). In records lists are tuples; a result that is a list is a list;
- an operation's variables, and the input types they use, are TypedDicts keyed by their SDL
  names: a key is NotRequired when null or a default may stand for it; a time is ISO 8601 text.
A development tool, never imported by the client (which needs only httpx).
"""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from graphql import (
    DocumentNode,
    ExecutableDefinitionNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLEnumType,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    Source,
    Undefined,
    build_schema,
    is_input_type,
    parse,
    type_from_ast,
    validate,
)
from graphql.error import GraphQLError

ROOT = Path(__file__).resolve().parent.parent
SDL_FILE = ROOT / "api" / "schema.graphql"
DOCUMENTS = ROOT / "recmem_client" / "graphql"
OUTPUT = ROOT / "recmem_client" / "generated.py"
COMMAND = "python scripts/generate_client.py"
WIDTH = 110

# The SDL's scalars as Python types (DateTime is ISO 8601 text on the wire).
SCALARS = {
    "ID": "str",
    "String": "str",
    "Int": "int",
    "Float": "float",
    "Boolean": "bool",
    "DateTime": "datetime",
    # Any JSON value (an interaction's metadata map), as decoded.
    "JSON": "Any",
}

# What an input of each scalar takes: a time as ISO 8601 text or an aware datetime, which
# recmem_client/operations.py sends as that text.
INPUT_SCALARS = {**SCALARS, "DateTime": "str | datetime"}

HEADER = f'''"""The client's wire types and operations, GENERATED from api/schema.graphql and
recmem_client/graphql/*.graphql by scripts/generate_client.py: do not edit. Regenerate with

    {COMMAND}

(tests/unit/test_client_codegen.py fails while this file is stale).
"""
'''


class GenerationError(Exception):
    """A document that does not validate against the SDL, or that the rules cannot type."""


@dataclass(frozen=True)
class Field:
    name: str
    annotation: str
    description: str | None


@dataclass(frozen=True)
class Record:
    name: str
    description: str | None
    fields: tuple[Field, ...]


@dataclass(frozen=True)
class Key:
    """One key of a TypedDict (an input type's field or an operation's variable)."""

    name: str
    annotation: str
    required: bool
    description: str | None


@dataclass(frozen=True)
class Input:
    name: str
    description: str | None
    keys: tuple[Key, ...]


@dataclass(frozen=True)
class Operation:
    name: str
    mutation: bool
    path: tuple[str, ...]
    result: str
    text: str
    variables: Input


def has_default(field: GraphQLInputField) -> bool:
    """Whether the SDL gives the input field a default (build_schema keeps it on the AST node)."""
    node = field.ast_node
    return field.default_value is not Undefined or (node is not None and node.default_value is not None)


def snake(camel: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", camel).lower()


def camel(name: str) -> str:
    head, *words = name.split("_")
    return head + "".join(word.capitalize() for word in words)


class Generator:
    """Types the documents against the schema, collecting the records, enums and inputs."""

    def __init__(self, schema: GraphQLSchema, document: DocumentNode, source: str) -> None:
        self.schema = schema
        self.source = source
        self.fragments = {
            d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
        }
        self.records: dict[str, Record] = {}
        self.enums: dict[str, GraphQLEnumType] = {}
        self.inputs: dict[str, Input] = {}

    # -- records -------------------------------------------------------------------------------

    def selection(self, type_: GraphQLObjectType, selection_set: SelectionSetNode, where: str) -> str:
        """The record a selection of `type_` is: a lone fragment spread's, or one named by the type."""
        selections = selection_set.selections
        if len(selections) == 1 and isinstance(selections[0], FragmentSpreadNode):
            return self.fragment(selections[0].name.value)
        return self.define(type_.name, type_, selection_set, where)

    def fragment(self, name: str) -> str:
        fragment = self.fragments[name]
        type_ = self.schema.get_type(fragment.type_condition.name.value)
        if not isinstance(type_, GraphQLObjectType):
            raise GenerationError(f"fragment {name}: only object types make records")
        return self.define(name, type_, fragment.selection_set, f"fragment {name}")

    def define(self, name: str, type_: GraphQLObjectType, selection_set: SelectionSetNode, where: str) -> str:
        fields = []
        for node in selection_set.selections:
            if not isinstance(node, FieldNode):
                raise GenerationError(f"{where}: a selection is either one fragment spread or fields only")
            fields.append(self.field(type_, node, where))
        record = Record(name, type_.description, tuple(fields))
        if self.records.get(name, record) != record:
            raise GenerationError(f"{where}: {name} is selected in two ways; give each a fragment")
        self.records[name] = record
        return name

    def field(self, parent: GraphQLObjectType, node: FieldNode, where: str) -> Field:
        key = node.alias.value if node.alias else node.name.value
        name = snake(key)
        if camel(name) != key:  # the client reads each field under camel(name)
            raise GenerationError(f"{where}: {key} is not camelCase; alias it")
        definition = parent.fields[node.name.value]
        annotation = self.annotation(definition.type, node, f"{where}.{key}", sequence="tuple")
        return Field(name, annotation, definition.description)

    def annotation(self, type_: GraphQLOutputType, node: FieldNode, where: str, *, sequence: str) -> str:
        """The Python type of a field of GraphQL type `type_`, as selected by `node`."""
        if isinstance(type_, GraphQLNonNull):
            return self.present(type_.of_type, node, where, sequence=sequence)
        return f"{self.present(type_, node, where, sequence=sequence)} | None"

    def present(self, type_: GraphQLOutputType, node: FieldNode, where: str, *, sequence: str) -> str:
        if isinstance(type_, GraphQLList):
            item = self.annotation(type_.of_type, node, where, sequence="tuple")
            return f"tuple[{item}, ...]" if sequence == "tuple" else f"list[{item}]"
        if isinstance(type_, GraphQLScalarType):
            if type_.name not in SCALARS:
                raise GenerationError(f"{where}: no Python type for the scalar {type_.name}")
            return SCALARS[type_.name]
        if isinstance(type_, GraphQLEnumType):
            self.enums[type_.name] = type_
            return type_.name
        if isinstance(type_, GraphQLObjectType) and node.selection_set is not None:
            return self.selection(type_, node.selection_set, where)
        raise GenerationError(f"{where}: only scalars, enums and object types make record fields")

    # -- inputs --------------------------------------------------------------------------------

    def input_annotation(self, type_: GraphQLInputType, where: str) -> str:
        if isinstance(type_, GraphQLNonNull):
            return self.input_present(type_.of_type, where)
        return f"{self.input_present(type_, where)} | None"

    def input_present(self, type_: GraphQLInputType, where: str) -> str:
        if isinstance(type_, GraphQLList):
            return f"list[{self.input_annotation(type_.of_type, where)}]"
        if isinstance(type_, GraphQLScalarType):
            if type_.name not in INPUT_SCALARS:
                raise GenerationError(f"{where}: no Python type for the scalar {type_.name}")
            return INPUT_SCALARS[type_.name]
        if isinstance(type_, GraphQLEnumType):
            self.enums[type_.name] = type_
            return type_.name
        if isinstance(type_, GraphQLInputObjectType):
            if type_.name not in self.inputs:
                self.inputs[type_.name] = Input(type_.name, type_.description, ())  # while typed
                keys = tuple(
                    Key(
                        name,
                        self.input_annotation(field.type, f"{where}.{name}"),
                        isinstance(field.type, GraphQLNonNull) and not has_default(field),
                        field.description,
                    )
                    for name, field in type_.fields.items()
                )
                self.inputs[type_.name] = Input(type_.name, type_.description, keys)
            return type_.name
        raise GenerationError(f"{where}: no Python type for {type_}")

    def variables(self, name: str, node: OperationDefinitionNode) -> Input:
        keys = []
        for definition in node.variable_definitions or ():
            variable = definition.variable.name.value
            type_ = type_from_ast(self.schema, definition.type)
            assert is_input_type(type_)  # the document validated
            annotation = self.input_annotation(type_, f"{name}.${variable}")
            required = isinstance(type_, GraphQLNonNull) and definition.default_value is None
            keys.append(Key(variable, annotation, required, None))
        return Input(f"{name}Variables", f"The variables of {name}.", tuple(keys))

    # -- operations ----------------------------------------------------------------------------

    def operation(self, node: OperationDefinitionNode) -> Operation:
        if node.name is None:
            raise GenerationError("every operation needs a name")
        name = node.name.value
        root = self.schema.get_root_type(node.operation)
        if root is None or len(node.selection_set.selections) != 1:
            raise GenerationError(f"{name}: an operation selects exactly one root field")
        parent, field = root, node.selection_set.selections[0]
        path: list[str] = []
        while True:
            if not isinstance(field, FieldNode):
                raise GenerationError(f"{name}: the path to the result is made of fields")
            path.append(field.alias.value if field.alias else field.name.value)
            type_ = parent.fields[field.name.value].type
            below = field.selection_set.selections if field.selection_set else ()
            inner = type_.of_type if isinstance(type_, GraphQLNonNull) else type_
            if (
                len(below) == 1
                and isinstance(below[0], FieldNode)
                and below[0].selection_set is not None
                and isinstance(inner, GraphQLObjectType)
            ):
                parent, field = inner, below[0]
                continue
            result = self.present(inner, field, name, sequence="list")
            mutation = node.operation == OperationType.MUTATION
            variables = self.variables(name, node)
            return Operation(name, mutation, tuple(path), result, self.text(node), variables)

    def text(self, node: OperationDefinitionNode) -> str:
        """The operation's source, then every fragment it uses (in order of first use)."""
        used: list[str] = []

        def visit(selection_set: SelectionSetNode | None) -> None:
            for selection in selection_set.selections if selection_set else ():
                if isinstance(selection, FragmentSpreadNode):
                    if selection.name.value not in used:
                        used.append(selection.name.value)
                        visit(self.fragments[selection.name.value].selection_set)
                elif isinstance(selection, FieldNode):
                    visit(selection.selection_set)

        visit(node.selection_set)
        return "\n".join(self.slice(n) for n in (node, *(self.fragments[f] for f in used)))

    def slice(self, node: ExecutableDefinitionNode) -> str:
        assert node.loc is not None
        return self.source[node.loc.start : node.loc.end]


# -- the module --------------------------------------------------------------------------------


def comment(text: str | None, indent: str) -> list[str]:
    if not text:
        return []
    return textwrap.wrap(
        " ".join(text.split()),
        WIDTH - len(indent) - 2,
        initial_indent=f"{indent}# ",
        subsequent_indent=f"{indent}# ",
    )


def docstring(text: str | None, indent: str) -> list[str]:
    words = " ".join((text or "").split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if not words:
        return []
    lines = textwrap.wrap(words, WIDTH - len(indent) - 6)
    lines[0] = f'{indent}"""{lines[0]}'
    lines[1:] = [f"{indent}{line}" for line in lines[1:]]
    lines[-1] += '"""'
    return [*lines, ""]


def render_enum(enum: GraphQLEnumType) -> list[str]:
    lines = [f"class {enum.name}(StrEnum):", *docstring(enum.description, "    ")]
    for value, definition in enum.values.items():
        lines += [*comment(definition.description, "    "), f'    {value} = "{value}"']
    return lines


def render_record(record: Record) -> list[str]:
    lines = ["@dataclass(frozen=True, slots=True)", f"class {record.name}:"]
    lines += docstring(record.description, "    ")
    for field in record.fields:
        lines += [*comment(field.description, "    "), f"    {field.name}: {field.annotation}"]
    return lines


def render_input(typed: Input) -> list[str]:
    lines = [f"class {typed.name}(TypedDict):", *docstring(typed.description, "    ")]
    for key in typed.keys:
        annotation = key.annotation if key.required else f"NotRequired[{key.annotation}]"
        lines += [*comment(key.description, "    "), f"    {key.name}: {annotation}"]
    return lines


def constant(name: str) -> str:
    return snake(name).upper()


def render_operation(operation: Operation) -> list[str]:
    text = operation.text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    path = ", ".join(f'"{p}"' for p in operation.path) + ("," if len(operation.path) == 1 else "")
    kind = f"Document[{operation.variables.name}, {operation.result}]"
    return [
        f"{constant(operation.name)}: {kind} = Document(",
        f'    name="{operation.name}",',
        f"    mutation={operation.mutation},",
        f"    path=({path}),",
        f"    result={operation.result},",
        f'    text="""{text}""",',
        ")",
    ]


def generate(sdl: str, documents: Mapping[str, str]) -> str:
    """The module for `documents` (file name -> text), validated against `sdl`."""
    schema = build_schema(sdl)
    source = "\n\n".join(documents[name] for name in sorted(documents))
    try:
        document = parse(Source(source, "recmem_client/graphql"))
    except GraphQLError as error:
        raise GenerationError(f"documents do not parse: {error}") from None
    problems = validate(schema, document)
    if problems:
        raise GenerationError("documents do not validate against the SDL:\n" + "\n".join(map(str, problems)))
    generator = Generator(schema, document, source)
    operations = [
        generator.operation(d) for d in document.definitions if isinstance(d, OperationDefinitionNode)
    ]
    for name in generator.fragments:
        generator.fragment(name)
    for operation in operations:  # each as sent, on its own
        for problem in validate(schema, parse(operation.text)):
            raise GenerationError(f"{operation.name}: {problem}")

    inputs = [*(generator.inputs[name] for name in sorted(generator.inputs))]
    inputs += [operation.variables for operation in operations]
    names = [*generator.enums, *generator.records, *(typed.name for typed in inputs)]
    if len(set(names)) != len(names):
        raise GenerationError(f"two generated types share a name: {sorted(names)}")

    annotations = " ".join(f.annotation for r in generator.records.values() for f in r.fields)
    typed_inputs = " ".join(key.annotation for typed in inputs for key in typed.keys)
    imports = ["from dataclasses import dataclass"]
    if re.search(r"\bdatetime\b", annotations + typed_inputs):
        imports.append("from datetime import datetime")
    if generator.enums:
        imports.append("from enum import StrEnum")
    optional = any(not key.required for typed in inputs for key in typed.keys)
    uses_any = re.search(r"\bAny\b", annotations + typed_inputs) is not None
    names_typing = ("Any, " if uses_any else "") + ("NotRequired, " if optional else "")
    imports.append(f"from typing import {names_typing}TypedDict")
    blocks = [
        *(render_enum(generator.enums[name]) for name in sorted(generator.enums)),
        *(render_record(generator.records[name]) for name in sorted(generator.records)),
        *(render_input(typed) for typed in inputs),
        *(render_operation(operation) for operation in operations),
    ]
    lines = [
        HEADER,
        "from __future__ import annotations",
        "",
        *imports,
        "",
        "from recmem_client.document import Document",
    ]
    for block in blocks:
        lines += ["", "", *block]
    return "\n".join(lines) + "\n"


def current() -> str:
    documents = {path.name: path.read_text(encoding="utf-8") for path in sorted(DOCUMENTS.glob("*.graphql"))}
    return generate(SDL_FILE.read_text(encoding="utf-8"), documents)


def main(argv: list[str]) -> int:
    try:
        text = current()
    except GenerationError as error:
        print(f"generation failed: {error}", file=sys.stderr)
        return 1
    if "--check" in argv:
        if not OUTPUT.exists() or OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} is stale: run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
