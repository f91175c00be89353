"""CollectorPolicy (maid_engine.collector): freezing, the refreeze/deep schedule on an
injected clock, handing the process's collector back, and the engine's use of it
(GameEngine.between_ticks, the maid_gc_pause_seconds histogram).

The collector is process-wide: the ``gc_state`` fixture stops every policy a test
made and restores the thresholds, the freeze and gc.enable() even if it fails."""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from maid_engine.clock import ManualClock
from maid_engine.collector import CollectorPolicy
from maid_engine.config import Settings
from maid_engine.engine import GameEngine

#: A custom threshold set before each test, so "restored exactly" means something.
CUSTOM = (650, 9, 11)


class FakeMonotonic:
    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


PolicyFactory = Callable[..., CollectorPolicy]


@pytest.fixture
def gc_state() -> Iterator[list[CollectorPolicy]]:
    """Policies to stop at teardown; the collector's state is put back whatever happens."""
    assert gc.get_freeze_count() == 0, "an earlier test left the collector frozen"
    saved, enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(*CUSTOM)
    policies: list[CollectorPolicy] = []
    try:
        yield policies
    finally:
        for policy in policies:
            policy.stop()
        gc.unfreeze()
        gc.set_threshold(*saved)
        if enabled:
            gc.enable()


@pytest.fixture
def make(gc_state: list[CollectorPolicy]) -> PolicyFactory:
    def factory(**kw: Any) -> CollectorPolicy:
        policy = CollectorPolicy(**kw)
        gc_state.append(policy)
        return policy

    return factory


def is_frozen(obj: object) -> bool:
    """Tracked by the collector but in none of its three generations."""
    assert gc.is_tracked(obj)
    return not any(o is obj for o in gc.get_objects())


class Node:
    other: Any = None  # an instance in a reference cycle, watched through a weakref


def cycle() -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


# -- start / stop -----------------------------------------------------------------------


def test_start_freezes_and_raises_the_third_threshold_stop_restores(make: PolicyFactory) -> None:
    policy = make(refreeze_interval=10, deep_interval=0, monotonic=FakeMonotonic())
    assert not policy.active
    policy.start()
    assert policy.active
    assert gc.get_freeze_count() > 0
    first, second, third = gc.get_threshold()
    assert (first, second) == CUSTOM[:2]  # young collections stay automatic
    assert third >= 1 << 30
    policy.stop()
    assert not policy.active
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == CUSTOM


def test_young_runs_sets_the_second_threshold_and_a_full_collection_stays_as_far(
    make: PolicyFactory,
) -> None:
    """The middle generation is collected after ``young_runs`` young collections;
    a full collection still falls due after as many young collections as before
    (CUSTOM: 9 x 11 = 99, now 33 middle ones of 3)."""
    clock = FakeMonotonic(1000.0)
    policy = make(refreeze_interval=3600.0, deep_interval=0.0, monotonic=clock, young_runs=3)
    gc.disable()
    policy.start()
    first, second, third = gc.get_threshold()
    assert (first, second) == (CUSTOM[0], 3)
    assert third >= 1 << 30
    clock.now += 10.0
    for _ in range(32):
        gc.collect(1)
    assert policy.maintain() is None
    gc.collect(1)
    record = policy.maintain()
    assert record is not None
    assert record.kind == "collect"
    policy.stop()
    assert gc.get_threshold() == CUSTOM
    with pytest.raises(ValueError, match="young_runs"):
        CollectorPolicy(young_runs=0)


def test_start_and_stop_twice_are_harmless(make: PolicyFactory) -> None:
    policy = make(monotonic=FakeMonotonic())
    policy.start()
    policy.start()
    policy.stop()
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == CUSTOM
    policy.stop()
    assert gc.get_threshold() == CUSTOM


