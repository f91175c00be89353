"""Fixtures of the reliability tests: a database URL for a server process, per backend,
and the real-socket fixtures of tests/e2e (``telnet``, ``maid_server``)."""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e.fixtures import maid_server, telnet
from e2e.worlddb import sqlite_url
from pg import ThrowawayPostgres

__all__ = ["maid_server", "server_db", "telnet"]

_numbers = itertools.count(1)


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
async def server_db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh database URL for a ``maid run`` process whose data dir is ``tmp_path``
    (a PostgreSQL database is dropped when the test ends)."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
        return
    server: ThrowawayPostgres = request.getfixturevalue("postgres")
    name = f"rel{os.getpid()}_{next(_numbers)}"
    yield await server.create_database(name)
    await server.drop_database(name)
