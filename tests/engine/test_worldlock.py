"""The world lock: the tick goes before waiting commands, which all still run."""

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import pytest
from kits.engines import connect_someone

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.ecs import System
from maid_engine.engine import GameEngine
from maid_engine.events import Event
from maid_engine.worldlock import WorldLock


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def _hold(lock: WorldLock, name: str, order: list[str]) -> None:
    async with lock:
        order.append(name)
        await asyncio.sleep(0)


async def _command(lock: WorldLock, name: str, order: list[str]) -> None:
    async with lock.command():
        order.append(name)
        await asyncio.sleep(0)


async def _hold_first(lock: WorldLock, name: str, order: list[str]) -> None:
    async with lock.first():
        order.append(name)
        await asyncio.sleep(0)


async def test_a_free_lock_is_taken_at_once_and_released() -> None:
    lock = WorldLock()
    assert not lock.locked()
    async with lock:
        assert lock.locked()
    assert not lock.locked()
    async with lock.first():
        assert lock.locked()
    assert not lock.locked()


async def test_the_first_waiter_goes_before_commands_waiting_longer() -> None:
    lock = WorldLock()
    order: list[str] = []
    await lock.acquire()
    commands = [asyncio.create_task(_hold(lock, f"command {i}", order)) for i in range(5)]
    await _settle()
    tick = asyncio.create_task(_hold_first(lock, "tick", order))
    await _settle()
    assert lock.waiting() == (1, 5)
    lock.release()
    await asyncio.gather(tick, *commands)
    # The tick first, then every command in the order it came: none is left behind.
    assert order == ["tick", *(f"command {i}" for i in range(5))]
    assert not lock.locked()


async def test_nobody_takes_the_lock_out_of_turn_while_it_is_handed_over() -> None:
    lock = WorldLock()
    order: list[str] = []
    await lock.acquire()
    waiting = asyncio.create_task(_hold(lock, "waiting", order))
    await _settle()
    lock.release()
    # Handed to the waiter already: a newcomer queues behind it.
    assert lock.locked()
    late = asyncio.create_task(_hold(lock, "late", order))
    await asyncio.gather(waiting, late)
    assert order == ["waiting", "late"]


async def test_a_cancelled_waiter_leaves_the_queue() -> None:
    lock = WorldLock()
    order: list[str] = []
    await lock.acquire()
    gone = asyncio.create_task(_hold(lock, "gone", order))
    stays = asyncio.create_task(_hold(lock, "stays", order))
    await _settle()
    gone.cancel()
    await _settle()
    assert lock.waiting() == (0, 1)
    lock.release()
    await stays
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert order == ["stays"]
    assert not lock.locked()


async def test_a_waiter_cancelled_as_the_lock_reaches_it_passes_it_on() -> None:
    lock = WorldLock()
    order: list[str] = []
    await lock.acquire()
    unlucky = asyncio.create_task(_hold(lock, "unlucky", order))
    after = asyncio.create_task(_hold(lock, "after", order))
    await _settle()
    lock.release()  # handed to ``unlucky`` ...
    unlucky.cancel()  # ... which is cancelled before it runs
    with pytest.raises(asyncio.CancelledError):
        await unlucky
    await after
    assert order == ["after"]
    assert not lock.locked()


async def test_releasing_a_free_lock_is_an_error() -> None:
    with pytest.raises(RuntimeError):
        WorldLock().release()


class _Probe(System):
    phase = "living"

    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    async def update(self, delta: float) -> None:
        self.seen.append("tick")


async def test_a_tick_due_during_a_burst_of_commands_runs_before_them() -> None:
    order: list[str] = []
    engine = GameEngine(Settings(), clock=ManualClock(), packs=[], use_store=False)
    engine.add_system(_Probe(order))
    await engine.world_lock.acquire()  # a command in progress
    burst = [asyncio.create_task(_hold(engine.world_lock, f"c{i}", order)) for i in range(20)]
    await _settle()
    tick = asyncio.create_task(engine.tick())
    await _settle()
    engine.world_lock.release()
    await asyncio.gather(tick, *burst)
    assert order == ["tick", *(f"c{i}" for i in range(20))]