def test_the_last_of_two_policies_to_stop_gives_the_collector_back(make: PolicyFactory) -> None:
    first, second = make(monotonic=FakeMonotonic()), make(monotonic=FakeMonotonic())
    first.start()
    second.start()
    assert gc.get_threshold()[2] >= 1 << 30
    first.stop()
    first.stop()  # a second stop must not release the other's hold
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[2] >= 1 << 30
    second.stop()
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == CUSTOM


# -- the schedule -------------------------------------------------------------------


def test_maintain_runs_refreezes_and_deep_collections_when_due(make: PolicyFactory) -> None:
    clock = FakeMonotonic(1000.0)
    policy = make(refreeze_interval=10, deep_interval=100, monotonic=clock)
    assert policy.maintain() is None  # not started
    policy.start()
    kinds = []
    for now in (1000, 1009.9, 1010, 1015, 1020, 1099, 1100, 1109.5, 1110, 1200):
        clock.now = now
        due = policy.due()
        record = policy.maintain()
        assert due == (record is not None)
        kinds.append(None if record is None else record.kind)
    # A deep collection restarts the refreeze schedule too (1109.5 < 1100 + 10).
    assert kinds == [
        None,
        None,
        "refreeze",
        None,
        "refreeze",
        "refreeze",
        "deep",
        None,
        "refreeze",
        "deep",
    ]
    assert [r.kind for r in policy.history] == [k for k in kinds if k is not None]
    assert all(r.seconds >= 0 and r.collected >= 0 for r in policy.history)
    assert gc.get_freeze_count() > 0
    policy.stop()
    clock.now = 5000
    assert policy.maintain() is None  # stopped


def test_a_refreeze_freezes_what_survived_since_start(make: PolicyFactory) -> None:
    clock = FakeMonotonic()
    policy = make(refreeze_interval=5, deep_interval=0, monotonic=clock)
    policy.start()
    survivor = [object()]
    assert not is_frozen(survivor)
    clock.now = 5
    record = policy.maintain()
    assert record is not None
    assert record.kind == "refreeze"
    assert is_frozen(survivor)
    assert gc.get_freeze_count() > 0


def test_deep_interval_zero_means_never(make: PolicyFactory) -> None:
    clock = FakeMonotonic()
    policy = make(refreeze_interval=1, deep_interval=0, monotonic=clock)
    policy.start()
    for now in (1.0, 1e6, 1e9):
        clock.now = now
        record = policy.maintain()
        assert record is not None
        assert record.kind == "refreeze"


def test_history_keeps_the_latest_sixteen(make: PolicyFactory) -> None:
    clock = FakeMonotonic()
    policy = make(refreeze_interval=1, deep_interval=0, monotonic=clock)
    policy.start()
    records = []
    for now in range(1, 21):
        clock.now = now
        records.append(policy.maintain())
    assert len(policy.history) == 16
    assert policy.history == records[-16:]


def test_use_clock_restarts_the_schedule(make: PolicyFactory) -> None:
    old = FakeMonotonic()
    policy = make(refreeze_interval=10, deep_interval=30, monotonic=old)
    policy.start()
    old.now = 8
    new = FakeMonotonic(500.0)
    policy.use_clock(new)
    old.now = 10_000  # no longer read
    assert policy.maintain() is None
    new.now = 509
    assert policy.maintain() is None
    new.now = 510
    assert policy.maintain().kind == "refreeze"  # type: ignore[union-attr]
    new.now = 519
    assert policy.maintain() is None
    new.now = 530
    assert policy.maintain().kind == "deep"  # type: ignore[union-attr]


# -- what the collections free ----------------------------------------------------------


def test_a_refreeze_collects_cyclic_garbage_made_after_start(make: PolicyFactory) -> None:
    clock = FakeMonotonic()
    policy = make(refreeze_interval=5, deep_interval=0, monotonic=clock)
    policy.start()
    gc.disable()  # only the policy collects (the fixture re-enables)
    ref = cycle()
    assert ref() is not None  # a cycle: reference counting alone cannot free it
    clock.now = 4
    assert policy.maintain() is None
    assert ref() is not None
    clock.now = 5
    record = policy.maintain()
    assert record is not None
    assert record.kind == "refreeze"
    assert ref() is None
    assert record.collected >= 2


