"""A checkpoint collected in pieces between ticks (maid_engine.changes).

Two properties: the work is incremental -- each piece turns at most its budget of
changed entities into JSON, and the whole collection about what changed, never the
world -- and the result is consistent: whatever happens between the pieces, the
change set a collection finishes with, applied to what is on disk, gives the world
as it is at that instant. So items moved between holders while a checkpoint is
being collected are never on disk twice nor nowhere.
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from maid_engine.changes import ChangeCollector, CollectedChanges
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.ecs import Component, World
from maid_engine.ecs.component import dump_component
from maid_engine.engine import GameEngine


@dataclass
class Bag(Component):
    items: list[str] = field(default_factory=list)


@dataclass
class Mood(Component):
    level: int = 0


@dataclass
class Badge(Component):
    text: str = ""


@dataclass
class Scratchpad(Component):
    persist = False
    value: int = 0


Disk = dict[UUID, dict[str, dict[str, Any]]]


def snapshot(world: World) -> Disk:
    """What a full write of the world would put on disk."""
    return {
        uid: {c.component_name: dump_component(c) for c in world.components_of(uid) if c.persist}
        for uid in world.entities()
        if world.is_persistent(uid)
    }


def decoded(comps: dict[str, Any]) -> dict[str, Any]:
    """Staged components as the data they hold (most are staged as JSON text, UTF-8)."""
    return {name: json.loads(d) if isinstance(d, bytes) else d for name, d in comps.items()}


def apply(disk: Disk, collected: CollectedChanges | None) -> None:
    """What EntityStore.save does with a change set (upserts, removed, destroyed)."""
    if collected is None:
        return
    for uid, comps in collected.upserts.items():
        disk.setdefault(uid, {}).update(decoded(comps))
    for uid, name in collected.removed:
        disk.get(uid, {}).pop(name, None)
    for uid in collected.destroyed:
        disk.pop(uid, None)


def items_on(disk: Disk) -> list[str]:
    return sorted(i for comps in disk.values() for i in comps.get("Bag", {}).get("items", []))


def populated(n: int) -> tuple[World, list[UUID]]:
    world = World()
    uids = [world.create_entity(Bag(), Mood()) for _ in range(n)]
    world.take_changed_parts()  # as if loaded: all on disk
    return world, uids


def test_each_piece_stages_at_most_its_budget_and_the_whole_only_what_changed() -> None:
    world, uids = populated(1000)
    collector = ChangeCollector(world)
    for uid in uids[:600]:
        world.get_component(uid, Mood).level += 1
    assert collector.step(250) == 250
    assert collector.staged_components == 250  # one changed component each
    assert collector.pending == 350
    assert collector.step(250) == 250
    assert collector.staged_components == 500
    assert collector.pending == 100
    assert not collector.ready(99)
    # All 600 change again (the 500 staged and the 100 pending), five others change
    # for the first time.
    for uid in uids[:600] + uids[900:905]:
        world.get_component(uid, Mood).level += 1
    # The estimate counts the 100 pending twice (they are dirty again too).
    assert not collector.ready(704)
    assert collector.ready(705)
    collected = collector.finish()
    assert collected is not None
    # The last piece stages each of the 605 changed entities once; the 395 that
    # never changed were never visited.
    assert collector.staged_components == 500 + 605
    assert len(collected.upserts) == 605
    assert all(set(comps) == {"Mood"} for comps in collected.upserts.values())
    assert not collector.active
    assert collector.pending == 0
    assert collector.finish() is None  # nothing changed since


def test_a_piece_in_slices_stops_when_told_and_resumes_with_what_changed_between() -> None:
    world, uids = populated(100)
    collector = ChangeCollector(world)
    for uid in uids[:60]:
        world.get_component(uid, Mood).level += 1
    calls = [0]

    def after_three() -> bool:
        calls[0] += 1
        return calls[0] % 3 == 0

    assert collector.step(50, after_three) == 3
    assert (collector.pieces, collector.pending) == (1, 57)
    # Between two slices a command changes the 60 again (3 of them staged) and
    # a new one.
    for uid in uids[:60] + uids[99:]:
        world.get_component(uid, Mood).level += 1
    assert collector.resume(47, after_three) == 3
    assert collector.pieces == 1  # the same piece
    # Taken: the 57 left, the 3 to stage again and the new one, 3 of them staged.
    assert collector.pending == 58
    assert collector.resume(100) == 58
    collected = collector.finish()
    assert collected is not None
    assert len(collected.upserts) == 61
    assert all(
        decoded(comps)["Mood"]["level"] == world.get_component(uid, Mood).level
        for uid, comps in collected.upserts.items()
    )
    assert collector.staged_components == 64  # the first 3 twice


def test_a_big_take_is_merged_into_the_collection_a_slice_at_a_time() -> None:
    world, uids = populated(1000)
    collector = ChangeCollector(world)
    collector.merge_slice = 100
    for uid in uids:
        world.get_component(uid, Mood).level += 1
    asked = [0]

    def always() -> bool:
        asked[0] += 1
        return True

    # Five seconds of changes are taken at once and merged 100 at a time, a
    # question to ``enough`` after each hundred: ten slices stage nothing.
    assert collector.step(50, always) == 0
    for slices in range(1, 10):
        assert asked[0] == slices
        assert collector.pending == 1000
        assert collector.resume(50, always) == 0
    assert collector.pending == 1000
    assert not collector.ready(999)
    # The eleventh finds them merged and stages (one, as ``enough`` says).
    assert collector.resume(50, always) == 1
    assert collector.pending == 999
    collected = collector.finish()
    assert collected is not None
    assert len(collected.upserts) == 1000
    assert collector.staged_components == 1000


def test_an_entity_scheduled_for_destruction_is_left_out_until_destroyed() -> None:
    world, uids = populated(5)
    collector = ChangeCollector(world)
    for uid in uids:
        world.get_component(uid, Mood).level += 1
    assert collector.step(5) == 5
    doomed = uids[0]
    world.destroy_entity(doomed)  # scheduled: the next safe point destroys it
    scheduled = world.destruction_scheduled
    assert doomed in scheduled
    collected = collector.finish()
    assert collected is not None
    assert set(collected.upserts) == set(uids[1:])
    assert collected.destroyed == []
    world.flush_destroyed()
    assert not world.destruction_scheduled
    assert not scheduled  # a view taken before the flush is not left stale
    collected = collector.finish()
    assert collected is not None
    assert collected.upserts == {}
    assert collected.destroyed == [doomed]


def test_a_new_entity_is_staged_whole_and_a_runtime_component_never() -> None:
    world, _ = populated(3)
    collector = ChangeCollector(world)
    uid = world.create_entity(Bag(["rope"]), Mood(2), Scratchpad(1))
    collector.step(10)
    collected = collector.finish()
    assert collected is not None
    assert {u: decoded(c) for u, c in collected.upserts.items()} == {
        uid: {"Bag": {"items": ["rope"]}, "Mood": {"level": 2}}
    }


@dataclass
class Reading(Component):
    value: float = 0.0
    note: str | None = "steady"


@dataclass
class Sample:
    at: float = 0.0
    by: str | None = None


@dataclass
class Samples(Component):
    """Floats in nested, typed places: pydantic writes a NaN there as NaN."""

    taken: dict[str, Sample] = field(default_factory=dict)
    weights: list[float] = field(default_factory=list)


@dataclass
class Loose(Component):
    """A field with no float type: pydantic writes a NaN there as null."""

    extra: dict[str, Any] = field(default_factory=dict)


def staged_after_one_collection(*components: Component) -> dict[str, Any]:
    world = World()
    uid = world.create_entity(*components)
    collector = ChangeCollector(world)
    collector.step(10)
    collected = collector.finish()
    assert collected is not None
    return collected.upserts[uid]


def test_staged_components_are_json_text() -> None:
    """A checkpoint keeps what it collected until the write: as text, not as the
    objects (about a third of the memory), None fields included."""
    staged = staged_after_one_collection(
        Bag(["rope"]), Reading(1.0, None), Samples({"a": Sample(0.5)}, [1.5]), Loose({"k": 1})
    )
    assert staged["Bag"] == b'{"items":["rope"]}'
    assert json.loads(staged["Reading"]) == {"value": 1.0, "note": None}
    assert json.loads(staged["Samples"]) == {
        "taken": {"a": {"at": 0.5, "by": None}},
        "weights": [1.5],
    }
    assert all(type(text) is bytes for text in staged.values())
    # Nothing of it for the cyclic garbage collector to walk while it waits.
    assert not any(gc.is_tracked(text) for text in staged.values())
    assert not gc.is_tracked(staged)


@pytest.mark.parametrize(
    "component",
    [
        Reading(math.nan),
        Reading(math.inf, None),
        Samples({"a": Sample(-math.inf)}),
        Samples(weights=[1.0, math.nan]),
    ],
    ids=["float", "float-and-none", "nested", "list"],
)
def test_a_nan_in_a_float_is_staged_as_data_for_the_store_to_refuse(component: Component) -> None:
    """pydantic writes a NaN in a float field as NaN: the component is staged as
    data, and the store's encoder refuses it at the write
    (tests/engine/test_commit_now.py) instead of a NaN being written as null."""
    (data,) = staged_after_one_collection(component).values()
    assert isinstance(data, dict)
    with pytest.raises(ValueError, match="JSON"):
        json.dumps(data, allow_nan=False)


def test_text_that_cannot_be_utf8_is_staged_as_data_not_raised() -> None:
    """A lone surrogate (JSON from outside may carry one) cannot be encoded: the
    collection, under the world lock between ticks, stages the data instead of
    raising, and the write fails on it as it did before components were staged as
    text (the changes then go back to the world)."""
    (data,) = staged_after_one_collection(Badge("a\ud800b")).values()
    assert data == {"text": "a\ud800b"}


def test_a_nan_where_no_type_says_float_is_written_as_null_as_it_always_was() -> None:
    """pydantic's JSON mode (the data the store encoded before components were
    staged as text) writes it as null too: nothing changed for it."""
    (text,) = staged_after_one_collection(Loose({"k": [math.inf]})).values()
    assert text == b'{"extra":{"k":[null]}}'
    assert dump_component(Loose({"k": [math.inf]})) == {"extra": {"k": [None]}}


def random_change(world: World, rng: random.Random, holders: list[UUID], serial: list[int]) -> None:
    """One of the things a tick or a command does to the world."""
    live = [u for u in holders if world.entity_exists(u)]
    roll = rng.random()
    if roll < 0.35:
        # a trade: an item moves between two holders, reported after the change
        giver, taker = rng.sample(live, 2)
        bag_g, bag_t = world.get_component(giver, Bag), world.get_component(taker, Bag)
        if bag_g.items:
            bag_t.items.append(bag_g.items.pop(rng.randrange(len(bag_g.items))))
            world.modified(giver, bag_g)
            world.modified(taker, bag_t)
    elif roll < 0.6:
        world.get_component(rng.choice(live), Mood).level = rng.randrange(100)
    elif roll < 0.7:
        uid = rng.choice(live)
        if world.has_component(uid, Badge):
            world.remove_component(uid, Badge)
        else:
            world.add_component(uid, Badge(f"b{rng.randrange(9)}"))
    elif roll < 0.8:
        # a holder leaves, handing its items to another first
        if len(live) > 4:
            gone, heir = rng.sample(live, 2)
            bag_h = world.get_component(heir, Bag)
            bag_h.items.extend(world.get_component(gone, Bag).items)
            world.get_component(gone, Bag).items = []
            world.modified(heir, bag_h)
            world.destroy_entity(gone)
    elif roll < 0.9:
        serial[0] += 1
        holders.append(world.create_entity(Bag(), Mood(), Scratchpad(serial[0])))
    else:
        world.get_component(rng.choice(live), Scratchpad).value += 1
    if rng.random() < 0.3:
        world.flush_destroyed()  # the engine's safe point between systems


@pytest.mark.parametrize("merged", ["whole", "in slices"])
@pytest.mark.parametrize("seed", range(8))
def test_whatever_happens_between_pieces_the_write_is_the_world_at_the_finish(
    seed: int, merged: str
) -> None:
    rng = random.Random(seed)
    world = World()
    holders = [world.create_entity(Bag([f"item{i}"]), Mood(), Scratchpad()) for i in range(40)]
    all_items = items_on(snapshot(world))
    disk: Disk = {}
    collector = ChangeCollector(world)

    def coin() -> bool:
        return rng.random() < 0.5

    enough: Callable[[], bool] | None = None
    if merged == "in slices":
        # What was taken is merged two entities at a time, a slice often ending
        # half-way through one take with the next taken after it.
        collector.merge_slice = 2
        enough = coin

    serial = [0]
    for checkpoint in range(12):
        for _ in range(rng.randrange(1, 8)):
            for _ in range(rng.randrange(0, 6)):
                random_change(world, rng, holders, serial)
            collector.step(rng.randrange(1, 6), enough)
        for _ in range(rng.randrange(0, 4)):
            random_change(world, rng, holders, serial)
        world.flush_destroyed()
        collected = collector.finish()
        if checkpoint % 4 == 3 and collected is not None:
            # The write fails: nothing reaches the disk, the next one retries it all.
            collected.hand_back(world)
            continue
        apply(disk, collected)
        assert disk == snapshot(world), f"checkpoint {checkpoint}"
        # Never an item twice, never one lost.
        assert items_on(disk) == all_items


def settings(tmp_path: Path, db_url: str, **kw: Any) -> Settings:
    return Settings(data_dir=tmp_path, database_url=db_url, gc_freeze=False, **kw)


async def on_disk(engine: GameEngine) -> Disk:
    return await engine.store.entities.load_all()


async def all_moods_changed(engine: GameEngine, count: int, level: int) -> list[UUID]:
    """``count`` entities, each with a bag and a mood, saved, then every mood changed."""
    world = engine.world
    uids = [world.create_entity(Bag([f"i{n}"]), Mood()) for n in range(count)]
    await engine.checkpoint()
    for uid in uids:
        world.get_component(uid, Mood).level = level
    return uids


def piece_engine(tmp_path: Path, db_url: str, **kw: Any) -> tuple[GameEngine, list[float]]:
    """An engine checkpointing every 5 s in pieces (``kw``: more settings), on a
    real time the test steps (see ``stepped``)."""
    s = settings(tmp_path, db_url, checkpoint_interval=5, **kw)
    engine = GameEngine(s, clock=ManualClock(), packs=[])
    return engine, stepped(engine)


def stepped(engine: GameEngine) -> list[float]:
    """The engine's real time, stepped by the test: ``now[0] += 10``."""
    now = [0.0]
    engine.real_time = lambda: now[0]
    return now


