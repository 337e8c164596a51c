"""RECMEM_* values the service cannot run with are refused when the settings are read, naming the
setting, rather than accepted and failing later as an internal error (or never)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from pydantic_settings import BaseSettings
from typer.testing import CliRunner

from api.settings import ApiSettings
from cli.main import app
from consolidation.settings import EmbedderSettings, EngineSettings, LLMSettings
from graph.settings import Neo4jSettings


@pytest.mark.parametrize(
    "uri", ["notaurl", "127.0.0.1:7687", "http://127.0.0.1:7474", "bolt+x://127.0.0.1:7687", "bolt://"]
)
def test_a_neo4j_uri_the_driver_cannot_open_is_refused(uri: str) -> None:
    with pytest.raises(ValidationError, match="uri"):
        Neo4jSettings(uri=uri)


@pytest.mark.parametrize(
    "uri", ["bolt://127.0.0.1:7687", "neo4j+s://abc.databases.neo4j.io", "bolt+ssc://h:1"]
)
def test_the_driver_schemes_are_accepted(uri: str) -> None:
    assert Neo4jSettings(uri=uri).uri == uri


@pytest.mark.parametrize("port", [0, -5, 65536])
def test_a_local_port_out_of_range_is_refused(port: int) -> None:
    with pytest.raises(ValidationError, match="port"):
        Neo4jSettings(port=port)


def test_a_home_that_is_a_file_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "neo4j"
    home.write_text("not a folder")
    with pytest.raises(ValidationError, match="home"):
        Neo4jSettings(home=home)


def test_the_cli_names_a_bad_uri_as_a_setting_with_status_2() -> None:
    """It reached the driver and came back as an internal error (exit 1), or, for http://, as a
    missing aiohttp module."""
    env = {"RECMEM_NEO4J_URI": "http://127.0.0.1:7474"}
    result = CliRunner().invoke(app, ["recall", "sushi", "--user", "alice"], env=env)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: invalid setting RECMEM_NEO4J_URI: ")


def test_a_refused_uri_is_shown_without_its_password() -> None:
    env = {"RECMEM_NEO4J_URI": "bolt+x://neo4j:s3cret-pw@db.example:7687"}
    result = CliRunner().invoke(app, ["recall", "sushi", "--user", "alice"], env=env)
    assert result.exit_code == 2, result.output
    assert "s3cret-pw" not in result.output
    assert "(got 'bolt+x://neo4j:***@db.example:7687')" in result.stderr


SETTINGS = (Neo4jSettings, EmbedderSettings, LLMSettings, EngineSettings, ApiSettings)
FLOAT_FIELDS = [
    (cls, name)
    for cls in SETTINGS
    for name, field in cls.model_fields.items()
    if field.annotation in (float, float | None)
]


def test_every_settings_class_has_float_fields_to_check() -> None:
    assert {cls for cls, _ in FLOAT_FIELDS} == set(SETTINGS) - {EmbedderSettings}


@pytest.mark.parametrize("value", ["inf", "-inf", "nan"])
@pytest.mark.parametrize(("cls", "name"), FLOAT_FIELDS, ids=lambda v: getattr(v, "__name__", v))
def test_no_float_setting_takes_an_infinity_or_nan(
    cls: type[BaseSettings], name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RECMEM_LEASE_SECONDS=inf was accepted and failed the first consolidation with
    OverflowError (an internal error); RECMEM_NEO4J_STATEMENT_TIMEOUT_S=inf failed every query."""
    prefix = cls.model_config["env_prefix"]
    monkeypatch.setenv(f"{prefix}{name}".upper(), value)
    with pytest.raises(ValidationError, match=name):
        cls()


@pytest.mark.parametrize("cls", [LLMSettings, EmbedderSettings])
@pytest.mark.parametrize("url", ["notaurl", "ftp://llm.example/v1", "http://", "127.0.0.1:8000/v1"])
def test_an_endpoint_that_is_not_an_http_url_is_refused(cls: type[BaseSettings], url: str) -> None:
    """RECMEM_LLM_BASE_URL=notaurl was accepted: every LLM call then failed as `unavailable` and
    consolidation was deferred for ever, with nothing naming the setting."""
    with pytest.raises(ValidationError, match="base_url"):
        cls(base_url=url)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/v1", "https://api.openai.com/v1"])
def test_an_http_endpoint_is_accepted(url: str) -> None:
    assert LLMSettings(base_url=url).base_url == url
    assert EmbedderSettings(base_url=url).base_url == url


