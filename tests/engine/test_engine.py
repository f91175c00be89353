import asyncio
import logging
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest

from maid_engine.clock import GAME_HOUR, ManualClock
from maid_engine.config import Settings
from maid_engine.ecs import Component, System
from maid_engine.engine import GameEngine
from maid_engine.events import EntityDestroyedEvent, Event
from maid_engine.pacing import ManualPacer, RealPacer
from maid_stdlib.pack import StdlibContentPack
from maid_stdlib.world.components import NPC, Room
from maid_stdlib.world.service import WorldService


@dataclass
class Hp(Component):
    value: int = 10


@dataclass
class Ping(Event):
    n: int


def engine_with(*systems: System) -> GameEngine:
    engine = GameEngine(Settings(), clock=ManualClock(), packs=[], use_store=False)
    for s in systems:
        engine.add_system(s)
    return engine


class Recorder(System):
    def __init__(self, label: str, log: list[str]) -> None:
        self.label, self.log = label, log

    async def update(self, delta: float) -> None:
        self.log.append(self.label)

    async def shutdown(self) -> None:
        self.log.append(f"stop {self.label}")


def recorder(label: str, phase: str, log: list[str], **declared: Any) -> System:
    cls = type(label, (Recorder,), {"phase": phase, **declared})
    system: System = cls(label, log)
    return system


async def test_systems_run_in_phase_order() -> None:
    log: list[str] = []
    engine = engine_with(
        recorder("ground", "grounding", log),
        recorder("story", "story", log),
        recorder("conseq", "consequences", log),
        recorder("questgen", "generation", log),
        recorder("needs", "living", log),
    )
    async with engine.lifespan():
        await engine.run_ticks(2)
    order = ["needs", "story", "questgen", "conseq", "ground"]
    assert log == order * 2 + [f"stop {label}" for label in reversed(order)]


async def test_same_phase_keeps_registration_order_and_shutdown_reverses() -> None:
    log: list[str] = []
    engine = engine_with(
        recorder("b", "living", log), recorder("a", "living", log), recorder("c", "combat", log)
    )
    async with engine.lifespan():
        await engine.run_ticks(1)
    assert log == ["c", "b", "a", "stop a", "stop b", "stop c"]


class Boom(System):
    phase = "combat"

    async def update(self, delta: float) -> None:
        raise RuntimeError("boom")


async def test_crashing_system_does_not_stop_the_loop(caplog: pytest.LogCaptureFixture) -> None:
    log: list[str] = []
    engine = engine_with(Boom(), recorder("after", "living", log))
    caplog.set_level(logging.ERROR)
    async with engine.lifespan():
        await engine.run_ticks(3)
        assert engine.system_errors("Boom") == 3
        assert log == ["after"] * 3
        text = engine.metrics.render().decode()
        assert 'maid_system_errors_total{system="Boom"} 3.0' in text
    assert "Boom failed" in caplog.text


class Reaper(System):
    """Destroys every other entity while iterating."""

    phase = "combat"

    async def update(self, delta: float) -> None:
        for i, (uid, (hp,)) in enumerate(self.world.query(Hp)):
            hp.value -= 1
            if i % 2 == 0:
                self.world.destroy_entity(uid)


class Observer(System):
    phase = "combat"
    after = (Reaper,)

    def __init__(self) -> None:
        self.seen: list[int] = []

    async def update(self, delta: float) -> None:
        self.seen.append(self.world.count(Hp))


async def test_deferred_destroy_lands_between_systems_with_events() -> None:
    obs = Observer()
    engine = engine_with(Reaper(), obs)
    destroyed: list[object] = []
    engine.events.subscribe(EntityDestroyedEvent, lambda e: destroyed.append(e.entity_id))
    async with engine.lifespan():
        ids = [engine.world.create_entity(Hp()) for _ in range(6)]
        await engine.run_ticks(1)
        # Reaper saw all six; the observer (next system) sees the survivors only.
        assert obs.seen == [3]
        assert len(destroyed) == 3
        assert set(destroyed) <= set(ids)


@dataclass
class Doom(Event):
    """Asks a handler to destroy an entity (a destroy made outside any system)."""

    victim: UUID


