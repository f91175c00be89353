"""The tick's error log: the first of each distinct failure in full, then counts."""

from __future__ import annotations

import logging

import pytest

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.ecs import System
from maid_engine.engine import GameEngine


class Flaky(System):
    """Raises RuntimeError for ``first`` ticks, then ValueError (from another line)
    for ``then`` ticks, then nothing."""

    phase = "combat"

    def __init__(self, first: int, then: int = 0) -> None:
        self.first, self.then, self.calls = first, then, 0

    async def update(self, delta: float) -> None:
        self.calls += 1
        if self.calls <= self.first:
            raise RuntimeError(f"old trouble #{self.calls}")
        if self.calls <= self.first + self.then:
            raise ValueError("new trouble")


class Twin(Flaky):
    """The same code under another system name."""


def engine_with(*systems: System, tick: float) -> GameEngine:
    clock = ManualClock(tick_game_seconds=tick)
    engine = GameEngine(Settings(), clock=clock, packs=[], use_store=False)
    for system in systems:
        engine.add_system(system)
    return engine


def engine_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "maid.engine" and r.levelno == logging.ERROR]


async def test_a_new_error_after_ten_thousand_old_ones_is_written_at_once_in_full(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A millisecond a tick: 10,001 ticks stay inside the first minute.
    engine = engine_with(Flaky(first=10_000, then=1), tick=0.001)
    caplog.set_level(logging.ERROR, logger="maid.engine")
    async with engine.lifespan():
        await engine.run_ticks(10_001)
        assert engine.system_errors("Flaky") == 10_001
    records = engine_records(caplog)
    assert len(records) == 2
    first, second = records
    assert "system Flaky failed: RuntimeError at " in first.getMessage()
    assert first.exc_info is not None
    assert first.exc_info[0] is RuntimeError
    assert "old trouble #1" in caplog.text
    assert "system Flaky failed: ValueError at " in second.getMessage()
    assert "(failure #10001 of this system)" in second.getMessage()
    assert second.exc_info is not None
    assert second.exc_info[0] is ValueError
    # The place is the raising frame's file and line, not the engine's.
    assert __file__ in second.getMessage()
    assert first.getMessage().split(" at ")[1] != second.getMessage().split(" at ")[1]


async def test_repeats_are_summed_up_once_a_minute_and_a_stop_is_written_too(
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine = engine_with(Flaky(first=150), tick=1.0)  # a second a tick
    caplog.set_level(logging.ERROR, logger="maid.engine")
    async with engine.lifespan():
        await engine.run_ticks(150)  # fails at t = 1 .. 150
        lines = [(r.getMessage(), r.exc_info is not None) for r in engine_records(caplog)]
        # The minute's line carries the newest traceback (the error may have moved on).
        assert [full for _, full in lines] == [True, True, True]
        assert "(failure #1 of this system)" in lines[0][0]
        assert lines[1][0].endswith(
            "(failure #61 of this system); the tick goes on "
            "(suppressed 59 similar messages in the last 60 s)"
        )
        assert "(failure #121 of this system)" in lines[2][0]
        # The failures stop: what was held back is still written, within the minute.
        await engine.run_ticks(60)
        lines = [(r.getMessage(), r.exc_info is not None) for r in engine_records(caplog)]
        assert len(lines) == 4
        assert "(failure #150 of this system)" in lines[3][0]
        assert lines[3][0].endswith("(suppressed 29 similar messages in the last 60 s)")
        assert not lines[3][1]
        await engine.run_ticks(120)  # nothing more to say
        assert len(engine_records(caplog)) == 4


async def test_the_same_code_failing_in_two_systems_is_two_distinct_errors(
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine = engine_with(Flaky(first=3), Twin(first=3), tick=0.001)
    caplog.set_level(logging.ERROR, logger="maid.engine")
    async with engine.lifespan():
        await engine.run_ticks(3)
    records = engine_records(caplog)
    assert [r.getMessage().split(":")[0] for r in records] == [
        "system Flaky failed",
        "system Twin failed",
    ]
    assert all(r.exc_info is not None for r in records)
