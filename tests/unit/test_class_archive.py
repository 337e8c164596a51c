"""The class archive's flags (graph/local_server.py): only on a JDK that has them, and never an
archive the JVM would fail on or ignore for good."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from graph.local_server import ARCHIVE_MAGIC, LocalNeo4j, class_archive_flags
from graph.settings import Neo4jSettings


def test_a_jdk_before_19_gets_no_archive_flags(tmp_path: Path) -> None:
    assert class_archive_flags(17, tmp_path / "server.jsa") == []
    assert class_archive_flags(18, tmp_path / "server.jsa") == []


def test_a_jdk_from_19_shares_classes_through_the_archive(tmp_path: Path) -> None:
    archive = tmp_path / "server.jsa"
    flags = class_archive_flags(19, archive)
    assert flags[:2] == ["-XX:+AutoCreateSharedArchive", f"-XX:SharedArchiveFile={archive}"]
    assert class_archive_flags(25, archive) == flags


def test_a_file_that_is_not_an_archive_is_removed_so_the_jvm_rewrites_it(tmp_path: Path) -> None:
    garbage, empty, valid = tmp_path / "garbage.jsa", tmp_path / "empty.jsa", tmp_path / "valid.jsa"
    garbage.write_bytes(b"not an archive at all")
    empty.write_bytes(b"")
    valid.write_bytes(ARCHIVE_MAGIC + b"\0" * 64)
    for archive in (garbage, empty, valid):
        assert class_archive_flags(25, archive) != []
    assert not garbage.exists() and not empty.exists()
    assert valid.exists()


def test_an_archive_that_cannot_be_written_gets_no_flags(tmp_path: Path) -> None:
    # A JVM that cannot write its archive at exit exits 1.
    assert class_archive_flags(25, tmp_path / "missing-folder" / "server.jsa") == []
    (tmp_path / "folder.jsa").mkdir()
    assert class_archive_flags(25, tmp_path / "folder.jsa") == []


def test_the_setting_off_starts_the_server_without_archive_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The JDK is not run: its release is given, and the flags only name the archive's path.
    java = tmp_path / "jdk" / "bin" / "java"
    monkeypatch.delenv("RECMEM_NEO4J_CLASS_ARCHIVE", raising=False)
    server = LocalNeo4j(Neo4jSettings(_env_file=None, home=tmp_path / "home", jar_cache=tmp_path / "jars"))
    server.lib_dir.mkdir(parents=True)
    assert server.archive_flags(java, 25)[:2] == [
        "-XX:+AutoCreateSharedArchive",
        f"-XX:SharedArchiveFile={server.class_archive(java)}",
    ]
    monkeypatch.setenv("RECMEM_NEO4J_CLASS_ARCHIVE", "off")
    settings = Neo4jSettings(_env_file=None, home=tmp_path / "home", jar_cache=tmp_path / "jars")
    assert not settings.class_archive
    assert LocalNeo4j(settings).archive_flags(java, 25) == []


def test_a_class_archive_setting_that_is_not_on_or_off_is_refused(tmp_path: Path) -> None:
    env = {"RECMEM_NEO4J_CLASS_ARCHIVE": "maybe", "RECMEM_NEO4J_HOME": str(tmp_path / "home")}
    result = CliRunner().invoke(app, ["neo4j", "status"], env=env)
    assert (result.exit_code, result.stderr.splitlines()) == (
        2,
        [
            "error: invalid setting RECMEM_NEO4J_CLASS_ARCHIVE: Input should be a valid boolean, "
            "unable to interpret input (got 'maybe')"
        ],
    )
