"""Runs a Neo4j community server from Maven Central jars, without Docker.

The jars are resolved once with Maven and cached outside the repository; the server runs as a plain
JVM process bound to loopback, with its pid, config, data and logs under one home folder.
"""

from __future__ import annotations

import functools
import os
import re
import secrets
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ServiceUnavailable

from graph.errors import LocalServerError
from graph.settings import Neo4jSettings

ENTRY_CLASS = "org.neo4j.server.Neo4jCommunity"
ADMIN_CLASS = "org.neo4j.server.startup.Neo4jAdminCommand"
MIN_JAVA = 21
JVM_FLAGS = [
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dfile.encoding=UTF-8",
    # Lucene computes vector distances with SIMD only when the JDK's vector module is present:
    # inserts into and searches of the vector indexes take a fraction of the scalar time.
    "--add-modules=jdk.incubator.vector",
]
# A clean stop takes ~12 s, but the first after an install also writes the class archive (44 s
# under load, measured): a SIGKILL before it ends would leave none, and the next stop tries again.
STOP_TIMEOUT_S = 180.0
# Class-data sharing of the jars' classes (JDK 19+): see class_archive_flags.
ARCHIVE_MIN_JAVA = 19
# The first four bytes of a JDK dynamic archive (CDS_DYNAMIC_ARCHIVE_MAGIC, little-endian).
ARCHIVE_MAGIC = (0xF00BABA8).to_bytes(4, "little")
POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.recmem</groupId><artifactId>neo4j-runtime</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.neo4j</groupId><artifactId>neo4j</artifactId><version>{version}</version></dependency>
  </dependencies>
