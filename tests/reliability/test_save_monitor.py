"""In-process checks of the engine-side reliability support (maid_engine.reliability):
the saving-delayed notices and the log flood cap. The real-process behaviour is in
test_db_outage.py."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_engine.reliability import SAVING_DELAYED, SAVING_RESUMED, LogFloodFilter
from maid_engine.store import StoreError, StoreUnavailable
from maid_engine.testing import FakeSession


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    eng = GameEngine(Settings(_env_file=None, data_dir=tmp_path, packs=[]), packs=[])  # type: ignore[call-arg]
    async with eng.lifespan():
        yield eng


def _player(engine: GameEngine) -> FakeSession:
    session = FakeSession()
    uid = engine.world.create_entity()
    engine.sessions.attach(session, uid)
    return session


class _Outage:
    """Makes the engine's store fail like an unreachable database while active."""

    def __init__(self, engine: GameEngine, error: Exception) -> None:
        self.engine, self.error, self.active = engine, error, True
        store = engine.store
        self._atomic = store.atomic

        @contextlib.asynccontextmanager
        async def atomic() -> AsyncIterator[Any]:
            if self.active:
                raise self.error
            async with self._atomic() as tx:
                yield tx

        store.atomic = atomic  # type: ignore[method-assign]


async def test_players_hear_once_per_outage_and_nothing_is_lost(engine: GameEngine) -> None:
    alice, bob = _player(engine), _player(engine)
    uid = engine.world.create_entity()
    await engine.checkpoint()
    outage = _Outage(engine, StoreUnavailable("database unavailable: connection refused"))
    engine.world.create_entity()  # a change that has to wait for the database
    for _ in range(3):
        with pytest.raises(StoreUnavailable):
            await engine.checkpoint()
    assert engine.saving.delayed
    assert alice.sent == [SAVING_DELAYED]
    assert bob.sent == [SAVING_DELAYED]
    assert engine.metrics.registry.get_sample_value("maid_saving_delayed") == 1
    outage.active = False
    assert await engine.checkpoint() >= 1  # the pending change is written now
    assert alice.sent == [SAVING_DELAYED, SAVING_RESUMED]
    assert engine.metrics.registry.get_sample_value("maid_saving_delayed") == 0
    assert await engine.checkpoint() == 0  # and only once
    # A second outage is a new one: told again.
    outage.active = True
    engine.world.destroy_entity(uid)
    with pytest.raises(StoreUnavailable):
        await engine.checkpoint()
    assert alice.sent.count(SAVING_DELAYED) == 2
    assert engine.saving.outages == 2


async def test_other_store_errors_are_not_announced(engine: GameEngine) -> None:
    alice = _player(engine)
    _Outage(engine, StoreError("database error: constraint failed"))
    engine.world.create_entity()
    with pytest.raises(StoreError):
        await engine.checkpoint()
    assert alice.sent == []
    assert not engine.saving.delayed


def _record(name: str, msg: str = "garbage from a client") -> logging.LogRecord:
    return logging.LogRecord(name, logging.WARNING, __file__, 1, msg, (), None)


def test_log_flood_filter_caps_library_warnings_per_window() -> None:
    now = [0.0]
    flt = LogFloodFilter(burst=3, window=10.0, clock=lambda: now[0])
    passed = [flt.filter(_record("telnetlib3.stream_writer")) for _ in range(10)]
    assert passed == [True] * 3 + [False] * 7
    assert flt.filter(_record("telnetlib3.server"))  # counted per logger
    assert all(flt.filter(_record("maid.net")) for _ in range(100))  # our own: untouched
    now[0] = 10.5
    record = _record("telnetlib3.stream_writer", "again")
    assert flt.filter(record)
    assert "again" in record.getMessage()
    assert "7 more messages" in record.getMessage()
