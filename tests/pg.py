"""A throwaway PostgreSQL server for tests: own data dir, own port, trust auth.

    pg = ThrowawayPostgres()
    pg.start()
    await pg.create_database("t1")
    url = pg.url("t1")              # postgresql+asyncpg://postgres@127.0.0.1:PORT/t1
    await pg.drop_database("t1")    # when the test is done with it
    pg.stop(); pg.start()           # same data and port: simulates an outage
    pg.close()                      # stop and delete everything

The cluster lives in memory (/dev/shm) when there is room: every CREATE DATABASE
writes a copy of the template (~7.5 MB, plus as much WAL), and deleting hundreds of
megabytes from a disk at the end of a run used to take longer than the tests.

initdb refuses to run as root, so as root every server command runs as the
``postgres`` OS user (``runuser -u postgres --``).
"""

from __future__ import annotations

import atexit
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import asyncpg

_INSTALL_HINT = "install PostgreSQL with `apt-get update && apt-get install -y postgresql`"
_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
#: Where clusters go when it has this much free space (tmpfs: no disk writes at all).
_MEMORY_DIR = Path("/dev/shm")
_MEMORY_DIR_MIN_FREE = 1 << 30


class PostgresNotInstalled(RuntimeError):
    pass


def find_bindir() -> Path:
    """The bin directory of the newest installed PostgreSQL (Debian layout)."""
    root = Path("/usr/lib/postgresql")
    candidates = [p / "bin" for p in root.glob("*") if (p / "bin" / "initdb").exists()]
    if not candidates:
        raise PostgresNotInstalled(
            f"no PostgreSQL server binaries in {root}/*/bin: {_INSTALL_HINT}"
        )

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in re.findall(r"\d+", path.parent.name))

    return max(candidates, key=version)


def _temporary_root() -> str | None:
    """/dev/shm when it is a roomy directory, else None (the system's temp dir)."""
    try:
        free = shutil.disk_usage(_MEMORY_DIR).free
    except OSError:
        return None
    return str(_MEMORY_DIR) if free >= _MEMORY_DIR_MIN_FREE else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ThrowawayPostgres:
    """One private PostgreSQL server in a temporary directory."""

    def __init__(self) -> None:
        self.bindir = find_bindir()
        self._as_root = os.geteuid() == 0
        self.port = _free_port()
        self.tmpdir = Path(tempfile.mkdtemp(prefix="maid-pg-", dir=_temporary_root()))
        self.datadir = self.tmpdir / "data"
        self.logfile = self.tmpdir / "server.log"
        self._initialised = False
        self._running = False
        self._closed = False
        if self._as_root:
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                raise PostgresNotInstalled(f"no `postgres` OS user: {_INSTALL_HINT}") from None
            os.chown(self.tmpdir, user.pw_uid, user.pw_gid)
        atexit.register(self.close)

    @property
    def running(self) -> bool:
        return self._running

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{dbname}"

    def dsn(self, dbname: str = "postgres") -> str:
        """A plain libpq/asyncpg DSN (no SQLAlchemy driver prefix)."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def start(self) -> None:
        """Start the server (creating the cluster the first time) and wait until it accepts."""
        if self._closed:
            raise RuntimeError("this ThrowawayPostgres was closed")
        if self._running:
            return
        if not self._initialised:
            self._run(
                "initdb", "-D", str(self.datadir), "-U", "postgres", "--auth=trust",
                "-E", "UTF8", "--no-locale", "--no-sync",
            )  # fmt: skip
            self._initialised = True
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.tmpdir} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            "pg_ctl", "-D", str(self.datadir), "-l", str(self.logfile), "-w", "-t", "60",
            "-o", options, "start",
        )  # fmt: skip
        self._running = True

    def stop(self) -> None:
        """Stop the server (fast shutdown: open connections are cut)."""
        if not self._running:
            return
        self._run("pg_ctl", "-D", str(self.datadir), "-m", "fast", "-w", "-t", "60", "stop")
        self._running = False

    def close(self) -> None:
        """Stop the server and delete its files. Safe to call more than once.

        A fast stop, not an immediate one: an immediate stop can leave the server's
        shared-memory segments behind in /dev/shm."""
        if self._closed:
            return
        try:
            self.stop()
        finally:
            self._closed = True
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            atexit.unregister(self.close)

    async def create_database(self, name: str) -> str:
        """Create database ``name`` and return its SQLAlchemy URL."""
        if not _NAME.match(name):
            raise ValueError(f"not a simple database name: {name!r}")
        conn = await asyncpg.connect(self.dsn("postgres"), timeout=30)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        return self.url(name)

    async def drop_database(self, name: str) -> None:
        """Drop database ``name`` (if it exists), cutting any connection still open.

        Does nothing while the server is stopped (a test that stopped it owns it)."""
        if not _NAME.match(name):
            raise ValueError(f"not a simple database name: {name!r}")
        if not self._running:
            return
        conn = await asyncpg.connect(self.dsn("postgres"), timeout=30)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()

    def log(self) -> str:
        """The server log, for failure messages."""
        try:
            return self.logfile.read_text(errors="replace")
        except OSError:
            return ""

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bindir / program), *args]
        if self._as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if result.returncode != 0:
            raise RuntimeError(
                f"{' '.join(command)} failed ({result.returncode}):\n"
                f"{result.stdout}{result.stderr}\n--- server log ---\n{self.log()}"
            )
