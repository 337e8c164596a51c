"""The client's generated module (recmem_client/generated.py) is what scripts/generate_client.py
makes of the checked-in SDL and documents, and a document the SDL refuses fails generation."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "generate_client.py"


@pytest.fixture(scope="module")
def codegen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_client", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def checked_in_documents() -> dict[str, str]:
    return {path.name: path.read_text() for path in (ROOT / "recmem_client" / "graphql").glob("*.graphql")}


def test_the_generated_module_is_up_to_date(codegen: ModuleType) -> None:
    generated = (ROOT / "recmem_client" / "generated.py").read_text()
    assert codegen.current() == generated, "stale: run `python scripts/generate_client.py`"


def test_a_change_to_a_document_changes_the_module(codegen: ModuleType) -> None:
    documents = checked_in_documents()
    sdl = (ROOT / "api" / "schema.graphql").read_text()
    documents["fragments.graphql"] = documents["fragments.graphql"].replace(" tokens budget ", " tokens ")
    changed = codegen.generate(sdl, documents)
    assert changed != codegen.current()
    record = changed.split("class RecallContext:", 1)[1].split("@dataclass", 1)[0]
    assert "    tokens: int" in record and "    budget: int" not in record


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # A field the SDL does not have.
        ("query asOf", "query asOf askedAt", "Cannot query field 'askedAt' on type 'Recall'"),
        # A variable of the wrong type.
        ("$query: String!", "$query: Int!", "Variable '$query' of type 'Int!'"),
        # A fragment nobody spreads.
        ("fragment Fact on Fact", "fragment Unused on Fact { id }\nfragment Fact on Fact", "'Unused'"),
    ],
)
def test_a_document_that_does_not_validate_is_refused(
    codegen: ModuleType, old: str, new: str, message: str
) -> None:
    documents = checked_in_documents()
    name = next(name for name, text in documents.items() if old in text)
    documents[name] = documents[name].replace(old, new, 1)
    sdl = (ROOT / "api" / "schema.graphql").read_text()
    with pytest.raises(codegen.GenerationError, match="do not validate") as refused:
        codegen.generate(sdl, documents)
    assert message in str(refused.value)


def test_two_different_selections_of_one_type_need_fragments(codegen: ModuleType) -> None:
    documents = checked_in_documents()
    documents["extra.graphql"] = "query Other($id: ID!) { fact(id: $id) { audit { promptTokens } } }"
    sdl = (ROOT / "api" / "schema.graphql").read_text()
    with pytest.raises(codegen.GenerationError, match="FactAudit is selected in two ways"):
        codegen.generate(sdl, documents)


def test_a_record_may_not_take_the_name_of_an_enum(codegen: ModuleType) -> None:
    documents = checked_in_documents()
    documents["extra.graphql"] = (
        "query Other($id: ID!) { fact(id: $id) { ...FactKind } }\nfragment FactKind on Fact { id kind }"
    )
    sdl = (ROOT / "api" / "schema.graphql").read_text()
    with pytest.raises(codegen.GenerationError, match="two generated types share a name"):
        codegen.generate(sdl, documents)
