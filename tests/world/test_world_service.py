"""WorldService: the room index, movement events, GMCP, lookup and paths."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from uuid import UUID

import pytest
from world.worldkit import connect, make_engine, new_character, ws_of

from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.world import (
    NPC,
    Describable,
    EntityRelocatedEvent,
    Exits,
    Item,
    Position,
    UnknownRoom,
    data_uuid,
)
from maid_stdlib.world.gmcp import room_num


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Ironvale: these tests are not on the neutral test world yet (they are on the
    allow-list of tests/test_layout.py)."""
    async with make_engine(tmp_path, packs=["ironvale"]).lifespan() as started:
        yield started


GUNDRIK = data_uuid("ironvale", "npc", "gundrik")


def record(engine: GameEngine) -> list[EntityRelocatedEvent]:
    seen: list[EntityRelocatedEvent] = []
    engine.events.subscribe(EntityRelocatedEvent, seen.append)
    return seen


async def test_every_move_emits_a_relocation_event(engine: GameEngine) -> None:
    seen = record(engine)
    hero = new_character(engine, "Alice")
    await cmd(engine, hero, "west")
    ws = ws_of(engine)
    ws.move(GUNDRIK, "ironvale:forge_lane", reason="errand")
    ws.move(GUNDRIK, "ironvale:forge_lane", reason="errand")  # already there: no event
    ws.remove_from_world(GUNDRIK, reason="carried off")
    await engine.dispatch_events()
    assert [(e.entity_id, e.from_room, e.to_room, e.reason) for e in seen] == [
        (hero, None, "ironvale:square", "created"),
        (hero, "ironvale:square", "ironvale:forge_lane", "walk"),
        (GUNDRIK, "ironvale:smithy", "ironvale:forge_lane", "errand"),
        (GUNDRIK, "ironvale:forge_lane", None, "carried off"),
    ]
    assert not engine.world.has_component(GUNDRIK, Position)
    assert ws.room_key_of(GUNDRIK) is None


async def test_moving_keeps_the_contents_index_right(engine: GameEngine) -> None:
    ws = ws_of(engine)
    assert GUNDRIK in ws.contents("ironvale:smithy")
    assert ws.npcs_in("ironvale:smithy") == [GUNDRIK]
    ws.move(GUNDRIK, "ironvale:square")
    assert GUNDRIK not in ws.contents("ironvale:smithy")
    assert ws.contents("ironvale:square")[-1] == GUNDRIK  # arrival order
    assert engine.world.get_component(GUNDRIK, Position).room == "ironvale:square"
    assert ws.items_in("ironvale:square") == [data_uuid("ironvale", "item", "notice_board")]
    with pytest.raises(UnknownRoom):
        ws.move(GUNDRIK, "ironvale:atlantis")
    assert ws.room_key_of(GUNDRIK) == "ironvale:square"


async def test_destroyed_entities_leave_the_index(engine: GameEngine) -> None:
    ws = ws_of(engine)
    scout = data_uuid("ironvale", "npc", "bandit_scout#1")
    engine.world.destroy_entity(scout)
    # Scheduled for destruction: no longer listed even before the safe point.
    assert scout not in ws.contents("ironvale:road_wagon")
    await engine.dispatch_events()
    assert ws.room_key_of(scout) is None
    assert len(ws.npcs_in("ironvale:road_wagon")) == 2
    assert ws.count_in("ironvale:road_wagon") == 3  # two scouts and the wheel


async def test_destroying_a_room_drops_it_and_its_paths(engine: GameEngine) -> None:
    ws = ws_of(engine)
    assert ws.path("ironvale:square", "ironvale:bandit_camp") is not None
    engine.world.destroy_entity(ws.room_id("ironvale:camp_trail"))  # type: ignore[arg-type]
    await engine.dispatch_events()
    assert not ws.has_room("ironvale:camp_trail")
    assert ws.path("ironvale:square", "ironvale:bandit_camp") is None


async def test_rebuilding_the_index_matches_incremental_updates(engine: GameEngine) -> None:
    ws = ws_of(engine)
    hero = new_character(engine, "Alice")
    ws.move(GUNDRIK, "ironvale:tavern")
    ws.move(hero, "ironvale:tavern")
    before = {k: sorted(ws.contents(k)) for k in ws.room_keys()}
    ws.rebuild_index()
    assert {k: sorted(ws.contents(k)) for k in ws.room_keys()} == before


