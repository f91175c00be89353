"""The log during a database outage: one line per cause a minute, not one per tick.

Every per-tick writer (story situations, NPC memories, quest documents, generated
quests, quest hints, consequence audits) retries while the database is away; each
logs through :class:`maid_engine.logs.ThrottledLog`, so an outage of an hour costs
a few lines a minute instead of ~20 a second. The database here is a real SQLite
file made read-only (``PRAGMA query_only``): every write fails with "attempt to
write a readonly database", exactly as a read-only or full disk makes it fail.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Iterator
from math import ceil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.ecs import System
from maid_engine.engine import GameEngine
from maid_engine.logs import ThrottledLog

TICK = 2.4  # game (and, on the manual clock, monotonic) seconds per tick, as in play


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def records() -> Iterator[_Records]:
    handler = _Records()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


# -- the helper ---------------------------------------------------------------------


def _throttled(handler: _Records, now: list[float]) -> ThrottledLog:
    logger = logging.getLogger("maid.test.throttled")
    logger.setLevel(logging.DEBUG)
    return ThrottledLog(logger, interval=60.0, clock=lambda: now[0])


def test_first_message_is_written_then_one_a_minute_with_the_count(records: _Records) -> None:
    now = [0.0]
    tlog = _throttled(records, now)
    written = []
    for second in range(0, 181):  # one failure a second for three minutes
        now[0] = float(second)
        written.append(tlog.warning("StoreUnavailable", "write failed: %s", f"try {second}"))
    assert [i for i, w in enumerate(written) if w] == [0, 60, 120, 180]
    lines = [r.getMessage() for r in records.records]
    assert lines == [
        "write failed: try 0",
        "write failed: try 60 (suppressed 59 similar messages in the last 60 s)",
        "write failed: try 120 (suppressed 59 similar messages in the last 60 s)",
        "write failed: try 180 (suppressed 59 similar messages in the last 60 s)",
    ]
    assert all(r.levelno == logging.WARNING for r in records.records)


def test_causes_are_counted_apart_and_clear_reports_what_was_held_back(
    records: _Records,
) -> None:
    now = [0.0]
    tlog = _throttled(records, now)
    for _ in range(5):
        tlog.warning("StoreUnavailable", "write failed: %s", "database unavailable")
    tlog.warning("StoreError", "write failed: %s", "constraint failed")  # another cause
    now[0] = 12.0
    tlog.warning("StoreUnavailable", "write failed: %s", "disk is full")
    assert tlog.suppressed("StoreUnavailable") == 5
    assert tlog.suppressed("StoreError") == 0
    now[0] = 30.0
    tlog.clear()  # the write got through again
    assert [r.getMessage() for r in records.records] == [
        "write failed: database unavailable",
        "write failed: constraint failed",
        # The last message held back, with the count: nothing vanishes silently.
        "write failed: disk is full (suppressed 5 similar messages in the last 30 s)",
    ]
    # A new outage right after is news: written at once.
    now[0] = 31.0
    assert tlog.warning("StoreUnavailable", "write failed: %s", "database unavailable")
    assert len(records.records) == 4


def test_a_quiet_level_costs_nothing_and_counts_nothing(records: _Records) -> None:
    now = [0.0]
    tlog = _throttled(records, now)
    tlog.logger.setLevel(logging.ERROR)
    assert not tlog.warning("StoreUnavailable", "write failed")
    assert tlog.suppressed("StoreUnavailable") == 0
    assert records.records == []


# -- a real outage over many ticks --------------------------------------------------


def _set_query_only(engine: GameEngine, on: bool) -> Any:
    """Every connection the store checks out from now on is read-only (or writable
    again): SQLite then refuses each write with "attempt to write a readonly database"."""
    pool = engine.store._engine.sync_engine.pool  # type: ignore[union-attr]

    def checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA query_only={'ON' if on else 'OFF'}")
        finally:
            cursor.close()

    event.listen(pool, "checkout", checkout)
    return lambda: event.remove(pool, "checkout", checkout)


async def _ticks(engine: GameEngine, n: int) -> None:
    """Run ``n`` ticks as the server does, letting the writes each tick starts
    (in the background) finish before the next tick, as they would in real time."""
    for _ in range(n):
        before = asyncio.all_tasks()
        await engine.tick()
        await engine.between_ticks()
        started = asyncio.all_tasks() - before
        await asyncio.gather(*started, return_exceptions=True)


def _warnings(handler: _Records, since: int) -> Counter[str]:
    return Counter(r.name for r in handler.records[since:] if r.levelno >= logging.WARNING)


async def test_an_outage_of_600_ticks_logs_per_cause_once_a_minute(
    tmp_path: Path, records: _Records
) -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path, database_url=f"sqlite+aiosqlite:///{tmp_path}/maid.db"
    )
    engine = GameEngine(settings, clock=ManualClock(tick_game_seconds=TICK))
    async with engine.lifespan():
        await _ticks(engine, 5)
        assert _warnings(records, 0) == Counter()  # a healthy start says nothing

        lift = _set_query_only(engine, True)
        start = len(records.records)
        ticks = 600  # 24 minutes of play on the manual clock
        await _ticks(engine, ticks)
        during = _warnings(records, start)
        # Before the fix the quest documents alone wrote one warning per tick (600).
        minutes = ceil(ticks * TICK / 60.0)
        assert during, "the outage was not noticed at all"
        assert max(during.values()) <= minutes + 1, during
        assert sum(during.values()) <= 3 * (minutes + 1), during
        suppressed = [
            r.getMessage() for r in records.records[start:] if "suppressed" in r.getMessage()
        ]
        assert suppressed, "no writer failed repeatedly: the test proves nothing"
        assert all("similar messages in the last" in line for line in suppressed)
        assert any("attempt to write a readonly database" in line for line in suppressed)

        # The database comes back: what was held back is reported once, then quiet.
        lift()
        restore = _set_query_only(engine, False)
        back = len(records.records)
        await _ticks(engine, 30)
        after = [r.getMessage() for r in records.records[back:] if r.levelno >= logging.WARNING]
        assert len(after) <= len(during)
        assert all("suppressed" in line for line in after), after
        back = len(records.records)
        await _ticks(engine, 30)
        assert _warnings(records, back) == Counter()
        restore()


class _Broken(System):
    phase = "combat"

    async def update(self, delta: float) -> None:
        raise RuntimeError("broken every tick")


async def test_a_system_failing_every_tick_logs_once_a_minute(records: _Records) -> None:
    engine = GameEngine(
        Settings(_env_file=None),  # type: ignore[call-arg]
        clock=ManualClock(tick_game_seconds=TICK),
        packs=[],
        use_store=False,
    )
    engine.add_system(_Broken())
    async with engine.lifespan():
        await engine.run_ticks(600)
    assert engine.system_errors("_Broken") == 600  # every failure is still counted
    lines = [r for r in records.records if r.name == "maid.engine" and "_Broken" in r.getMessage()]
    minutes = ceil(600 * TICK / 60.0)
    assert minutes - 2 <= len(lines) <= minutes + 1, len(lines)
    first = lines[0].getMessage()
    assert first.startswith("system _Broken failed: RuntimeError at ")
    assert first.endswith("(failure #1 of this system); the tick goes on")
    assert all(r.exc_info is not None for r in lines)  # each with its traceback
    assert all("similar messages in the last" in r.getMessage() for r in lines[1:])
