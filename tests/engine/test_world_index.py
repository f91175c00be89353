"""World's own read index (maid_engine.ecs.world): each/holders/query/each_in read
it instead of esper, in esper's order; deferred destroys; version_of; notify.

The random test is the one place that reads World's private attributes and esper
itself: it checks the mirror against the original."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

import esper
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


TYPES: tuple[type[Component], ...] = (Ax, Bx, Cx)
QUERIES: tuple[tuple[type[Component], ...], ...] = (
    (Ax, Bx),
    (Bx, Ax),
    (Ax, Cx),
    (Bx, Cx),
    (Ax, Bx, Cx),
    (Cx, Cx),
)


@pytest.fixture
def world() -> Iterator[World]:
    w = World()
    yield w
    w.close()


# -- the mirror against esper -------------------------------------------------------


def esper_each(world: World, ctype: type[Component], pending: set[UUID]) -> list[Any]:
    world._use()
    rows = [(world._eid_to_uuid[e], c) for e, c in esper.get_component(ctype)]
    return [(u, id(c)) for u, c in rows if u not in pending]


def esper_query(world: World, ctypes: tuple[type[Component], ...], pending: set[UUID]) -> list[Any]:
    world._use()
    rows = [(world._eid_to_uuid[e], cs) for e, cs in esper.get_components(*ctypes)]
    return [(u, tuple(map(id, cs))) for u, cs in rows if u not in pending]


def check_against_esper(world: World, pending: set[UUID]) -> bool:
    """Assert every read matches esper; True if some esper order was not ascending
    by esper id (so a mirror that sorted or kept insertion order would differ)."""
    scrambled = False
    for ctype in TYPES:
        ours = [(u, id(c)) for u, c in world.each(ctype)]
        assert ours == esper_each(world, ctype, pending), ctype
        assert world.holders(ctype) == [u for u, _ in ours], ctype
        world._use()
        eids = [e for e, _ in esper.get_component(ctype)]
        scrambled = scrambled or eids != sorted(eids)
    for ctypes in QUERIES:
        ours_q = [(u, tuple(map(id, cs))) for u, cs in world.query(*ctypes)]
        assert ours_q == esper_query(world, ctypes, pending), ctypes
    return scrambled


@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_each_holders_and_query_iterate_in_esper_order(world: World, seed: int) -> None:
    rng = random.Random(seed)
    alive: list[UUID] = []  # created, not scheduled for destruction
    pending: set[UUID] = set()
    scrambled = False
    for step in range(3000):
        roll = rng.random()
        known = alive + sorted(pending)
        if roll < 0.25 or not alive:
            comps = [t(rng.randrange(100)) for t in TYPES if rng.random() < 0.5]
            alive.append(world.create_entity(*comps, persistent=rng.random() < 0.5))
        elif roll < 0.55:  # add, or replace one of the same type (pending ones too)
            world.add_component(rng.choice(known), rng.choice(TYPES)(step))
        elif roll < 0.75:
            world.remove_component(rng.choice(known), rng.choice(TYPES))
        elif roll < 0.95:
            victim = alive.pop(rng.randrange(len(alive)))
            world.destroy_entity(victim)
            pending.add(victim)
        else:
            assert set(world.flush_destroyed()) == pending
            pending.clear()
        if step % 10 == 0:
            scrambled = check_against_esper(world, pending) or scrambled
    world.flush_destroyed()
    pending.clear()
    scrambled = check_against_esper(world, pending) or scrambled
    assert scrambled, "the sequence never produced a non-trivial esper order"
    for ctype in TYPES:
        assert world.count(ctype) == len(world.holders(ctype))


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
    assert bumped(lambda: world.changed(Ax)) == (True, False)
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


# -- notify and hooks -----------------------------------------------------------------


def test_notify_runs_added_hooks_and_bumps_the_version(world: World) -> None:
    seen: list[tuple[UUID, Component]] = []
    world.added_hooks.setdefault(Ax, []).append(lambda u, c: seen.append((u, c)))
    first = Ax(1)
    uid = world.create_entity(first, Bx())
    assert seen == [(uid, first)]  # Bx has no hook
    second = Ax(2)
    world.add_component(uid, second)  # a replacement runs the hook too
    assert seen[-1] == (uid, second) and seen[-1][1] is second

    before = world.version_of(Ax)
    second.n = 3
    world.notify(uid, second)
    assert len(seen) == 3 and seen[-1][1] is second
    assert world.version_of(Ax) != before
    bx_before = world.version_of(Bx)
    world.notify(uid, world.get_component(uid, Bx))
    assert len(seen) == 3  # no Bx hook
    assert world.version_of(Bx) != bx_before


# -- replaced components --------------------------------------------------------------


def test_rows_reflect_a_replaced_component(world: World) -> None:
    ids = [world.create_entity(Ax(i), Bx(i)) for i in range(5)]
    order = world.holders(Ax)
    old = world.get_component(ids[2], Ax)
    new = Ax(99)
    world.add_component(ids[2], new)

    rows = dict(world.each(Ax))
    assert rows[ids[2]] is new and rows[ids[2]] is not old
    assert dict(world.query(Ax, Bx))[ids[2]][0] is new
    assert dict(world.each_in(Ax, [ids[2]]))[ids[2]] is new
    assert world.try_component(ids[2], Ax) is new
    assert world.holders(Ax) == order  # a replacement keeps its place
    assert world.count(Ax) == 5