async def test_a_destroy_made_by_an_event_handler_is_announced_in_the_same_round() -> None:
    engine = engine_with()
    destroyed: list[UUID] = []
    async with engine.lifespan():
        first, second, survivor = (engine.world.create_entity(Hp()) for _ in range(3))
        engine.events.subscribe(Doom, lambda e: engine.world.destroy_entity(e.victim))

        def chain(event: EntityDestroyedEvent) -> None:
            # The announcement of one destroy destroys another: a third round.
            destroyed.append(event.entity_id)
            if event.entity_id == first:
                engine.world.destroy_entity(second)

        engine.events.subscribe(EntityDestroyedEvent, chain)
        engine.events.emit(Doom(first))
        await engine.dispatch_events()
        assert destroyed == [first, second]
        assert engine.events.pending == 0
        assert not engine.world.entity_exists(first)
        assert not engine.world.entity_exists(second)
        assert engine.world.count(Hp) == 1
        assert engine.world.entity_exists(survivor)


async def test_a_handler_destroy_reaches_the_world_service_index() -> None:
    engine = GameEngine(Settings(), clock=ManualClock(), packs=[StdlibContentPack], use_store=False)
    async with engine.lifespan():
        ws = engine.services.get(WorldService)
        hall = engine.world.create_entity(Room(key="t:hall", name="Hall"))
        cellar = engine.world.create_entity(Room(key="t:cellar", name="Cellar"))
        ws.register_room(hall)
        ws.register_room(cellar)
        npc = engine.world.create_entity(NPC())
        ws.place(npc, "t:hall")
        await engine.dispatch_events()
        assert ws.room_key_of(npc) == "t:hall"
        assert ws.count_in("t:hall") == 1
        announced: list[UUID] = []
        engine.events.subscribe(EntityDestroyedEvent, lambda e: announced.append(e.entity_id))
        engine.events.subscribe(Doom, lambda e: engine.world.destroy_entity(e.victim))

        engine.events.emit(Doom(npc))
        engine.events.emit(Doom(cellar))
        await engine.dispatch_events()
        assert announced == [npc, cellar]
        assert ws.room_key_of(npc) is None
        assert ws.count_in("t:hall") == 0
        assert ws.contents("t:hall") == []
        assert not ws.has_room("t:cellar")
        assert ws.room_keys() == ["t:hall"]


class Emitter(System):
    phase = "combat"

    async def update(self, delta: float) -> None:
        for i in range(3):
            self.engine.events.emit(Ping(i))


async def test_events_emitted_during_a_tick_reach_handlers_in_order() -> None:
    engine = engine_with(Emitter())
    got: list[tuple[str, int]] = []

    async def async_handler(e: Ping) -> None:
        got.append(("async", e.n))
        if e.n == 0:
            engine.events.emit(Ping(100))  # emitted while dispatching: delivered after

    def failing(e: Ping) -> None:
        raise ValueError("handler bug")

    engine.events.subscribe(Ping, lambda e: got.append(("sync", e.n)))
    engine.events.subscribe(Ping, failing)
    engine.events.subscribe(Ping, async_handler)
    async with engine.lifespan():
        await engine.run_ticks(1)
    assert [n for kind, n in got if kind == "sync"] == [0, 1, 2, 100]
    assert [n for kind, n in got if kind == "async"] == [0, 1, 2, 100]
    assert engine.events.handler_errors == 4
    # Operators read both on /metrics, counted as the bus counts them.
    sample = engine.metrics.registry.get_sample_value
    assert sample("maid_event_handler_errors_total") == 4
    assert sample("maid_events_dispatched_total") == engine.events.dispatched >= 4


async def test_publish_awaits_handlers_now() -> None:
    engine = engine_with()
    got: list[int] = []
    engine.events.subscribe(Ping, lambda e: got.append(e.n))
    async with engine.lifespan():
        await engine.events.publish(Ping(7))
        assert got == [7]


class Clocked(System):
    phase = "living"

    def __init__(self) -> None:
        self.deltas: list[float] = []

    async def update(self, delta: float) -> None:
        self.deltas.append(delta)


async def test_manual_clock_steps_game_time() -> None:
    sys = Clocked()
    clock = ManualClock(tick_game_seconds=60.0, game_time=0.0)
    engine = GameEngine(Settings(), clock=clock, packs=[], use_store=False)
    engine.add_system(sys)
    async with engine.lifespan():
        await engine.run_ticks(60)
    assert sys.deltas == [60.0] * 60
    assert clock.game_time == GAME_HOUR
    clock.skip(23 * GAME_HOUR)
    assert clock.game_day == 1
    assert str(clock.time_of_day()) == "day 2, 00:00"