async def test_the_engine_collects_a_checkpoint_between_ticks_in_pieces(
    tmp_path: Path, db_url: str
) -> None:
    engine, now = piece_engine(tmp_path, db_url, checkpoint_piece=50)
    async with engine.lifespan():
        world = engine.world
        uids = await all_moods_changed(engine, 180, level=1)
        staged = engine.changes.staged_components
        now[0] += 10  # the checkpoint is due
        await engine.between_ticks()
        assert engine.changes.active
        assert engine.changes.staged_components - staged == 50
        # A trade between pieces, then the rest: 180 changed, 50 a piece -> 3 pieces
        # and the last one.
        bag0, bag1 = world.get_component(uids[0], Bag), world.get_component(uids[179], Bag)
        bag1.items.append(bag0.items.pop())
        world.modified(uids[0], bag0)
        world.modified(uids[179], bag1)
        pieces = 1
        while engine.changes.active:
            async with engine.world_lock:
                await engine.between_ticks()  # a command holds the world: no piece
            await engine.between_ticks()
            pieces += 1
        assert pieces == 4
        # 180 Moods and the two Bags, each once: a Bag changed after its holder's Mood
        # was staged is staged alone, else with the Mood.
        assert engine.changes.staged_components - staged == 182
        task = engine._checkpoint_task
        assert task is not None
        await task
        disk = await on_disk(engine)
        assert disk[uids[0]]["Bag"]["items"] == []
        assert disk[uids[179]]["Bag"]["items"] == ["i179", "i0"]
        assert all(disk[u]["Mood"]["level"] == 1 for u in uids)
        assert engine.metrics.checkpoint_collect_longest > 0


