"""Pytest fixtures for real-socket tests. Import them into a conftest.py::

    from e2e.fixtures import maid_server, telnet  # noqa: F401

* ``telnet``: a :class:`~e2e.client.ClientPool`; every client it opened is closed after
  the test.
* ``live``: a :class:`~maid_engine.app.MaidServer` in this process on a free port with the
  shipped packs (``served`` starts one with other settings).
* ``maid_server``: ``await maid_server(data_dir, **options)`` starts ``maid run`` as a
  process (see :meth:`~e2e.server.ServerProcess.start`); every process it started is
  killed (if still running) and reaped after the test.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from e2e.client import ClientPool
from e2e.server import ServerProcess

from maid_engine.app import MaidServer
from maid_engine.config import Settings


@contextlib.asynccontextmanager
async def served(data_dir: Path, **overrides: Any) -> AsyncIterator[MaidServer]:
    """A server in this process on a free port; cheap hashing and no checkpoints
    keep the tests fast, ``overrides`` change any other setting."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=data_dir,
        telnet_port=0,
        metrics_enabled=False,
        scrypt_n=1024,
        checkpoint_interval=3600.0,
        **overrides,
    )
    server = MaidServer(settings, announce=lambda _line: None)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[MaidServer]:
    async with served(tmp_path) as server:
        yield server


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
