"""A system's share of a tick in real time: spent at its limit, never with none,
the time lent to commands left out, counted once per update in a metric."""

import asyncio

import pytest
from kits.engines import connect_someone

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.ecs import System
from maid_engine.engine import GameEngine
from maid_engine.ports import Host
from maid_engine.slicing import TickSlice


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_slice_is_spent_once_its_time_is_used() -> None:
    clock = _Clock()
    cuts: list[int] = []
    share = TickSlice(clock, 0.002, cut=lambda: cuts.append(1))
    clock.now += 0.0015
    assert not share.spent()
    assert share.used == pytest.approx(0.0015)
    clock.now += 0.001
    assert share.spent()
    assert share.spent()
    # The metric hears of it once, however often the system asks.
    assert cuts == [1]


def test_the_time_lent_to_commands_is_not_the_systems() -> None:
    clock = _Clock()
    lent = [0.5]
    share = TickSlice(clock, 0.002, lent=lambda: lent[0])
    clock.now += 0.001
    # A command ran for 30 ms at a point the system offered.
    clock.now += 0.030
    lent[0] += 0.030
    assert not share.spent()
    assert share.used == pytest.approx(0.001)
    clock.now += 0.001
    assert share.spent()


def test_a_limit_of_zero_never_cuts() -> None:
    clock = _Clock()
    share = TickSlice(clock, 0.0)
    clock.now += 60.0
    assert not share.spent()


def _spent(engine: GameEngine, system: str) -> float | None:
    return engine.metrics.registry.get_sample_value(
        "maid_tick_slices_spent_total", {"system": system}
    )


class _Working(System):
    """Works in steps of ``step`` real seconds on a manual clock until its share of
    the tick is spent."""

    phase = "living"

    def __init__(self, step: float, most: int = 100) -> None:
        self.step = step
        self.most = most
        self.steps: list[int] = []

    async def update(self, delta: float) -> None:
        share = self.engine.tick_slice(self.name)
        clock = self.engine.clock
        assert isinstance(clock, ManualClock)
        done = 0
        while done < self.most:
            clock.advance_wall(self.step)
            done += 1
            if share.spent():
                break
        self.steps.append(done)


async def test_the_engine_gives_each_update_its_share_from_the_settings() -> None:
    engine = GameEngine(Settings(tick_slice=0.002), clock=ManualClock(), packs=[], use_store=False)
    working = _Working(0.00075)
    engine.add_system(working)
    await engine.run_ticks(3)
    # 1.5 ms of work leaves it some, 2.25 ms is past: three steps a tick.
    assert working.steps == [3, 3, 3]
    assert _spent(engine, "_Working") == 3


async def test_a_manual_clock_or_no_limit_never_cuts() -> None:
    # A simulation's clock does not move within a tick: nothing it decides may hang
    # on the machine's speed.
    engine = GameEngine(Settings(), clock=ManualClock(), packs=[], use_store=False)
    working = _Working(0.0, most=500)
    engine.add_system(working)
    await engine.tick()
    assert working.steps == [500]
    unlimited = GameEngine(
        Settings(tick_slice=0.0, tick_budget=0.0), clock=ManualClock(), packs=[], use_store=False
    )
    working = _Working(0.01, most=50)
    unlimited.add_system(working)
    await unlimited.tick()
    assert working.steps == [50]
    assert _spent(unlimited, "_Working") == 0


async def _lend_to_a_slow_command(engine: Host) -> ManualClock:
    """Lend the world, at a point inside the tick, to a command that takes 200 ms
    on the engine's manual clock (returned)."""
    lock = engine.world_lock
    clock = engine.clock
    assert isinstance(clock, ManualClock)

    async def slow_command() -> None:
        async with lock.command():  # type: ignore[attr-defined]
            clock.advance_wall(0.2)

    task = asyncio.create_task(slow_command())
    assert await engine.lend_point()
    assert task.done()
    return clock


