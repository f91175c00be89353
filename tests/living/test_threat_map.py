"""ThreatMap.without: the map less one destroyed threat is what a rebuild from the
providers would give, to the order of the groups, their threats and their rooms."""

from __future__ import annotations

import random
from typing import Any, cast
from uuid import UUID

from maid_stdlib.living.conditions import LivingView, ThreatMap


class _Places:
    """The little of the world a map reads: where each entity stands, which area a
    room is in, who still exists, and a source's name."""

    def __init__(self, rooms: dict[UUID, str | None]) -> None:
        self.rooms = rooms
        self.gone: set[UUID] = set()
        self.world_service = self
        self.engine = self
        self.world = self

    def room_key_of(self, uid: UUID) -> str | None:
        return self.rooms.get(uid)

    def area_of(self, room: str) -> str | None:
        area = room.split(":")[0]
        return None if area == "wild" else area

    def entity_exists(self, uid: UUID) -> bool:
        return uid in self.rooms and uid not in self.gone

    def source_name(self, source: str) -> str:
        return source.title()


def _state(threats: ThreatMap) -> Any:
    return (
        {room: list(pairs) for room, pairs in threats.by_room.items()},
        [
            (g.key, g.source, g.source_name, g.place, list(g.entities), list(g.rooms.items()))
            for g in threats.groups.values()
        ],
        set(threats.ids),
    )


def _world(rng: random.Random) -> tuple[_Places, list[tuple[UUID, str]]]:
    rooms = ["road:a", "road:b", "road:c", "camp:a", "camp:b", "wild:x", "wild:y"]
    entities = [UUID(int=rng.getrandbits(128)) for _ in range(40)]
    # A few stand nowhere: no provider's pair of theirs makes them a threat.
    places = _Places({uid: (rng.choice(rooms) if rng.random() > 0.1 else None) for uid in entities})
    pairs = []
    for uid in entities:
        pairs.append((uid, rng.choice(["bandits", "wolves", "hostiles"])))
        if rng.random() < 0.3:  # named by a second provider too, under another source
            pairs.append((uid, rng.choice(["bandits", "raiders"])))
    rng.shuffle(pairs)
    return places, pairs


def test_a_map_less_a_destroyed_threat_is_the_map_rebuilt_without_it() -> None:
    for seed in range(30):
        rng = random.Random(seed)
        places, pairs = _world(rng)
        living = cast(LivingView, places)
        threats = ThreatMap(living, pairs)
        # Destroy them one by one, in a random order, each time against a rebuild.
        for uid in rng.sample(sorted(threats.ids), len(threats.ids)):
            kept = threats.without(uid)
            assert kept is not None
            places.gone.add(uid)
            assert _state(kept) == _state(ThreatMap(living, pairs)), (seed, uid)
            threats = kept
        assert not threats
        assert threats.by_room == {}


def test_a_map_without_an_entity_it_does_not_hold_is_none() -> None:
    places, pairs = _world(random.Random(7))
    threats = ThreatMap(cast(LivingView, places), pairs)
    nowhere = next(uid for uid, room in places.rooms.items() if room is None)
    assert threats.without(nowhere) is None
    assert threats.without(UUID(int=1)) is None


def test_a_kept_map_answers_afresh() -> None:
    """What the old map worked out (the groups in a place) is not carried over:
    the new map works it out again without the destroyed threat."""
    lone, a, b = UUID(int=1), UUID(int=2), UUID(int=3)
    places = _Places({lone: "wild:x", a: "road:a", b: "road:a"})
    threats = ThreatMap(cast(LivingView, places), [(a, "wolves"), (lone, "bandits"), (b, "wolves")])
    assert [g.key for g in threats.groups_in(["wild:x", "road:a"])] == [
        "threat:bandits:wild:x",
        "threat:wolves:road",
    ]
    kept = threats.without(lone)
    assert kept is not None
    assert [g.key for g in kept.groups_in(["wild:x", "road:a"])] == ["threat:wolves:road"]
    assert len(threats.groups_in(["wild:x"])) == 1  # the old map is untouched


def test_a_map_with_a_threat_moved_is_the_map_rebuilt_after_the_move() -> None:
    rooms = ["road:a", "road:b", "road:c", "camp:a", "camp:b", "wild:x", "wild:y", "new:z"]
    for seed in range(30):
        rng = random.Random(seed)
        places, pairs = _world(rng)
        living = cast(LivingView, places)
        threats = ThreatMap(living, pairs)
        for _ in range(60):
            if not threats.ids:
                break
            uid = rng.choice(sorted(threats.ids))
            # Now and then one walks out of every room: it leaves the map.
            room = rng.choice(rooms) if rng.random() > 0.05 else None
            places.rooms[uid] = room
            moved = threats.moved(uid, room)
            assert moved is not None
            assert _state(moved) == _state(ThreatMap(living, pairs)), (seed, uid, room)
            threats = moved


def test_a_threat_moved_to_where_it_is_keeps_the_map_and_a_stranger_gives_none() -> None:
    places, pairs = _world(random.Random(3))
    threats = ThreatMap(cast(LivingView, places), pairs)
    uid = sorted(threats.ids)[0]
    assert threats.moved(uid, places.rooms[uid]) is threats
    nowhere = next(uid for uid, room in places.rooms.items() if room is None)
    assert threats.moved(nowhere, "road:a") is None


def test_a_moved_threats_places_are_told_anew() -> None:
    """The place names kept for the groups it left and joined are dropped; the
    others are kept."""
    places, pairs = _world(random.Random(5))
    living = cast(LivingView, places)
    names: list[list[str]] = []

    def place_name(rooms: list[str]) -> str:
        names.append(rooms)
        return " and ".join(rooms)

    places.place_name = place_name  # type: ignore[attr-defined]
    threats = ThreatMap(living, pairs)
    for group in threats.groups.values():
        threats.place_of(group)
    told = len(names)
    # One walks over to another group of its kind (whose place name was kept).
    left, joined = next(
        (a, b)
        for a in threats.groups.values()
        for b in threats.groups.values()
        if a.source == b.source and a.key != b.key
    )
    uid = left.entities[0]
    moved = threats.moved(uid, joined.primary_room)
    assert moved is not None
    for group in moved.groups.values():
        assert moved.place_of(group) == " and ".join(sorted(group.rooms))
    # Only the group it left and the one it joined (the groups it changed) were
    # named again.
    changed = [k for k, g in moved.groups.items() if threats.groups.get(k) is not g]
    assert joined.key in changed
    assert len(names) - told == len(changed)