async def test_reindex_follows_a_hand_edited_position(engine: GameEngine) -> None:
    ws = ws_of(engine)
    engine.world.get_component(GUNDRIK, Position).room = "ironvale:tavern"
    assert ws.room_key_of(GUNDRIK) == "ironvale:smithy"  # bypassed the service
    ws.reindex(GUNDRIK)
    assert ws.npcs_in("ironvale:tavern")[-1] == GUNDRIK


async def test_find_in_room_by_keyword_prefix_ordinal_and_kind(engine: GameEngine) -> None:
    ws = ws_of(engine)
    room = "ironvale:road_wagon"
    scouts = [data_uuid("ironvale", "npc", f"bandit_scout#{i}") for i in (1, 2, 3)]
    wheel = data_uuid("ironvale", "item", "wagon_wheel")
    assert ws.find_in_room(room, "scout") == scouts[0]
    assert ws.find_in_room(room, "3.scout") == scouts[2]
    assert ws.find_in_room(room, "brig") == scouts[0]
    assert ws.find_in_room(room, "bandit scout") == scouts[0]
    assert ws.find_in_room(room, "4.scout") is None
    assert ws.find_in_room(room, "0.scout") is None
    assert ws.find_in_room(room, "") is None
    assert ws.find_in_room(room, "wheel") == wheel
    assert ws.find_in_room(room, "wheel", kinds=[NPC]) is None
    assert ws.find_in_room(room, "wagon", kinds=[Item]) == wheel
    assert ws.find_in_room(room, "scout", viewer=scouts[0]) == scouts[1]
    ws.visibility_checks.append(lambda viewer, target: target != scouts[1])
    assert ws.find_in_room(room, "2.scout") == scouts[2]


async def test_offline_characters_are_there_but_unseen(engine: GameEngine) -> None:
    ws = ws_of(engine)
    sleeper = new_character(engine, "Sleeper")
    hero = new_character(engine, "Alice")
    assert ws.characters_in("ironvale:square") == []
    assert ws.characters_in("ironvale:square", include_offline=True) == [sleeper, hero]
    assert ws.find_in_room("ironvale:square", "sleeper") is None
    await connect(engine, sleeper)
    assert ws.find_in_room("ironvale:square", "sleeper", viewer=hero) == sleeper
    assert ws.characters_in("ironvale:square") == [sleeper]


async def test_paths_and_reachability(engine: GameEngine) -> None:
    ws = ws_of(engine)
    assert ws.path("ironvale:square", "ironvale:square") == []
    assert ws.path("ironvale:smithy", "ironvale:bandit_camp") == [
        "east",
        "east",
        "south",
        "south",
        "south",
        "south",
        "south",
        "south",
        "south",
        "east",
        "east",
    ]
    assert ws.is_reachable("ironvale:bandit_camp", "ironvale:watchtower")
    assert not ws.is_reachable("ironvale:square", "ironvale:atlantis")
    assert ws.path("ironvale:square", "ironvale:atlantis") is None


async def test_changing_exits_invalidates_cached_paths(engine: GameEngine) -> None:
    ws = ws_of(engine)
    assert len(ws.path("ironvale:square", "ironvale:bandit_camp") or []) == 9
    ws.set_exit("ironvale:square", "down", "ironvale:camp_trail")
    assert ws.path("ironvale:square", "ironvale:bandit_camp") == ["down", "east"]
    assert ws.remove_exit("ironvale:square", "down")
    assert not ws.remove_exit("ironvale:square", "down")
    assert len(ws.path("ironvale:square", "ironvale:bandit_camp") or []) == 9
    # A collapsed bridge: the trail is cut off entirely.
    ws.remove_exit("ironvale:road_ridge", "east")
    assert not ws.is_reachable("ironvale:square", "ironvale:bandit_camp")
    assert ws.is_reachable("ironvale:bandit_camp", "ironvale:square")
    # Editing the component by hand needs an explicit invalidation.
    room = ws.room_id("ironvale:road_ridge")
    assert room is not None
    engine.world.get_component(room, Exits).exits["east"] = "ironvale:camp_trail"
    ws.invalidate_paths()
    assert ws.is_reachable("ironvale:square", "ironvale:bandit_camp")
    with pytest.raises(UnknownRoom):
        ws.set_exit("ironvale:square", "down", "ironvale:atlantis")


