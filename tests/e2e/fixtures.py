"""Pytest fixtures for real-socket tests. Import them into a conftest.py::

    from e2e.fixtures import maid_server, telnet  # noqa: F401

* ``telnet``: a :class:`~e2e.client.ClientPool`; every client it opened is closed after
  the test.
* ``maid_server``: ``await maid_server(data_dir, **options)`` starts ``maid run`` as a
  process (see :meth:`~e2e.server.ServerProcess.start`); every process it started is
  killed (if still running) and reaped after the test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from e2e.client import ClientPool
from e2e.server import ServerProcess


@pytest.fixture
async def telnet() -> AsyncIterator[ClientPool]:
    pool = ClientPool()
    try:
        yield pool
    finally:
        await pool.close_all()


@pytest.fixture
async def maid_server() -> AsyncIterator[Callable[..., Awaitable[ServerProcess]]]:
    started: list[ServerProcess] = []

    async def start(data_dir: Path, **options: Any) -> ServerProcess:
        server = await ServerProcess.start(data_dir, **options)
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            await server.ensure_stopped()