async def test_the_holder_lends_the_world_to_one_waiter_and_gets_it_back_first() -> None:
    lock = WorldLock()
    order: list[str] = []
    async with lock.first() as holding:
        commands = [asyncio.create_task(_command(lock, f"c{i}", order)) for i in range(3)]
        await _settle()
        assert await holding.lend()
        order.append("holder")
        # c0 ran whole; the holder came back before c1 and c2, still waiting.
        assert order == ["c0", "holder"]
        assert lock.waiting() == (0, 2)
        assert holding.held
    await asyncio.gather(*commands)
    assert order == ["c0", "holder", "c1", "c2"]
    assert not lock.locked()


async def test_lending_with_nobody_waiting_does_nothing() -> None:
    lock = WorldLock()
    async with lock.first() as holding:
        assert not await holding.lend()
        assert holding.held
        assert lock.locked()
    assert not lock.locked()


async def test_only_commands_are_lent_the_world_and_the_others_keep_their_place() -> None:
    lock = WorldLock()
    order: list[str] = []
    async with lock.first() as holding:
        waiters = [
            asyncio.create_task(_hold(lock, "checkpoint", order)),
            asyncio.create_task(_command(lock, "command", order)),
        ]
        await _settle()
        assert await holding.lend()
        assert not await holding.lend()  # the checkpoint is not lent it
        order.append("holder")
    await asyncio.gather(*waiters)
    assert order == ["command", "holder", "checkpoint"]


async def test_a_holder_cancelled_while_the_world_is_lent_does_not_release_it() -> None:
    lock = WorldLock()
    order: list[str] = []
    borrowed = asyncio.Event()
    go_on = asyncio.Event()

    async def borrower() -> None:
        async with lock.command():
            order.append("borrower")
            borrowed.set()
            await go_on.wait()

    async def holder() -> None:
        async with lock.first() as holding:
            await holding.lend()
            order.append("holder again")  # never reached

    task = asyncio.create_task(borrower())
    await _settle()  # not yet waiting: the holder must find it queued
    lock_holder = asyncio.create_task(holder())
    await borrowed.wait()
    lock_holder.cancel()
    with pytest.raises(asyncio.CancelledError):
        await lock_holder
    # The borrower still holds the world; releasing it was not the holder's to do.
    assert lock.locked()
    go_on.set()
    await task
    assert order == ["borrower"]
    assert not lock.locked()


