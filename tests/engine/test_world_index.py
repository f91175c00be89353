"""The World's storage (maid_engine.ecs.world): the order queries iterate in,
deferred destroys, version_of, modified() and the change hooks, watch_holders.

The random test checks every read against a model of the documented order: the
iteration order of a Python set of entity numbers (1, 2, 3, ... in creation order)
that gains a number when the entity gains the type, loses it when the entity loses
the type or is destroyed, and is dropped when empty."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

import pytest

from maid_engine.ecs import Component, ComponentNotFound, EntityNotFound, World


@dataclass
class Ax(Component):
    component_name = "WorldIndexTestAx"
    n: int = 0


@dataclass
class Bx(Component):
    component_name = "WorldIndexTestBx"
    n: int = 0


@dataclass
class Cx(Component):
    component_name = "WorldIndexTestCx"
    n: int = 0


TYPES: tuple[type[Ax | Bx | Cx], ...] = (Ax, Bx, Cx)
QUERIES: tuple[tuple[type[Component], ...], ...] = (
    (Ax, Bx),
    (Bx, Ax),
    (Ax, Cx),
    (Bx, Cx),
    (Ax, Bx, Cx),
    (Cx, Cx),
)


@pytest.fixture
def world() -> World:
    return World()


# -- iteration order against a model ------------------------------------------------


class Model:
    """What the World promises, kept the slow obvious way."""

    def __init__(self) -> None:
        self.numbers: dict[UUID, int] = {}
        #: type -> numbers of its holders (dropped when empty)
        self.sets: dict[type[Component], set[int]] = {}
        #: entity -> {type: component} in the order it gained them
        self.held: dict[UUID, dict[type[Component], Component]] = {}
        self.pending: list[UUID] = []

    def create(self, uid: UUID, comps: list[Component]) -> None:
        self.numbers[uid] = len(self.numbers) + 1
        self.held[uid] = {}
        for c in comps:
            self.add(uid, c)

    def add(self, uid: UUID, c: Component) -> None:
        self.sets.setdefault(type(c), set()).add(self.numbers[uid])
        self.held[uid][type(c)] = c

    def remove(self, uid: UUID, ctype: type[Component]) -> None:
        if self.held[uid].pop(ctype, None) is not None:
            self.sets[ctype].discard(self.numbers[uid])
            if not self.sets[ctype]:
                del self.sets[ctype]

    def flush(self) -> None:
        for uid in self.pending:
            for ctype in list(self.held[uid]):
                self.remove(uid, ctype)
            del self.held[uid]
        self.pending = []

    def holders(self, ctype: type[Component]) -> list[UUID]:
        by_number = {n: u for u, n in self.numbers.items()}
        return [by_number[n] for n in self.sets.get(ctype, ())]

    def each(self, ctype: type[Component]) -> list[tuple[UUID, int]]:
        return [(u, id(self.held[u][ctype])) for u in self.holders(ctype) if u not in self.pending]

    def query(self, ctypes: tuple[type[Component], ...]) -> list[tuple[UUID, tuple[int, ...]]]:
        # Led by the type with the fewest holders (pending ones counted), the
        # first of equals.
        lead = min(ctypes, key=lambda t: len(self.sets.get(t, ())))
        out = []
        for uid in self.holders(lead):
            row = [self.held[uid].get(t) for t in ctypes]
            if uid not in self.pending and all(c is not None for c in row):
                out.append((uid, tuple(map(id, row))))
        return out


def check(world: World, model: Model, rng: random.Random) -> None:
    for ctype in TYPES:
        rows = model.each(ctype)
        assert [(u, id(c)) for u, c in world.each(ctype)] == rows, ctype
        assert world.holders(ctype) == [u for u, _ in rows], ctype
        assert world.count(ctype) == len(model.sets.get(ctype, ())), ctype
        some = [u for u in model.holders(ctype) if rng.random() < 0.2]
        expected = [r for r in rows if r[0] in set(some)]
        assert [(u, id(c)) for u, c in world.each_in(ctype, reversed(some))] == expected
    for ctypes in QUERIES:
        got = [(u, tuple(map(id, cs))) for u, cs in world.query(*ctypes)]
        assert got == model.query(ctypes), ctypes
    for ctypes in ((Ax, Bx), (Cx, Ax, Bx), (Bx,)):
        each_once = dict.fromkeys(u for t in ctypes for u, _ in model.each(t))
        assert world.holders_any(*ctypes) == list(each_once), ctypes
    for uid, held in model.held.items():
        assert list(world.components_of(uid)) == list(held.values())


@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_each_holders_query_and_each_in_iterate_in_the_documented_order(
    world: World, seed: int
) -> None:
    rng = random.Random(seed)
    model = Model()
    alive: list[UUID] = []  # created, not scheduled for destruction
    scrambled = False
    for step in range(3000):
        roll = rng.random()
        known = alive + model.pending
        if roll < 0.25 or not alive:
            comps: list[Component] = [t(rng.randrange(100)) for t in TYPES if rng.random() < 0.5]
            uid = world.create_entity(*comps, persistent=rng.random() < 0.5)
            model.create(uid, comps)
            alive.append(uid)
        elif roll < 0.55:  # add, or replace one of the same type (pending ones too)
            uid, comp = rng.choice(known), rng.choice(TYPES)(step)
            world.add_component(uid, comp)
            model.add(uid, comp)
        elif roll < 0.75:
            uid, ctype = rng.choice(known), rng.choice(TYPES)
            world.remove_component(uid, ctype)
            model.remove(uid, ctype)
        elif roll < 0.95:
            victim = alive.pop(rng.randrange(len(alive)))
            world.destroy_entity(victim)
            model.pending.append(victim)
        else:
            assert world.flush_destroyed() == model.pending  # in scheduling order
            model.flush()
        if step % 10 == 0:
            check(world, model, rng)
            for ctype in TYPES:
                numbers = list(model.sets.get(ctype, ()))
                scrambled = scrambled or numbers != sorted(numbers)
    world.flush_destroyed()
    model.flush()
    check(world, model, rng)
    # Neither creation nor insertion order: a model keeping either would fail.
    assert scrambled


def test_the_order_is_reproducible_and_not_insertion_order() -> None:
    def run() -> list[list[int]]:
        world = World()
        ids = [world.create_entity(Ax(i)) for i in range(40)]
        for uid in ids[::3]:
            world.remove_component(uid, Ax)
        for uid in ids[::6]:
            world.add_component(uid, Ax(-1))  # re-added
        for uid in ids[1::4]:
            world.destroy_entity(uid)
        world.flush_destroyed()
        for uid in ids[2::5]:
            if world.entity_exists(uid):
                world.add_component(uid, Bx())
        late = world.create_entity(Bx())
        world.add_component(ids[2], Bx(1))  # replaced: keeps its place
        numbers = {u: i for i, u in enumerate([*ids, late])}
        return [[numbers[u] for u in world.holders(t)] for t in (Ax, Bx)]

    first = run()
    assert run() == first
    ax, bx = first
    destroyed = set(range(40)[1::4])
    kept = [i for i in range(40) if i % 3 and i not in destroyed]
    readded = [i for i in range(0, 40, 6) if i not in destroyed]
    assert sorted(ax) == sorted(kept + readded)
    assert ax not in (sorted(ax), kept + readded)  # neither creation nor insertion order
    assert bx != sorted(bx)
    world = World()
    a, b, c = (world.create_entity(Ax(i)) for i in range(3))
    world.remove_component(a, Ax)
    world.add_component(a, Ax(9))
    assert world.holders(Ax) == [a, b, c]
    world.add_component(c, Bx())
    world.add_component(c, Ax(10))
    assert [type(x) for x in world.components_of(c)] == [Ax, Bx]


# -- entities scheduled for destruction -----------------------------------------------


def test_pending_destroyed_entities_leave_queries_but_stay_readable(world: World) -> None:
    gone_a, gone_b = Ax(1), Bx(1)
    gone = world.create_entity(gone_a, gone_b)
    kept = world.create_entity(Ax(2), Bx(2))
    world.destroy_entity(gone)

    assert [u for u, _ in world.each(Ax)] == [kept]
    assert world.holders(Bx) == [kept]
    assert [u for u, _ in world.query(Ax, Bx)] == [kept]
    assert [u for u, _ in world.each_in(Ax, [gone, kept])] == [kept]
    assert not world.entity_exists(gone)
    # Still readable until the safe point.
    assert world.try_component(gone, Ax) is gone_a
    assert world.get_component(gone, Bx) is gone_b
    assert world.has_component(gone, Ax)
    with pytest.raises(ComponentNotFound):
        world.get_component(gone, Cx)
    assert world.count(Ax) == 2  # pending ones included

    assert world.flush_destroyed() == [gone]
    assert world.try_component(gone, Ax) is None
    assert not world.has_component(gone, Bx)
    with pytest.raises(EntityNotFound):
        world.get_component(gone, Ax)
    assert world.count(Ax) == 1
    assert [u for u, _ in world.each(Ax)] == [kept]


def test_get_component_errors(world: World) -> None:
    uid = world.create_entity(Ax())
    with pytest.raises(EntityNotFound) as unknown:
        world.get_component(uuid4(), Ax)
    assert not isinstance(unknown.value, ComponentNotFound)
    with pytest.raises(ComponentNotFound) as missing:
        world.get_component(uid, Bx)
    assert missing.value.component_type is Bx
    world.remove_component(uid, Ax)
    with pytest.raises(ComponentNotFound):
        world.get_component(uid, Ax)


def test_a_type_whose_last_holder_left_queries_empty(world: World) -> None:
    uid = world.create_entity(Ax(), Bx())
    world.remove_component(uid, Ax)
    assert list(world.each(Ax)) == []
    assert world.holders(Ax) == []
    assert list(world.query(Ax, Bx)) == []
    assert list(world.each_in(Ax, [uid])) == []
    assert world.count(Ax) == 0
    world.add_component(uid, Ax(5))
    assert [u for u, _ in world.query(Bx, Ax)] == [uid]


# -- version_of ---------------------------------------------------------------------


def test_version_of_tracks_its_own_type_only(world: World) -> None:
    def bumped(action: Any) -> tuple[bool, bool]:
        a, b = world.version_of(Ax), world.version_of(Bx)
        action()
        return world.version_of(Ax) != a, world.version_of(Bx) != b

    uid = world.create_entity()
    other = world.create_entity(Bx())
    assert bumped(lambda: world.add_component(uid, Ax(1))) == (True, False)
    assert bumped(lambda: world.add_component(uid, Ax(2))) == (True, False)  # replace
    assert bumped(lambda: world.add_component(other, Bx(3))) == (False, True)
    assert bumped(lambda: world.remove_component(other, Bx)) == (False, True)
    assert bumped(lambda: world.remove_component(other, Bx)) == (False, False)  # nothing
    assert bumped(lambda: world.modified(uid, world.get_component(uid, Ax))) == (True, False)
    assert bumped(lambda: world.destroy_entity(other)) == (False, False)  # holds no Ax/Bx
    assert bumped(lambda: world.destroy_entity(uid)) == (True, False)  # scheduling
    assert bumped(lambda: world.destroy_entity(uid)) == (False, False)  # already pending


def test_version_of_an_unseen_type_is_stable(world: World) -> None:
    before = world.version_of(Cx)
    world.create_entity(Ax(), Bx())
    assert world.version_of(Cx) == before


# -- each_in ------------------------------------------------------------------------


def test_each_in_returns_the_given_entities_in_each_order(world: World) -> None:
    rng = random.Random(5)
    ids = [world.create_entity(Ax(i)) for i in range(300)]
    for uid in rng.sample(ids, 150):  # churn the set so its order is not creation order
        world.remove_component(uid, Ax)
    for uid in rng.sample(ids, 100):
        world.add_component(uid, Ax(-1))
    without = world.create_entity(Bx())
    pending = rng.choice(world.holders(Ax))
    world.destroy_entity(pending)

    wanted = [*rng.sample(ids, 80), uuid4(), without, pending]
    rng.shuffle(wanted)
    wanted.append(wanted[0])  # duplicates are harmless
    expected = [row for row in world.each(Ax) if row[0] in set(wanted)]
    got = list(world.each_in(Ax, wanted))
    assert got == expected
    got_ids = [u for u, _ in got]
    assert got_ids != [u for u in dict.fromkeys(wanted) if u in set(got_ids)]  # not as given
    assert all(world.get_component(u, Ax) is c for u, c in got)
    assert pending not in {u for u, _ in got}
    assert list(world.each_in(Ax, [])) == []
    assert list(world.each_in(Cx, ids)) == []


# -- modified and the change hooks -------------------------------------------------


def test_modified_marks_dirty_bumps_the_version_and_runs_the_hooks(world: World) -> None:
    seen: list[tuple[UUID, Component]] = []
    world.on_changed(Ax, lambda u, c: seen.append((u, c)))
    first = Ax(1)
    uid = world.create_entity(first, Bx())
    assert seen == [(uid, first)]  # Bx has no hook
    second = Ax(2)
    world.add_component(uid, second)  # a replacement runs the hook too
    assert seen[-1] == (uid, second)
    assert seen[-1][1] is second
    world.take_changes()

    before = world.version_of(Ax)
    second.n = 3  # assigning a field marks dirty, nothing more
    assert world.take_changes()[0] == {uid}
    assert world.version_of(Ax) == before
    assert len(seen) == 2

    world.modified(uid, second)
    assert world.take_changes()[0] == {uid}
    assert world.version_of(Ax) != before
    assert len(seen) == 3
    assert seen[-1][1] is second

    bx_before = world.version_of(Bx)
    world.modified(uid, world.get_component(uid, Bx))
    assert len(seen) == 3  # no Bx hook
    assert world.version_of(Bx) != bx_before
    world.take_changes()

    world.remove_component(uid, Bx)
    assert len(seen) == 3  # a removal is no change of a held component


def test_modified_ignores_a_component_the_entity_no_longer_holds(world: World) -> None:
    seen: list[UUID] = []
    world.on_changed(Ax, lambda u, c: seen.append(u))
    old = Ax(1)
    uid = world.create_entity(old)
    world.add_component(uid, Ax(2))
    world.take_changes()
    seen.clear()
    before = world.version_of(Ax)
    world.modified(uid, old)  # replaced meanwhile
    world.modified(world.create_entity(persistent=False), Ax(3))  # never held
    assert (seen, world.take_changes()[0], world.version_of(Ax)) == ([], set(), before)
    world.destroy_entity(uid)
    world.flush_destroyed()
    world.modified(uid, world.try_component(uid, Ax) or old)  # destroyed
    assert seen == []


def test_hooks_run_in_registration_order(world: World) -> None:
    calls: list[str] = []
    world.on_changed(Ax, lambda u, c: calls.append("first"))
    world.on_changed(Ax, lambda u, c: calls.append("second"))
    uid = world.create_entity(Ax())
    world.modified(uid, world.get_component(uid, Ax))
    assert calls == ["first", "second", "first", "second"]


# -- watch_holders ---------------------------------------------------------------------


def test_holder_hooks_hear_of_the_watched_types_and_destruction(world: World) -> None:
    heard: list[UUID] = []

    def told(action: Any) -> list[UUID]:
        heard.clear()
        action()
        return list(heard)

    uid = world.create_entity()
    assert told(lambda: world.add_component(uid, Ax())) == []  # not watched yet
    world.watch_holders(heard.append, Ax, Bx)
    world.watch_holders(heard.append, Ax)  # idempotent
    assert told(lambda: world.add_component(uid, Bx())) == [uid]
    assert told(lambda: world.add_component(uid, Ax(2))) == [uid]  # replaced
    assert told(lambda: world.modified(uid, world.get_component(uid, Ax))) == []  # contents
    assert told(lambda: world.add_component(uid, Cx())) == []
    assert told(lambda: world.remove_component(uid, Bx)) == [uid]
    assert told(lambda: world.remove_component(uid, Bx)) == []  # nothing to remove
    assert told(lambda: world.destroy_entity(uid)) == [uid]  # once, though it holds two
    assert told(lambda: world.destroy_entity(uid)) == []  # already pending
    unwatched = world.create_entity(Cx())
    assert told(lambda: world.destroy_entity(unwatched)) == []
    assert told(world.flush_destroyed) == []


# -- replaced components --------------------------------------------------------------


def test_rows_reflect_a_replaced_component(world: World) -> None:
    ids = [world.create_entity(Ax(i), Bx(i)) for i in range(5)]
    order = world.holders(Ax)
    old = world.get_component(ids[2], Ax)
    new = Ax(99)
    world.add_component(ids[2], new)

    rows = dict(world.each(Ax))
    assert rows[ids[2]] is new
    assert rows[ids[2]] is not old
    assert dict(world.query(Ax, Bx))[ids[2]][0] is new
    assert dict(world.each_in(Ax, [ids[2]]))[ids[2]] is new
    assert world.try_component(ids[2], Ax) is new
    assert world.holders(Ax) == order  # a replacement keeps its place
    assert world.count(Ax) == 5
