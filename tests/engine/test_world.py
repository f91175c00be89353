import copy
from dataclasses import dataclass, field
from uuid import UUID, uuid4

import pytest

from maid_engine.ecs import Component, ComponentNotFound, EntityNotFound, World
from maid_engine.ecs.component import dump_component, load_component
from maid_engine.ecs.world import seeded_ids


@dataclass
class Pos(Component):
    room: str = "start"


@dataclass
class Label(Component):
    name_field = "name"
    name: str = ""
    tags: list[str] = field(default_factory=list)


@dataclass
class Scratch(Component):
    persist = False
    value: int = 0


@pytest.fixture
def world() -> World:
    return World()


def test_uuid_identity_both_ways(world: World) -> None:
    uid = uuid4()
    got = world.create_entity(Pos("hall"), entity_id=uid)
    assert got == uid
    assert world.get_component(uid, Pos).room == "hall"
    assert world.entity_exists(uid)
    with pytest.raises(ValueError, match=r"already exists"):
        world.create_entity(entity_id=uid)


def test_missing_entity_and_component_errors(world: World) -> None:
    uid = world.create_entity(Pos())
    with pytest.raises(ComponentNotFound):
        world.get_component(uid, Label)
    assert world.try_component(uid, Label) is None
    ghost = uuid4()
    with pytest.raises(EntityNotFound):
        world.get_component(ghost, Pos)
    with pytest.raises(EntityNotFound):
        world.add_component(ghost, Pos())
    assert world.try_component(ghost, Pos) is None
    assert not world.has_component(ghost, Pos)


def test_get_or_add_keeps_what_is_there_and_adds_what_is_not(world: World) -> None:
    uid = world.create_entity(Pos("hall"))
    pos = world.get_component(uid, Pos)
    assert world.get_or_add(uid, Pos) is pos
    label = world.get_or_add(uid, Label)
    assert label == Label()
    assert world.get_component(uid, Label) is label
    with pytest.raises(EntityNotFound):
        world.get_or_add(uuid4(), Label)


def test_try_components_reads_several_types_as_try_component_does(world: World) -> None:
    uid = world.create_entity(Pos("hall"), Label("Hollin"))
    pos, label, scratch = world.try_components(uid, Pos, Label, Scratch)
    assert pos is world.get_component(uid, Pos)
    assert label is world.get_component(uid, Label)
    assert scratch is None
    assert world.try_components(uuid4(), Pos, Label) == (None, None)
    # Scheduled for destruction: still readable, like try_component; gone after the flush.
    world.destroy_entity(uid)
    assert world.try_components(uid, Label, Pos) == (label, pos)
    world.flush_destroyed()
    assert world.try_components(uid, Pos, Label) == (None, None)


def test_deferred_destroy_during_iteration(world: World) -> None:
    ids = [world.create_entity(Pos(str(i))) for i in range(5)]
    seen = []
    for _uid, (pos,) in world.query(Pos):
        seen.append(pos.room)
        world.destroy_entity(ids[4])
        # Destroyed-but-not-flushed: reported gone, components still readable.
        assert not world.entity_exists(ids[4])
        assert world.try_component(ids[4], Pos) is not None
    assert len(seen) == 5
    assert ids[4] not in [u for u, _ in world.query(Pos)]
    assert world.flush_destroyed() == [ids[4]]
    assert world.try_component(ids[4], Pos) is None
    assert world.entity_count == 4
    # Destroying twice or destroying an unknown id is harmless.
    world.destroy_entity(ids[4])
    world.destroy_entity(uuid4())
    assert world.flush_destroyed() == []


def test_name_index(world: World) -> None:
    a = world.create_entity(Label("Hollin"))
    b = world.create_entity(Label("hollin"))
    assert set(world.find_by_name("HOLLIN")) == {a, b}
    world.rename(b, world.get_component(b, Label), "Tamsin")
    assert world.find_by_name("tamsin") == [b]
    assert world.find_by_name("hollin") == [a]
    world.destroy_entity(a)
    assert world.find_by_name("hollin") == []
    world.flush_destroyed()
    assert world.find_by_name("hollin") == []


def test_dirty_tracking(world: World) -> None:
    uid = world.create_entity(Pos(), Label("x"))
    temp = world.create_entity(Pos(), persistent=False)
    dirty, _removed, _destroyed = world.take_changes()
    assert dirty == {uid}
    world.get_component(temp, Pos).room = "moved"
    assert world.take_changes()[0] == set()
    world.get_component(uid, Pos).room = "moved"
    assert world.take_changes()[0] == {uid}
    label = world.get_component(uid, Label)
    label.tags.append("t")  # in place: invisible until reported
    assert world.take_changes()[0] == set()
    world.modified(uid, label)
    assert world.take_changes()[0] == {uid}
    world.modified(temp, world.get_component(temp, Pos))  # not persistent: never dirty
    assert world.take_changes()[0] == set()
    world.remove_component(uid, Label)
    assert world.take_changes()[1] == [(uid, "Label")]
    world.destroy_entity(uid)
    world.flush_destroyed()
    assert world.take_changes()[2] == [uid]