def test_only_a_deep_collection_frees_cycles_that_were_frozen_alive(
    make: PolicyFactory,
) -> None:
    clock = FakeMonotonic()
    policy = make(refreeze_interval=5, deep_interval=20, monotonic=clock)
    holder = [Node()]
    holder[0].other = holder[0]  # a self cycle, alive while ``holder`` holds it
    ref = weakref.ref(holder[0])
    policy.start()  # freezes the live cycle
    gc.disable()
    holder.clear()  # now garbage, but frozen
    clock.now = 5
    assert policy.maintain().kind == "refreeze"  # type: ignore[union-attr]
    assert ref() is not None  # the permanent generation is not traversed
    clock.now = 20
    assert policy.maintain().kind == "deep"  # type: ignore[union-attr]
    assert ref() is None
    assert gc.get_freeze_count() > 0  # frozen again afterwards


# -- the engine ---------------------------------------------------------------------------


def pauses(engine: GameEngine, kind: str) -> float:
    sample = engine.metrics.registry.get_sample_value("maid_gc_pause_seconds_count", {"kind": kind})
    return sample or 0.0


def gc_engine(clock: ManualClock, **settings: Any) -> GameEngine:
    return GameEngine(Settings(**settings), clock=clock, packs=[], use_store=False)


async def test_between_ticks_runs_due_collections_and_counts_them(
    gc_state: list[CollectorPolicy],
) -> None:
    clock = ManualClock(tick_game_seconds=1.0)
    engine = gc_engine(clock, gc_freeze=True, gc_refreeze_interval=30, gc_deep_interval=75)
    gc_state.append(engine.collector)
    assert (engine.collector.refreeze_interval, engine.collector.deep_interval) == (30, 75)
    async with engine.lifespan():
        assert engine.collector.active
        engine.collector.use_clock(clock.monotonic)
        for _ in range(29):  # as run() does: a tick, then the housekeeping
            await engine.tick()
            await engine.between_ticks()
        assert pauses(engine, "refreeze") == 0
        await engine.tick()
        await engine.between_ticks()
        assert pauses(engine, "refreeze") == 1
        await engine.between_ticks()
        assert pauses(engine, "refreeze") == 1  # not due again yet
        clock.advance_wall(30)
        await engine.between_ticks()
        assert pauses(engine, "refreeze") == 2
        assert pauses(engine, "deep") == 0
        clock.advance_wall(15)  # 75 s since use_clock
        await engine.between_ticks()
        assert (pauses(engine, "refreeze"), pauses(engine, "deep")) == (2, 1)
        assert [r.kind for r in engine.collector.history] == ["refreeze", "refreeze", "deep"]
    assert not engine.collector.active
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == CUSTOM


async def test_without_gc_freeze_the_policy_is_inactive(gc_state: list[CollectorPolicy]) -> None:
    clock = ManualClock()
    engine = gc_engine(clock, gc_freeze=False, gc_refreeze_interval=1, gc_deep_interval=2)
    gc_state.append(engine.collector)
    async with engine.lifespan():
        assert not engine.collector.active
        engine.collector.use_clock(clock.monotonic)
        for _ in range(5):
            clock.advance_wall(10)
            await engine.between_ticks()
        assert gc.get_freeze_count() == 0
        assert gc.get_threshold() == CUSTOM
        assert engine.collector.history == []
        assert pauses(engine, "refreeze") == 0
        assert pauses(engine, "deep") == 0


def test_the_interval_settings_are_validated() -> None:
    for bad in ({"gc_refreeze_interval": 0}, {"gc_deep_interval": -1}):
        with pytest.raises(ValidationError):
            Settings.model_validate(bad)
    assert Settings(gc_deep_interval=0).gc_deep_interval == 0