class _StepA(System):
    """Notes its turn, and a command comes in during it (``arrive``)."""

    phase = "living"

    def __init__(self, seen: list[str], arrive: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self.seen = seen
        self.arrive = arrive
        self.command: asyncio.Task[None] | None = None

    async def update(self, delta: float) -> None:
        self.seen.append("A")
        self.command = asyncio.create_task(self.arrive())


class _StepB(System):
    phase = "living"
    after = (_StepA,)

    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    async def update(self, delta: float) -> None:
        self.seen.append("B")


def _lent(engine: GameEngine) -> float | None:
    return engine.metrics.registry.get_sample_value("maid_tick_commands_lent_total")


def _stepping_engine(
    seen: list[str],
    settings: Settings,
    arrive: Callable[[GameEngine], Coroutine[Any, Any, None]] | None = None,
) -> tuple[GameEngine, _StepA]:
    engine = GameEngine(settings, clock=ManualClock(), packs=[], use_store=False)

    def command() -> Coroutine[Any, Any, None]:
        if arrive is not None:
            return arrive(engine)
        return _command(engine.world_lock, "command", seen)

    first = _StepA(seen, command)
    engine.add_system(_StepB(seen))
    engine.add_system(first)
    return engine, first


async def test_a_command_that_comes_in_during_a_tick_runs_between_two_systems() -> None:
    seen: list[str] = []
    engine, first = _stepping_engine(seen, Settings(tick_lend_after=0.0))
    await connect_someone(engine)
    await engine.tick()
    assert seen == ["A", "command", "B"]
    assert first.command is not None
    assert first.command.done()
    assert _lent(engine) == 1


async def test_with_nobody_connected_the_tick_never_looks() -> None:
    seen: list[str] = []
    engine, first = _stepping_engine(seen, Settings(tick_lend_after=0.0))
    await engine.tick()
    assert first.command is not None
    await first.command
    assert seen == ["A", "B", "command"]


async def test_without_a_budget_the_command_waits_for_the_tick() -> None:
    seen: list[str] = []
    engine, first = _stepping_engine(seen, Settings(tick_lend_after=0.0, tick_lend_budget=0.0))
    await connect_someone(engine)
    await engine.tick()
    assert first.command is not None
    await first.command
    assert seen == ["A", "B", "command"]
    assert _lent(engine) == 0


async def test_the_tick_time_leaves_out_what_it_lent() -> None:
    seen: list[str] = []

    async def busy(engine: GameEngine) -> None:
        async with engine.world_lock.command():
            seen.append("busy")
            until = time.perf_counter() + 0.02
            while time.perf_counter() < until:  # a slow command's CPU
                pass

    engine, _ = _stepping_engine(seen, Settings(tick_lend_after=0.0, tick_lend_budget=0.5), busy)
    await connect_someone(engine)
    started = time.perf_counter()
    own = await engine.tick()
    wall = time.perf_counter() - started
    assert seen == ["A", "busy", "B"]
    assert wall >= 0.02 > own


class _Batch(System):
    """A system working through members, offering a point between two of them
    (``lend_point``); a command comes in after the first."""

    phase = "living"

    def __init__(self, seen: list[str]) -> None:
        self.seen = seen
        self.lent: list[bool] = []
        self.command: asyncio.Task[None] | None = None

    async def update(self, delta: float) -> None:
        for member in ("m1", "m2", "m3"):
            self.seen.append(member)
            if member == "m1":
                lock = self.engine.world_lock
                assert isinstance(lock, WorldLock)
                self.command = asyncio.create_task(_command(lock, "command", self.seen))
            self.lent.append(await self.engine.lend_point())


async def _batch_tick(seen: list[str], tick_lend_after: float) -> tuple[GameEngine, _Batch]:
    """One tick of an engine running only ``_Batch``, with someone connected."""
    engine = GameEngine(
        Settings(tick_lend_after=tick_lend_after), clock=ManualClock(), packs=[], use_store=False
    )
    batch = _Batch(seen)
    engine.add_system(batch)
    await connect_someone(engine)
    await engine.tick()
    return engine, batch


async def test_a_command_runs_at_a_point_a_system_offers_inside_its_update() -> None:
    seen: list[str] = []
    engine, batch = await _batch_tick(seen, tick_lend_after=0.0)
    assert seen == ["m1", "command", "m2", "m3"]
    # The system learns that the world may have changed where it did.
    assert batch.lent == [True, False, False]
    assert _lent(engine) == 1
    # Outside a tick the point does nothing.
    assert not await engine.lend_point()


async def test_a_point_inside_a_system_waits_for_the_tick_to_have_worked_a_while() -> None:
    seen: list[str] = []
    _, batch = await _batch_tick(seen, tick_lend_after=1.0)
    assert batch.command is not None
    await batch.command
    assert seen == ["m1", "m2", "m3", "command"]
    assert batch.lent == [False, False, False]


class _Emitting(System):
    """Emits an event before offering a point: a point that lends nothing must not
    deliver it in the middle of the update."""

    phase = "living"

    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    async def update(self, delta: float) -> None:
        self.engine.events.emit(_Noted())
        await self.engine.lend_point()
        self.seen.append("update done")


@dataclass
class _Noted(Event):
    pass


async def test_a_point_that_lends_nothing_delivers_no_event_early() -> None:
    seen: list[str] = []
    engine = GameEngine(
        Settings(tick_lend_after=0.0), clock=ManualClock(), packs=[], use_store=False
    )
    engine.events.subscribe(_Noted, lambda _ev: seen.append("event"))
    engine.add_system(_Emitting(seen))
    # Nobody connected: nothing is lent, the event comes after the system as ever.
    await engine.tick()
    assert seen == ["update done", "event"]


class _Asking(System):
    """Asks ``lend_due`` inside its update, as a system working in small steps does."""

    phase = "living"

    def __init__(self) -> None:
        self.due: list[bool] = []

    async def update(self, delta: float) -> None:
        self.due.append(self.engine.lend_due())


@pytest.mark.parametrize(
    ("after", "connected", "due"), [(0.0, True, True), (1.0, True, False), (0.0, False, False)]
)
async def test_lend_due_says_whether_a_point_would_lend_now(
    after: float, connected: bool, due: bool
) -> None:
    engine = GameEngine(
        Settings(tick_lend_after=after), clock=ManualClock(), packs=[], use_store=False
    )
    asking = _Asking()
    engine.add_system(asking)
    if connected:
        await connect_someone(engine)
    await engine.tick()
    assert asking.due == [due]
    assert not engine.lend_due()  # outside a tick
