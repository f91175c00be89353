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
        assert len(destroyed) == 3 and set(destroyed) <= set(ids)


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
        assert engine.world.count(Hp) == 1 and engine.world.entity_exists(survivor)


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
        assert ws.room_key_of(npc) == "t:hall" and ws.count_in("t:hall") == 1
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
    engine.world.close()


class Slow(System):
    """Takes 3x the tick interval; stops the loop after a few ticks."""

    phase = "living"

    def __init__(self, stop: asyncio.Event, ticks: int) -> None:
        self.stop, self.left, self.calls = stop, ticks, 0

    async def update(self, delta: float) -> None:
        import time as _t

        self.calls += 1
        _t.sleep(0.03)  # noqa: ASYNC251 -- deliberately blocking: an overrunning system
        self.left -= 1
        if self.left == 0:
            self.stop.set()


async def test_overruns_are_counted_not_accumulated() -> None:
    import time as _t

    stop = asyncio.Event()
    slow = Slow(stop, ticks=5)
    engine = GameEngine(Settings(tick_rate=100), packs=[], use_store=False)
    engine.add_system(slow)
    async with engine.lifespan():
        t0 = _t.monotonic()
        await asyncio.wait_for(engine.run(stop), timeout=10)
        elapsed = _t.monotonic() - t0
    assert slow.calls == 5
    assert engine.tick_overruns == 5
    # No catch-up burst: 5 ticks of 30 ms each, not squeezed or multiplied.
    assert elapsed >= 0.15


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