def test_a_due_full_collection_runs_between_ticks_at_most_once_a_gap(make: PolicyFactory) -> None:
    """Dead cycles are freed without waiting for a refreeze once the collector's own
    count says a full collection is due, but not more often than ``collect_gap``."""
    clock = FakeMonotonic(1000.0)
    policy = make(
        refreeze_interval=3600.0,
        deep_interval=0.0,
        monotonic=clock,
        collect_gap=5.0,
        freeze_survivors=False,
    )
    gc.disable()  # nothing collects on its own during the test
    policy.start()
    a, b = Node(), Node()
    a.other, b.other = b, a
    gc.collect(1)  # the pair survives into the oldest generation ...
    dead = weakref.ref(a)
    del a, b  # ... and dies there: only a full collection frees it
    for _ in range(CUSTOM[2]):
        gc.collect(1)  # each young collection counts towards a due full one
    assert gc.get_count()[2] >= CUSTOM[2]
    clock.now += 4.0
    assert not policy.due()
    assert policy.maintain() is None  # due, but within the gap since start
    assert dead() is not None
    clock.now += 1.0
    assert policy.due()
    record = policy.maintain()
    assert record is not None
    assert record.kind == "collect"
    assert dead() is None
    frozen = gc.get_freeze_count()
    survivor = [Node()]
    for _ in range(CUSTOM[2]):
        gc.collect(1)
    clock.now += 5.0
    assert policy.maintain() is not None
    assert gc.get_freeze_count() == frozen  # a plain collection freezes nothing
    assert not is_frozen(survivor)


def due_full_collection() -> None:
    """Young collections until the collector's own count says a full one is due."""
    for _ in range(CUSTOM[2]):
        gc.collect(1)


def test_a_due_collection_freezes_its_survivors_so_the_next_visits_only_what_is_new(
    make: PolicyFactory,
) -> None:
    """With ``freeze_survivors`` (the default) each full collection between ticks
    leaves nothing behind in the oldest generation: the next one traverses only
    what was made and survived since, however long the server has run."""
    clock = FakeMonotonic(1000.0)
    policy = make(refreeze_interval=3600.0, deep_interval=0.0, monotonic=clock, collect_gap=5.0)
    assert policy.freeze_survivors
    gc.disable()
    policy.start()
    old = [Node() for _ in range(100)]
    due_full_collection()
    clock.now += 5.0
    assert policy.maintain().kind == "collect"  # type: ignore[union-attr]
    assert all(is_frozen(n) for n in old)
    # What the next collection would traverse: only objects made since.
    young = [Node() for _ in range(10)]
    tracked = {id(o) for o in gc.get_objects()}
    assert not any(id(n) in tracked for n in old)
    assert all(id(n) in tracked for n in young)
    # A cycle made since the last collection, old enough to reach the oldest
    # generation, that dies there: the next collection frees it.
    a, b = Node(), Node()
    a.other, b.other = b, a
    gc.collect(1)
    dead = weakref.ref(a)
    del a, b
    due_full_collection()
    assert dead() is not None
    clock.now += 5.0
    assert policy.maintain().kind == "collect"  # type: ignore[union-attr]
    assert dead() is None
    assert all(is_frozen(n) for n in young)


def test_freeze_survivors_is_a_setting_the_engine_passes_on() -> None:
    assert Settings().gc_freeze_survivors
    engine = GameEngine(Settings(gc_freeze_survivors=False), packs=[], use_store=False)
    assert not engine.collector.freeze_survivors


def test_young_runs_is_a_setting_the_engine_passes_on() -> None:
    assert GameEngine(Settings(), packs=[], use_store=False).collector.young_runs == 3
    engine = GameEngine(Settings(gc_young_runs=10), packs=[], use_store=False)
    assert engine.collector.young_runs == 10


