"""Fixtures of the security tests.

* ``live``: an in-process :class:`~maid_engine.app.MaidServer` with a real telnet
  listener on a free port (default packs, SQLite in tmp_path, cheap scrypt), so
  tests can talk over real sockets *and* look inside (accounts, world, hasher).
* ``telnet`` / ``maid_server``: the real-socket fixtures of tests/e2e.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from e2e.fixtures import maid_server, telnet

from maid_engine.app import MaidServer
from maid_engine.config import Settings

__all__ = ["live", "live_settings", "maid_server", "telnet"]


def live_settings(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": tmp_path,
        "telnet_port": 0,
        "metrics_enabled": False,
        "scrypt_n": 1024,
        "checkpoint_interval": 3600.0,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[MaidServer]:
    server = MaidServer(live_settings(tmp_path), announce=lambda _line: None)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