async def test_room_info_gmcp_on_every_move_of_a_connected_character(
    engine: GameEngine,
) -> None:
    ws = ws_of(engine)
    hero = new_character(engine, "Alice")
    session = await connect(engine, hero)
    session.gmcp.clear()
    await cmd(engine, hero, "south")
    [(package, info)] = session.gmcp
    assert package == "Room.Info"
    forge = ws.room_id("ironvale:south_street")
    assert forge is not None
    assert info["num"] == room_num(forge)
    assert info["id"] == "ironvale:south_street"
    assert info["name"] == "South Street"
    assert info["area"] == "Ironvale"
    assert info["exit_ids"] == {
        "north": "ironvale:square",
        "east": "ironvale:tavern",
        "south": "ironvale:south_gate",
    }
    assert info["exits"]["east"] == room_num(ws.room_id("ironvale:tavern"))  # type: ignore[arg-type]
    ws.move(hero, "ironvale:smithy", reason="teleport")
    await engine.dispatch_events()
    assert session.gmcp[-1][1]["id"] == "ironvale:smithy"
    # NPCs and offline characters get nothing (and cost nothing).
    ws.move(GUNDRIK, "ironvale:square")
    await engine.dispatch_events()
    assert len(session.gmcp) == 2


async def test_message_room_reaches_connected_characters_there(engine: GameEngine) -> None:
    ws = ws_of(engine)
    a = await connect(engine, new_character(engine, "Alice"))
    b_id = new_character(engine, "Bob")
    b = await connect(engine, b_id)
    a.sent.clear()
    b.sent.clear()
    assert ws.message_room("ironvale:square", "A bell tolls.", exclude=[b_id]) == 1
    assert a.sent == ["A bell tolls."]
    assert b.sent == []


async def test_index_stays_exact_with_ten_thousand_npcs(engine: GameEngine) -> None:
    # Speed is measured in benchmarks/, not here: this checks the incremental index.
    ws = ws_of(engine)
    rooms = ws.room_keys()
    crowd: list[UUID] = [
        engine.world.create_entity(NPC("test:rat"), Describable(name="a rat", keywords=["rat"]))
        for _ in range(10_000)
    ]
    npcs_before = sum(len(ws.npcs_in(r)) for r in rooms)
    for i, rat in enumerate(crowd):
        ws.place(rat, rooms[i % len(rooms)])
    for i, rat in enumerate(crowd):
        ws.move(rat, rooms[(i + 1) % len(rooms)])
    await engine.dispatch_events()
    assert sum(len(ws.npcs_in(r)) for r in rooms) == 10_000 + npcs_before
    for i in (0, 1, 4_999, 9_999):
        expected = rooms[(i + 1) % len(rooms)]
        assert ws.room_key_of(crowd[i]) == expected
        assert crowd[i] in ws.contents(expected)


def _reference_path(engine: GameEngine, source: str, target: str) -> list[str] | None:
    """The whole-world BFS tree from ``source`` (what WorldService used to cache)."""
    from collections import deque

    from maid_stdlib.world import Exits

    ws = ws_of(engine)
    tree: dict[str, tuple[str, str] | None] = {source: None}
    queue = deque([source])
    while queue:
        here = queue.popleft()
        uid = ws.room_id(here)
        exits = None if uid is None else engine.world.try_component(uid, Exits)
        for name, there in ({} if exits is None else exits.exits).items():
            if there not in tree and ws.has_room(there):
                tree[there] = (here, name)
                queue.append(there)
    if target not in tree:
        return None
    steps: list[str] = []
    while (link := tree[target]) is not None:
        target, name = link
        steps.append(name)
    return steps[::-1]


async def test_early_stopping_search_matches_a_whole_world_bfs(engine: GameEngine) -> None:
    ws = ws_of(engine)
    rooms = sorted(ws._rooms)
    for a in rooms:
        for b in rooms:
            expected = _reference_path(engine, a, b)
            assert ws.path(a, b) == expected, (a, b)
            assert ws.is_reachable(a, b) == (expected is not None)