def test_the_collect_gap_is_a_setting_the_engine_passes_on() -> None:
    assert GameEngine(Settings(), packs=[], use_store=False).collector.collect_gap == 5.0
    engine = GameEngine(Settings(gc_collect_gap=1.0), packs=[], use_store=False)
    assert engine.collector.collect_gap == 1.0


async def test_the_switch_interval_is_held_while_engines_run() -> None:
    before = sys.getswitchinterval()
    first = gc_engine(ManualClock(), gc_freeze=False, switch_interval=0.0005)
    second = gc_engine(ManualClock(), gc_freeze=False, switch_interval=0.0005)
    async with first.lifespan():
        assert sys.getswitchinterval() == pytest.approx(0.0005)
        async with second.lifespan():
            assert sys.getswitchinterval() == pytest.approx(0.0005)
        # The other engine still runs: it keeps the interval.
        assert sys.getswitchinterval() == pytest.approx(0.0005)
    assert sys.getswitchinterval() == pytest.approx(before)
    untouched = gc_engine(ManualClock(), gc_freeze=False, switch_interval=0)
    async with untouched.lifespan():
        assert sys.getswitchinterval() == pytest.approx(before)
    with pytest.raises(ValidationError):
        Settings.model_validate({"switch_interval": -1})


async def test_the_first_checkpoint_runs_with_the_loaded_world_frozen(
    gc_state: list[CollectorPolicy], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first checkpoint writes every entity of a new world: run before the freeze,
    its allocations set off full collections of the whole world."""
    real_checkpoint = GameEngine.checkpoint
    frozen_at_checkpoints: list[int] = []

    async def spy(self: GameEngine) -> int:
        frozen_at_checkpoints.append(gc.get_freeze_count())
        return await real_checkpoint(self)

    monkeypatch.setattr(GameEngine, "checkpoint", spy)
    engine = GameEngine(
        Settings(data_dir=tmp_path, gc_freeze=True), clock=ManualClock(), packs=["stdlib"]
    )
    gc_state.append(engine.collector)
    async with engine.lifespan():
        assert len(frozen_at_checkpoints) == 1  # the one at start-up
        assert frozen_at_checkpoints[0] > 0


async def test_a_start_whose_first_checkpoint_fails_gives_the_collector_back(
    gc_state: list[CollectorPolicy], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def failing(self: GameEngine) -> int:
        raise RuntimeError("the database said no")

    monkeypatch.setattr(GameEngine, "checkpoint", failing)
    engine = GameEngine(
        Settings(data_dir=tmp_path, gc_freeze=True), clock=ManualClock(), packs=["stdlib"]
    )
    gc_state.append(engine.collector)
    with pytest.raises(RuntimeError, match="said no"):
        await engine.start()
    await engine.stop()
    assert not engine.collector.active
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == CUSTOM


async def test_commands_waiting_at_the_ticks_end_run_before_a_collection(
    gc_state: list[CollectorPolicy],
) -> None:
    """The world is handed to a command waiting as the tick lets go; a collection
    due then (15-30 ms in a big world) waits for the loop's turns, so the command
    runs first."""
    clock = ManualClock(tick_game_seconds=1.0)
    engine = gc_engine(clock, gc_freeze=True, gc_refreeze_interval=30, gc_deep_interval=0)
    gc_state.append(engine.collector)
    seen: list[str] = []

    async def command() -> None:
        async with engine.world_lock.command():
            seen.append("command")

    async with engine.lifespan():
        engine.collector.use_clock(clock.monotonic)
        maintain = engine.collector.maintain

        def recorded() -> Any:
            seen.append("collection")
            return maintain()

        engine.collector.maintain = recorded  # type: ignore[method-assign]
        async with engine.world_lock.first():  # the tick holds the world ...
            waiting = asyncio.create_task(command())
            await asyncio.sleep(0)  # ... as a command comes in
        clock.advance_wall(30)  # a refreeze is due
        await engine.between_ticks()
        await waiting
        assert seen == ["command", "collection"]
        assert pauses(engine, "refreeze") == 1