def test_an_empty_endpoint_is_unset() -> None:
    """`RECMEM_LLM_BASE_URL=` in a .env file: no endpoint, not an endpoint at ''."""
    assert LLMSettings(base_url="").base_url is None
    assert not LLMSettings(base_url="").configured


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (
            {"RECMEM_MAX_TEXT_BYTES": "abc"},
            "error: invalid setting RECMEM_MAX_TEXT_BYTES: Input should be a valid integer, "
            "unable to parse string as an integer (got 'abc')",
        ),
        (
            # no upper bound: a text no request body could carry, which ingest and import took
            {"RECMEM_MAX_TEXT_BYTES": "1000000000"},
            "error: invalid setting RECMEM_MAX_TEXT_BYTES: Input should be less than or equal to 4194304 "
            "(got '1000000000')",
        ),
        (
            {"RECMEM_NEO4J_CONNECTION_TIMEOUT_S": "0"},
            "error: invalid setting RECMEM_NEO4J_CONNECTION_TIMEOUT_S: Input should be greater than 0 (got '0')",
        ),
        (
            {"RECMEM_EMBEDDER_KIND": "bert"},
            "error: invalid setting RECMEM_EMBEDDER_KIND: Input should be 'minilm', 'minilm-int8', "
            "'minilm-torch', 'hashing' or 'openai' (got 'bert')",
        ),
        (
            {"RECMEM_SALIENCE": "/nonexistent/rules.json"},
            "error: invalid setting RECMEM_SALIENCE: cannot read /nonexistent/rules.json as JSON "
            "([Errno 2] No such file or directory: '/nonexistent/rules.json') (got '/nonexistent/rules.json')",
        ),
    ],
    ids=["integer", "text-bytes", "range", "choice", "validator"],
)
def test_a_refused_setting_is_named_by_its_variable(env: dict[str, str], line: str) -> None:
    """The line named the class and the field ("invalid setting in EngineSettings: max_text_bytes"),
    which the user has to translate into the variable to fix."""
    result = CliRunner().invoke(app, ["recall", "sushi", "--user", "alice"], env=env)
    assert (result.exit_code, result.stderr.splitlines()) == (2, [line])


def test_a_setting_that_is_not_json_is_a_refused_setting() -> None:
    """A list setting is read as JSON: '[bad' was an internal SettingsError (exit 1)."""
    env = {
        "RECMEM_API_WEBSOCKET_ORIGINS": '["http://localhost:5173"',
        # were the value accepted, serve would stop at once: no endpoint for the planner, and no
        # local Neo4j to start
        "RECMEM_PLANNER": "llm",
        "RECMEM_NEO4J_URI": "bolt://127.0.0.1:1",
    }
    result = CliRunner().invoke(app, ["serve"], env=env)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: invalid setting RECMEM_API_WEBSOCKET_ORIGINS: not JSON (")


def test_the_text_bound_fits_the_default_request_body() -> None:
    """RECMEM_MAX_TEXT_BYTES may rise to the API's default body limit, not beyond."""
    limit = ApiSettings().max_body_bytes
    assert EngineSettings(max_text_bytes=limit).max_text_bytes == limit
    with pytest.raises(ValidationError):
        EngineSettings(max_text_bytes=limit + 1)


def test_a_body_limit_with_no_room_for_the_longest_text_is_refused_at_start() -> None:
    """A text RECMEM_MAX_TEXT_BYTES accepts but the body limit answers 413 could never be sent:
    the service refuses to start, naming both settings and the values that would fit."""
    from api.app import create_app
    from api.settings import BodyLimitError
    from cli.main import classify
    from consolidation.wiring import AppSettings

    texts = AppSettings(engine=EngineSettings(max_text_bytes=100_000))
    with pytest.raises(BodyLimitError) as refused:
        create_app(texts, ApiSettings(max_body_bytes=65_536))
    assert str(refused.value) == (
        "RECMEM_API_MAX_BODY_BYTES is 65536, but a text of RECMEM_MAX_TEXT_BYTES (100000) may need a "
        "request of 216384 bytes: raise RECMEM_API_MAX_BODY_BYTES to at least 216384, or lower "
        "RECMEM_MAX_TEXT_BYTES to at most 24576"
    )
    assert classify(refused.value) == (2, f"{refused.value}")  # `recmem serve`: a user error
    # At the most the text setting allows, the default body limit is refused too.
    with pytest.raises(BodyLimitError):
        create_app(AppSettings(engine=EngineSettings(max_text_bytes=4 * 1024 * 1024)), ApiSettings())
    create_app(texts, ApiSettings(max_body_bytes=216_384))
    create_app(AppSettings(), ApiSettings())  # the defaults fit


def test_the_room_holds_a_remember_of_the_longest_text() -> None:
    """Twice the text and BODY_ROOM: a text of quotes (two bytes each in JSON) at the limit, with
    every other field of a remember at its own limit."""
    from api.settings import body_room_for

    limit = EngineSettings().max_text_bytes
    name = "\u00e9" * 256  # 512 bytes of UTF-8
    unit: dict[str, object] = {
        "userId": name,
        "text": '"' * limit,
        "speaker": name,
        "sessionId": name,
        "sourceRef": name,
    }
    unit |= {"agentId": name, "metadata": {f"k{i:02}": "v" * 120 for i in range(32)}}
    document = "mutation($u: RememberInput!) { remember(input: $u) { interactionId created seq } }"
    body = json.dumps({"query": document, "variables": {"u": unit}}, ensure_ascii=False).encode()
    assert len(body) <= body_room_for(limit), len(body) - body_room_for(limit)
