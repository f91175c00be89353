"""Fixtures shared by every test package.

- ``postgres``: one throwaway PostgreSQL server for the session, started only when
  a test needs it.
- ``db_url``: a fresh, empty database URL per test, once for SQLite and once for
  PostgreSQL (ids ``sqlite`` / ``postgres``; ``-m "not postgres"`` skips the latter).
  A PostgreSQL database is dropped when its test ends, so the server stays small.
- ``store``: an opened Store on ``db_url``.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from pg import ThrowawayPostgres

from maid_engine.store import Store

_database_numbers = itertools.count(1)

# GameEngine.start() collects and freezes the GC (a long-lived world); thousands of
# engines in one test process would each pay a full collection. tests/engine tests
# the setting explicitly.
os.environ.setdefault("MAID_GC_FREEZE", "0")
# Servers started by tests listen for browsers on a free port, never the fixed 4080
# (tests run side by side); tests/web checks the default itself.
os.environ.setdefault("MAID_WEB_PORT", "0")


@pytest.fixture(scope="session")
def postgres() -> Iterator[ThrowawayPostgres]:
    # Synchronous on purpose: a session-scoped async fixture would live on the
    # session event loop, while tests run on their own function loops.
    server = ThrowawayPostgres()
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'maid.db'}"
        return
    server: ThrowawayPostgres = request.getfixturevalue("postgres")
    # pid + counter: unique even if several pytest processes share a server.
    name = f"t{os.getpid()}_{next(_database_numbers)}"
    yield await server.create_database(name)
    await server.drop_database(name)


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    opened = Store(db_url)
    await opened.open()
    try:
        yield opened
    finally:
        await opened.close()


# -- CI guard: PostgreSQL tests must run, never skip, when MAID_REQUIRE_POSTGRES=1 ------
_skipped_postgres: list[str] = []


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("MAID_REQUIRE_POSTGRES") == "1" and "postgres" in (
        config.getoption("-m") or ""
    ):
        raise pytest.UsageError("MAID_REQUIRE_POSTGRES=1: PostgreSQL tests may not be deselected")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and "postgres" in report.keywords:
        _skipped_postgres.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("MAID_REQUIRE_POSTGRES") == "1" and _skipped_postgres:
        print(f"\n{len(_skipped_postgres)} PostgreSQL test(s) were skipped; CI requires them:")
        for nodeid in _skipped_postgres[:20]:
            print("  " + nodeid)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