async def test_get_system_by_type() -> None:
    obs = Observer()
    engine = engine_with(obs)
    assert engine.get_system(Observer) is obs
    with pytest.raises(LookupError):
        engine.get_system(Boom)


class Worker(System):
    """Works ``work[i]`` pacer seconds in its i-th tick, records when each tick
    started, and stops the loop after the last one."""

    phase = "living"

    def __init__(self, pacer: ManualPacer, stop: asyncio.Event, work: list[float]) -> None:
        self.pacer, self.stop, self.work = pacer, stop, work
        self.starts: list[float] = []

    async def update(self, delta: float) -> None:
        self.starts.append(self.pacer.now)
        self.pacer.advance(self.work[len(self.starts) - 1])
        if len(self.starts) == len(self.work):
            self.stop.set()


async def run_paced(work: list[float], tick_rate: float = 4) -> tuple[GameEngine, Worker]:
    """Run the real loop on a ManualPacer (the clock moves only by the work done and
    the waits the loop asks for: nothing sleeps)."""
    stop, pacer = asyncio.Event(), ManualPacer(now=100.0)
    worker = Worker(pacer, stop, work)
    engine = engine_with(worker)
    engine.settings.tick_rate = tick_rate
    async with engine.lifespan():
        await asyncio.wait_for(engine.run(stop, pacer=pacer), timeout=10)
    return engine, worker


# Binary fractions of the 0.25 s interval keep the arithmetic exact.
WORK = 1 / 64


async def test_normal_ticks_are_spaced_by_the_interval() -> None:
    engine, worker = await run_paced([WORK] * 5)
    assert worker.starts == [100.0, 100.25, 100.5, 100.75, 101.0]
    assert engine.tick_overruns == 0


async def test_one_long_tick_is_counted_and_not_followed_by_a_catch_up_burst() -> None:
    # The second tick takes three intervals: two tick starts were missed.
    engine, worker = await run_paced([WORK, 0.75, WORK, WORK, WORK, WORK])
    # The next tick starts at once when the long one ends, then the grid restarts
    # from there; a catch-up burst would start ticks 3 and 4 at ~101.0 as well.
    assert worker.starts == [100.0, 100.25, 101.0, 101.25, 101.5, 101.75]
    assert engine.tick_overruns == 1
    assert "maid_tick_overruns_total 1.0" in engine.metrics.render().decode()


async def test_a_backlog_under_one_interval_is_caught_up_keeping_the_grid() -> None:
    # 0.375 s is 1.5 intervals: the next tick starts at once, the one after that
    # is back on the original grid.
    engine, worker = await run_paced([WORK, 0.375, WORK, WORK])
    assert worker.starts == [100.0, 100.25, 100.625, 100.75]
    assert engine.tick_overruns == 1


async def test_every_overrun_is_counted() -> None:
    engine, worker = await run_paced([0.5] * 4)
    assert engine.tick_overruns == 4
    # Each tick ends two intervals after its start: more than one interval
    # behind, so none is caught up and the ticks run back to back.
    assert worker.starts == [100.0, 100.5, 101.0, 101.5]


async def test_the_real_pacer_wakes_up_when_stopped_and_yields_at_zero() -> None:
    pacer, stop = RealPacer(), asyncio.Event()
    stop.set()
    # An hour's wait ends at once when stop is set (the test times out otherwise).
    await asyncio.wait_for(pacer.wait(3600, stop), timeout=5)
    ran: list[int] = []

    async def other() -> None:
        ran.append(1)

    task = asyncio.create_task(other())
    await pacer.wait(0, asyncio.Event())
    assert ran == [1]
    await task


async def test_start_freezes_the_loaded_world_out_of_the_gc_and_stop_unfreezes() -> None:
    import gc

    engine = GameEngine(Settings(gc_freeze=True), clock=ManualClock(), packs=[], use_store=False)
    entity = engine.world.create_entity()
    before = gc.get_freeze_count()
    async with engine.lifespan():
        assert gc.get_freeze_count() > before
        assert engine.world.entity_exists(entity)
    assert gc.get_freeze_count() == 0


async def test_gc_freeze_can_be_turned_off() -> None:
    import gc

    engine = GameEngine(Settings(gc_freeze=False), clock=ManualClock(), packs=[], use_store=False)
    async with engine.lifespan():
        assert gc.get_freeze_count() == 0
