"""The world lock: the tick goes before waiting commands, which all still run."""

import asyncio

import pytest

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.ecs import System
from maid_engine.engine import GameEngine
from maid_engine.worldlock import WorldLock


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def _hold(lock: WorldLock, name: str, order: list[str]) -> None:
    async with lock:
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
