"""The class archive's flags (graph/local_server.py): only on a JDK that has them, and never an
archive the JVM would fail on or ignore for good."""

from __future__ import annotations

from pathlib import Path

from graph.local_server import ARCHIVE_MAGIC, class_archive_flags


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