class _Lending(System):
    """Lends the world to a slow command in the middle of its work, then asks
    whether its share is spent. Time moves on a manual clock: the command's 200
    ms, then the system's own 120."""

    phase = "living"

    def __init__(self) -> None:
        self.first: bool | None = None
        self.then: bool | None = None

    async def update(self, delta: float) -> None:
        share = self.engine.tick_slice(self.name)
        clock = await _lend_to_a_slow_command(self.engine)
        self.first = share.spent()
        clock.advance_wall(0.12)
        self.then = share.spent()


async def test_inside_a_tick_the_time_lent_to_commands_is_left_out() -> None:
    engine = GameEngine(
        Settings(tick_slice=0.1, tick_lend_after=0.0),
        clock=ManualClock(),
        packs=[],
        use_store=False,
    )
    system = _Lending()
    engine.add_system(system)
    await connect_someone(engine)
    await engine.tick()
    # 200 ms of the command's did not spend a 100-ms share; 120 ms of its own did.
    assert system.first is False
    assert system.then is True


class _Heavy(System):
    """Work that cannot wait: ``took`` real seconds on a manual clock each tick."""

    phase = "living"

    def __init__(self, took: float) -> None:
        self.took = took

    async def update(self, delta: float) -> None:
        clock = self.engine.clock
        assert isinstance(clock, ManualClock)
        clock.advance_wall(self.took)


class _LaterWorking(_Working):
    """A second spread system, after the first."""


def _budgeted(budget: float) -> tuple[GameEngine, _Working, _LaterWorking]:
    engine = GameEngine(
        Settings(tick_slice=0.002, tick_budget=budget),
        clock=ManualClock(),
        packs=[],
        use_store=False,
    )
    engine.add_system(_Heavy(0.0045))
    first, then = _Working(0.00075), _LaterWorking(0.00075)
    engine.add_system(first)
    engine.add_system(then)
    return engine, first, then


async def test_the_shares_stop_where_the_ticks_budget_ends() -> None:
    engine, first, then = _budgeted(0.006)
    await engine.run_ticks(2)
    # 4.5 ms went to work that could not wait: 1.5 ms of the budget is left, two
    # steps of 0.75; the next system finds it spent and does one step.
    assert first.steps == [2, 2]
    assert then.steps == [1, 1]
    assert _spent(engine, "_Working") == 2
    assert _spent(engine, "_LaterWorking") == 2


async def test_without_a_budget_each_share_counts_alone() -> None:
    engine, first, then = _budgeted(0.0)
    await engine.run_ticks(2)
    assert first.steps == [3, 3]
    assert then.steps == [3, 3]


async def test_a_share_asked_outside_a_tick_is_not_bounded_by_a_budget() -> None:
    engine = GameEngine(
        Settings(tick_slice=0.002, tick_budget=0.000001),
        clock=ManualClock(),
        packs=[],
        use_store=False,
    )
    clock = engine.clock
    assert isinstance(clock, ManualClock)
    share = engine.tick_slice("a command's search")
    clock.advance_wall(0.0015)
    assert not share.spent()
    clock.advance_wall(0.001)
    assert share.spent()


class _LendingFirst(System):
    """Lends the world to a command that takes 200 ms before the next system."""

    phase = "living"

    async def update(self, delta: float) -> None:
        await _lend_to_a_slow_command(self.engine)


async def test_the_time_lent_to_commands_is_not_the_ticks_budget() -> None:
    engine = GameEngine(
        Settings(tick_slice=0.002, tick_budget=0.006, tick_lend_after=0.0),
        clock=ManualClock(),
        packs=[],
        use_store=False,
    )
    engine.add_system(_LendingFirst())
    working = _Working(0.00075)
    engine.add_system(working)
    await connect_someone(engine)
    await engine.tick()
    # 200 ms of a command's: the tick's own time is still nothing, the full share.
    assert working.steps == [3]