def test_components_share_their_worlds_change_marker(world: World) -> None:
    """Each held component keeps its entity, not a function of its own: the marker
    is one per world (a closure per component cost 2.4 KiB per NPC)."""
    a = world.create_entity(Pos(), Label("a"))
    b = world.create_entity(Pos())
    markers = {id(c.__dict__["_owner"]) for u in (a, b) for c in world.components_of(u)}
    assert len(markers) == 1
    world.take_changes()
    # A copy (a consequence's snapshot) marks the entity of the original, as before.
    copied = copy.deepcopy(world.get_component(b, Pos))
    copied.room = "elsewhere"
    assert world.take_changed_parts()[0] == {b: frozenset({Pos})}
    # A replaced component no longer marks its entity; the replacement does.
    old = world.get_component(a, Label)
    world.add_component(a, Label("new"))
    world.take_changes()
    old.name = "stale"
    assert world.take_changes()[0] == set()
    world.get_component(a, Label).name = "newer"
    assert world.take_changed_parts()[0] == {a: frozenset({Label})}
    # The marker lives on the world: a second world's components mark that one.
    other = World()
    c = other.create_entity(Pos())
    other.take_changes()
    other.get_component(c, Pos).room = "there"
    assert world.take_changes()[0] == set()
    assert other.take_changes()[0] == {c}


def test_restore_changes_after_failed_save(world: World) -> None:
    uid = world.create_entity(Pos())
    changes = world.take_changes()
    world.restore_changes(*changes)
    assert world.take_changes()[0] == {uid}


def test_changed_parts_name_the_components_that_changed(world: World) -> None:
    uid = world.create_entity(Pos(), Label("x"))
    other = world.create_entity(Pos())
    world.take_changes()
    # New: written whole.
    fresh = world.create_entity(Pos(), Label("y"))
    world.get_component(fresh, Pos).room = "moved"
    world.get_component(uid, Pos).room = "moved"
    label = world.get_component(other, Pos)
    world.modified(other, label)
    parts, _removed, _destroyed = world.take_changed_parts()
    assert parts == {fresh: None, uid: frozenset({Pos}), other: frozenset({Pos})}
    world.add_component(uid, Label("renamed"))
    world.get_component(uid, Pos).room = "back"
    assert world.take_changed_parts()[0] == {uid: frozenset({Label, Pos})}
    assert world.take_changed_parts()[0] == {}


def test_restored_parts_join_what_changed_since(world: World) -> None:
    uid = world.create_entity(Pos(), Label("x"))
    world.take_changes()
    world.get_component(uid, Pos).room = "moved"
    taken = world.take_changed_parts()
    world.modified(uid, world.get_component(uid, Label))
    world.restore_changes(*taken)
    assert world.take_changed_parts()[0] == {uid: frozenset({Pos, Label})}
    # Handed back whole (by entity id alone): written whole.
    world.get_component(uid, Pos).room = "again"
    world.restore_changes({uid}, [], [])
    assert world.take_changed_parts()[0] == {uid: None}


def test_component_roundtrip_and_non_persistent() -> None:
    data = dump_component(Label("Grey", ["bandit"]))
    assert data == {"name": "Grey", "tags": ["bandit"]}
    back = load_component("Label", data)
    assert back == Label("Grey", ["bandit"])
    assert not Scratch.persist
    with pytest.raises(KeyError, match="unknown component type"):
        load_component("NoSuchThing", {})


def test_two_worlds_are_isolated() -> None:
    w1, w2 = World(), World()
    a = w1.create_entity(Pos("one"))
    w2.create_entity(Pos("two"))
    assert [p.room for _, (p,) in w1.query(Pos)] == ["one"]
    assert [p.room for _, (p,) in w2.query(Pos)] == ["two"]
    assert w1.get_component(a, Pos).room == "one"


def test_query_multiple_components(world: World) -> None:
    a = world.create_entity(Pos("a"), Label("A"))
    world.create_entity(Pos("b"))
    rows = list(world.query(Pos, Label))
    assert [(u, p.room, lab.name) for u, (p, lab) in rows] == [(a, "a", "A")]
    assert [u for u, _ in world.each(Label)] == [a]
    assert world.count(Pos) == 2


def test_a_seeded_world_draws_the_same_ids_in_the_same_order() -> None:
    def made(seed: int) -> list[UUID]:
        world = World(seeded_ids(seed))
        return [world.create_entity(Pos()) for _ in range(3)] + [world.new_id()]

    first = made(7)
    assert first == made(7)
    assert len(set(first)) == 4
    assert all(uid.version == 4 for uid in first)
    assert set(first).isdisjoint(made(8))


def test_a_drawn_id_already_in_the_world_is_skipped() -> None:
    taken = seeded_ids(7)()
    world = World(seeded_ids(7))
    world.create_entity(Pos("hall"), entity_id=taken)
    fresh = world.create_entity(Pos())
    assert fresh != taken
    assert world.get_component(taken, Pos).room == "hall"


def test_use_ids_switches_the_source_of_new_ids() -> None:
    world = World(seeded_ids(7))
    fixed = UUID(int=42, version=4)
    world.use_ids(lambda: fixed)
    assert world.create_entity(Pos()) == fixed