class Ticking:
    """The engine's real time, moving ``step`` seconds each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0
        self.step = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


async def test_a_command_has_the_world_between_two_slices_of_a_piece(
    tmp_path: Path, db_url: str
) -> None:
    s = settings(
        tmp_path, db_url, checkpoint_interval=5, checkpoint_piece=50, checkpoint_slice=0.001
    )
    engine = GameEngine(s, clock=ManualClock(), packs=[])
    clock = Ticking()
    engine.real_time = clock
    async with engine.lifespan():
        uids = await all_moods_changed(engine, 180, level=2)
        staged = engine.changes.staged_components
        seen: list[int] = []

        async def command() -> None:
            async with engine.world_lock.command():
                seen.append(engine.changes.staged_components - staged)
                for uid in uids:
                    engine.world.get_component(uid, Mood).level = 3

        waiting: list[asyncio.Task[None]] = []
        step = engine.changes.step

        def step_as_a_command_comes_in(*args: Any) -> int:
            if not waiting:  # in the first piece's first slice
                waiting.append(asyncio.create_task(command()))
            return step(*args)

        engine.changes.step = step_as_a_command_comes_in  # type: ignore[method-assign,assignment]
        # What was taken is merged in one go (no question to the clock): the
        # slices counted here are the staging's.
        engine.changes.merge_slice = 1000
        clock.now += 10  # the checkpoint is due
        clock.step = 0.0004  # a slice of 1 ms ends after its third entity
        await engine.between_ticks()
        await waiting[0]
        # The command came in during the first slice: it ran after it, not after
        # the piece...
        assert seen == [3]
        # ...and the piece went on to its 50 entities, in one piece; the three
        # staged before the command changed them are to be staged again.
        assert engine.changes.staged_components - staged == 50
        assert engine.changes.pieces == 1
        assert engine.changes.pending == 180 - 50 + 3
        # The rest, gap after gap (50, 50, 33); the collection ends once what is
        # left fits one slice, and the write is the world at that instant.
        gaps = 1
        while engine.changes.active:
            await engine.between_ticks()
            gaps += 1
        assert gaps == 4
        assert engine.changes.staged_components - staged == 183
        task = engine._checkpoint_task
        assert task is not None
        await task
        disk = await on_disk(engine)
        assert all(disk[u]["Mood"]["level"] == 3 for u in uids)


async def test_a_command_waiting_as_the_tick_ends_runs_before_the_piece(
    tmp_path: Path, db_url: str
) -> None:
    engine, now = piece_engine(tmp_path, db_url, checkpoint_piece=50)
    async with engine.lifespan():
        await all_moods_changed(engine, 180, level=2)
        staged = engine.changes.staged_components
        seen: list[int] = []

        async def command() -> None:
            async with engine.world_lock.command():
                seen.append(engine.changes.staged_components - staged)

        now[0] += 10  # the checkpoint is due
        async with engine.world_lock.first():  # the tick holds the world ...
            waiting = asyncio.create_task(command())
            await asyncio.sleep(0)  # ... as a command comes in
        await engine.between_ticks()
        await waiting
        assert seen == [0]  # it had the world before any of the piece
        assert engine.changes.staged_components - staged == 50


async def test_a_commit_while_a_checkpoint_is_collected_writes_it_whole(
    tmp_path: Path, db_url: str
) -> None:
    engine, now = piece_engine(tmp_path, db_url, checkpoint_piece=10)
    async with engine.lifespan():
        uids = await all_moods_changed(engine, 40, level=7)
        now[0] += 10
        await engine.between_ticks()
        assert engine.changes.active
        assert engine.changes.pending == 30
        async with engine.world_lock:
            written = await engine.commit_now()
        assert written == 40
        assert not engine.changes.active
        disk = await on_disk(engine)
        assert all(disk[u]["Mood"]["level"] == 7 for u in uids)


async def test_a_checkpoint_in_one_piece_when_pieces_are_off(tmp_path: Path, db_url: str) -> None:
    engine, now = piece_engine(tmp_path, db_url, checkpoint_piece=0)
    async with engine.lifespan():
        uids = [engine.world.create_entity(Mood(3)) for _ in range(30)]
        now[0] += 10
        await engine.between_ticks()
        assert not engine.changes.active
        task = engine._checkpoint_task
        assert task is not None
        await task
        disk = await on_disk(engine)
        assert all(disk[u]["Mood"]["level"] == 3 for u in uids)


async def test_a_collection_that_does_not_converge_is_finished_after_the_last_piece(
    tmp_path: Path, db_url: str
) -> None:
    engine, now = piece_engine(tmp_path, db_url, checkpoint_piece=5, checkpoint_max_pieces=3)
    async with engine.lifespan():
        uids = [engine.world.create_entity(Mood()) for _ in range(50)]
        await engine.checkpoint()
        now[0] += 10
        for n in range(4):
            # Everything changes between every two pieces: the pending part never
            # fits one piece.
            for uid in uids:
                engine.world.get_component(uid, Mood).level = n + 1
            await engine.between_ticks()
            assert engine.changes.active == (n < 3)
        task = engine._checkpoint_task
        assert task is not None
        await task
        disk = await on_disk(engine)
        assert all(disk[u]["Mood"]["level"] == 4 for u in uids)