</project>
"""


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    uri: str
    home: Path

    def describe(self) -> str:
        state = f"running (pid {self.pid})" if self.running else "stopped"
        return f"neo4j {state} at {self.uri}, home {self.home}"


def new_password() -> str:
    """192 random bits as hex: a url-safe token starts with "-" one time in 64, and the admin
    tool then reads the password as an unknown option and refuses to start."""
    return secrets.token_hex(24)


class LocalNeo4j:
    """One local Neo4j server, described by :class:`Neo4jSettings`."""

    def __init__(self, settings: Neo4jSettings) -> None:
        self.settings = settings
        self.home = settings.home.expanduser().resolve()

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.settings.port}"

    @property
    def lib_dir(self) -> Path:
        return self.settings.jar_cache.expanduser().resolve() / self.settings.version / "lib"

    @property
    def pid_file(self) -> Path:
        return self.home / "run" / "recmem-neo4j.pid"

    @property
    def console_log(self) -> Path:
        return self.home / "logs" / "console.log"

    # -- jars and java -------------------------------------------------------------------------

    def ensure_jars(self) -> Path:
        """Resolve the server's runtime jars once; later starts need no network."""
        marker = self.lib_dir / ".complete"
        if marker.exists():
            return self.lib_dir
        mvn = shutil.which("mvn")
        if mvn is None:
            raise LocalServerError("Maven ('mvn') is needed once to fetch the Neo4j jars; install it")
        work = self.lib_dir.parent
        work.mkdir(parents=True, exist_ok=True)
        (work / "pom.xml").write_text(POM.format(version=self.settings.version), encoding="utf-8")
        command = [
            mvn,
            "-q",
            "-B",
            "-f",
            str(work / "pom.xml"),
            "dependency:copy-dependencies",
            "-DincludeScope=runtime",
            f"-DoutputDirectory={self.lib_dir}",
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
        if done.returncode != 0:
            tail = (done.stdout + done.stderr)[-3000:]
            raise LocalServerError(f"fetching Neo4j {self.settings.version} jars failed:\n{tail}")
        marker.write_text(self.settings.version, encoding="utf-8")
        return self.lib_dir

    def java_binary(self) -> Path:
        """The configured JDK, else the newest JDK on the machine that this Neo4j supports."""
        candidates: list[Path] = []
        if self.settings.java_home is not None:
            candidates.append(self.settings.java_home)
        if os.environ.get("JAVA_HOME"):
            candidates.append(Path(os.environ["JAVA_HOME"]))
        candidates += sorted(Path("/usr/lib/jvm").glob("*"), reverse=True)
        found = [(java_major(p / "bin" / "java"), p / "bin" / "java") for p in candidates]
        usable = [(major, java) for major, java in found if major >= MIN_JAVA]
        if self.settings.java_home is not None and found and found[0][0] < MIN_JAVA:
            raise LocalServerError(f"{self.settings.java_home} is Java {found[0][0]}; need {MIN_JAVA}+")
        if not usable:
            raise LocalServerError(
                f"Neo4j {self.settings.version} needs Java {MIN_JAVA}+; none found. "
                "Set RECMEM_NEO4J_JAVA_HOME to a JDK 21 or 25."
            )
        return max(usable)[1]

    def class_archive(self, java: Path) -> Path:
        """The server's class archive on `java`: beside the jars, so every home on these jars
        shares it; one per JDK release, so two JDKs do not overwrite each other's."""
        return self.lib_dir.parent / f"server-java{java_major(java)}.jsa"

    def archive_flags(self, java: Path, major: int) -> list[str]:
        """class_archive_flags for the server on `java`, a JDK `major`: none when the settings
        turn the archive off (RECMEM_NEO4J_CLASS_ARCHIVE)."""
        if not self.settings.class_archive:
            return []
        return class_archive_flags(major, self.class_archive(java))

    # -- configuration -------------------------------------------------------------------------

    def write_config(self) -> Path:
        conf_dir = self.home / "conf"
        for sub in ("conf", "data", "logs", "run", "import", "plugins"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        address = f"127.0.0.1:{self.settings.port}"
        lines = {
            "server.bolt.listen_address": address,
            "server.bolt.advertised_address": address,
            "server.http.enabled": "false",
            "server.https.enabled": "false",
            "server.memory.pagecache.size": self.settings.pagecache,
            "server.directories.data": self.home / "data",
            "server.directories.logs": self.home / "logs",
            "server.directories.run": self.home / "run",
            "server.directories.import": self.home / "import",
            "server.directories.plugins": self.home / "plugins",
            "server.directories.transaction.logs.root": self.home / "data" / "transactions",
            "dbms.usage_report.enabled": "false",
            "dbms.security.auth_enabled": str(self.settings.auth_enabled).lower(),
        }
        text = "".join(f"{key}={value}\n" for key, value in lines.items())
        (conf_dir / "neo4j.conf").write_text(text, encoding="utf-8")
        return conf_dir

    def ensure_password(self, java: Path, lib: Path) -> None:
        """Generate the initial password (0600 file) before the very first start."""
        if not self.settings.auth_enabled or self.settings.password_file.exists():
            return
        if (self.home / "data" / "databases").exists():
            raise LocalServerError(
                f"{self.home} holds a database but no password file; set RECMEM_NEO4J_PASSWORD"
            )
        password = new_password()
        env = {**os.environ, "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(self.home / "conf")}
        command = [str(java), "-cp", f"{lib}/*", ADMIN_CLASS, "dbms", "set-initial-password", password]
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)  # noqa: S603
        if done.returncode != 0:
            raise LocalServerError(f"setting the initial password failed:\n{done.stderr[-2000:]}")
        fd = os.open(self.settings.password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(password + "\n")

    # -- lifecycle -----------------------------------------------------------------------------

    def status(self) -> ServerStatus:
        pid = self._live_pid()
        return ServerStatus(running=pid is not None, pid=pid, uri=self.uri, home=self.home)

    def start(self, timeout_s: float = 180.0) -> ServerStatus:
        """Start the server unless it already runs; return once Bolt answers."""
        current = self.status()
        if current.running:
            self.wait_until_ready(timeout_s)
            return current
        lib = self.ensure_jars()
        java = self.java_binary()
        conf_dir = self.write_config()
        self.ensure_password(java, lib)
        command = [
            str(java),
            f"-Xms{self.settings.heap}",
            f"-Xmx{self.settings.heap}",
            *JVM_FLAGS,
            *self.archive_flags(java, java_major(java)),
            "-cp",
            f"{lib}/*",
            ENTRY_CLASS,
            f"--home-dir={self.home}",
            f"--config-dir={conf_dir}",
            "--console-mode",
        ]
        with self.console_log.open("ab") as log:
            process = subprocess.Popen(  # noqa: S603
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                cwd=self.home,
            )
        self.pid_file.write_text(str(process.pid), encoding="utf-8")
        try:
            self.wait_until_ready(timeout_s, process)
        except LocalServerError:
            self.stop()
            raise
        return self.status()

    def wait_until_ready(self, timeout_s: float, process: subprocess.Popen[bytes] | None = None) -> None:
        password = self.settings.resolved_password()
        auth = (self.settings.user, password) if self.settings.auth_enabled and password else None
        deadline = time.monotonic() + timeout_s
        while True:
            if process is not None and process.poll() is not None:
                raise LocalServerError(f"neo4j exited with {process.returncode}:\n{self.logs(40)}")
            try:
                with GraphDatabase.driver(self.uri, auth=auth) as driver:
                    driver.verify_connectivity()
                return
            except AuthError as error:
                raise LocalServerError(f"neo4j refused the credentials: {error.message}") from error
            except (ServiceUnavailable, OSError):
                if time.monotonic() > deadline:
                    raise LocalServerError(
                        f"neo4j did not answer on {self.uri} within {timeout_s:.0f}s:\n{self.logs(40)}"
                    ) from None
                time.sleep(0.5)

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> ServerStatus:
        """SIGTERM, then SIGKILL once `timeout_s` has passed; no process is left when this returns."""
        pid = self._live_pid()
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + timeout_s
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
                while _alive(pid):
                    time.sleep(0.1)
        self.pid_file.unlink(missing_ok=True)
        return self.status()

    def logs(self, lines: int = 50) -> str:
        """The last `lines` lines (none for 0) of each log, under its path."""
        parts = []
        for path in (self.console_log, self.home / "logs" / "debug.log"):
            if path.exists():
                text = path.read_text(encoding="utf-8", errors="replace").splitlines()
                tail = text[len(text) - min(max(lines, 0), len(text)) :]
                parts.append("\n".join([f"--- {path} ---", *tail]))
        return "\n".join(parts) or f"no logs under {self.home / 'logs'}"

    def _live_pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text(encoding="utf-8").strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if _alive(pid) and _is_neo4j(pid) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); reap it if it is ours.
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return waited == 0


def _is_neo4j(pid: int) -> bool:
    """Guards against a stale pid file whose pid was reused by another program."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc: trust the pid file
    return ENTRY_CLASS.encode() in cmdline


def class_archive_flags(major: int, archive: Path) -> list[str]:
    """The JVM flags that load the jars' classes from `archive`, which the JVM writes at exit
    when it is missing or stale (docs/operations.md#start-time). None on a JDK before 19, or
    where the archive cannot be read or written: the server then starts as without it. An
    archive that is not one (an interrupted write, garbage) is removed, as the JVM would
    otherwise ignore it and never rewrite it."""
    if major < ARCHIVE_MIN_JAVA or not os.access(archive.parent, os.W_OK):
        return []
    try:
        with archive.open("rb") as handle:
            if handle.read(4) != ARCHIVE_MAGIC:
                archive.unlink()
    except FileNotFoundError:
        pass
    except OSError:
        return []
    return ["-XX:+AutoCreateSharedArchive", f"-XX:SharedArchiveFile={archive}", "-Xlog:cds*=off"]


@functools.cache
def java_major(java: Path) -> int:
    if not java.exists():
        return 0
    done = subprocess.run([str(java), "-version"], capture_output=True, text=True, check=False)  # noqa: S603
    match = re.search(r'version "(\d+)', done.stderr)
    return int(match.group(1)) if match else 0
