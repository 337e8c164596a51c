"""The local Neo4j's class archive on a real server: a start writes it beside the jars, later
starts in other homes reuse it, and a corrupt archive is written again (graph/local_server.py,
class_archive_flags; a location that cannot hold one gets no flags: tests/unit/test_class_archive.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.local_server import ARCHIVE_MAGIC, LocalNeo4j, java_major
from graph.settings import Neo4jSettings
from harness.serve_process import free_port


@pytest.fixture
def jar_cache(tmp_path: Path) -> Path:
    """A jar cache of this test's own (no archive yet) on the user's cached jars."""
    cached = LocalNeo4j(Neo4jSettings()).ensure_jars()
    root = tmp_path / "jars"
    (root / Neo4jSettings().version).mkdir(parents=True)
    (root / Neo4jSettings().version / "lib").symlink_to(cached, target_is_directory=True)
    return root


def fresh(jar_cache: Path, home: Path) -> LocalNeo4j:
    """A server in a new home, with auth (its first start runs the admin JVM too)."""
    settings = Neo4jSettings(
        home=home, port=free_port(), jar_cache=jar_cache, password=None, heap="512m", pagecache="64m"
    )
    return LocalNeo4j(settings)


def start_and_stop(server: LocalNeo4j) -> None:
    try:
        server.start(timeout_s=180.0)
        assert server.status().running
        assert server.settings.password_file.exists()
    finally:
        server.stop()


def test_a_corrupt_archive_is_rewritten_and_then_reused(jar_cache: Path, tmp_path: Path) -> None:
    server = fresh(jar_cache, tmp_path / "one")
    java = server.java_binary()
    assert java_major(java) >= 19, "this machine's JDK has no AutoCreateSharedArchive"
    archive = server.class_archive(java)
    archive.write_bytes(b"half an archive")
    start_and_stop(server)
    assert archive.read_bytes()[:4] == ARCHIVE_MAGIC, "the corrupt archive was not rewritten"
    written = archive.stat().st_mtime_ns
    start_and_stop(fresh(jar_cache, tmp_path / "two"))
    assert archive.stat().st_mtime_ns == written, "a valid archive was rewritten, not used"
