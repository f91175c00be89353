"""WorldService: the room index, movement events, GMCP, lookup and paths."""

from __future__ import annotations

from uuid import UUID

import pytest
from kits.engines import ws_of
from kits.heroes import new_character
from world.worldkit import connect, disconnect

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
from maid_stdlib.world.gmcp import entity_num, room_num

#: Hamlet's miller, placed in the mill.
HOLLIN = data_uuid("hamlet", "npc", "hollin")


def record(engine: GameEngine) -> list[EntityRelocatedEvent]:
    seen: list[EntityRelocatedEvent] = []
    engine.events.subscribe(EntityRelocatedEvent, seen.append)
    return seen


async def test_every_move_emits_a_relocation_event(engine: GameEngine) -> None:
    seen = record(engine)
    hero = new_character(engine, "Alice", online=False)
    await cmd(engine, hero, "west")
    ws = ws_of(engine)
    ws.move(HOLLIN, "hamlet:mill_lane", reason="errand")
    ws.move(HOLLIN, "hamlet:mill_lane", reason="errand")  # already there: no event
    ws.remove_from_world(HOLLIN, reason="carried off")
    await engine.dispatch_events()
    assert [(e.entity_id, e.from_room, e.to_room, e.reason) for e in seen] == [
        (hero, None, "hamlet:green", "created"),
        (hero, "hamlet:green", "hamlet:mill_lane", "walk"),
        (HOLLIN, "hamlet:mill", "hamlet:mill_lane", "errand"),
        (HOLLIN, "hamlet:mill_lane", None, "carried off"),
    ]
    assert not engine.world.has_component(HOLLIN, Position)
    assert ws.room_key_of(HOLLIN) is None


async def test_moving_keeps_the_contents_index_right(engine: GameEngine) -> None:
    ws = ws_of(engine)
    assert HOLLIN in ws.contents("hamlet:mill")
    assert ws.npcs_in("hamlet:mill") == [HOLLIN]
    ws.move(HOLLIN, "hamlet:warden_hut")
    assert HOLLIN not in ws.contents("hamlet:mill")
    assert ws.contents("hamlet:warden_hut")[-1] == HOLLIN  # arrival order
    assert engine.world.get_component(HOLLIN, Position).room == "hamlet:warden_hut"
    assert ws.items_in("hamlet:warden_hut") == [data_uuid("hamlet", "item", "horn")]
    with pytest.raises(UnknownRoom):
        ws.move(HOLLIN, "hamlet:atlantis")
    assert ws.room_key_of(HOLLIN) == "hamlet:warden_hut"


async def test_destroyed_entities_leave_the_index(engine: GameEngine) -> None:
    ws = ws_of(engine)
    wolf = data_uuid("hamlet", "npc", "wolf#1")
    engine.world.destroy_entity(wolf)
    # Scheduled for destruction: no longer listed even before the safe point.
    assert wolf not in ws.contents("hamlet:road_copse")
    await engine.dispatch_events()
    assert ws.room_key_of(wolf) is None
    assert len(ws.npcs_in("hamlet:road_copse")) == 1
    assert ws.count_in("hamlet:road_copse") == 2  # the other wolf and the wheel


async def test_destroying_a_room_drops_it_and_its_paths(engine: GameEngine) -> None:
    ws = ws_of(engine)
    assert ws.path("hamlet:green", "hamlet:wolf_den") is not None
    engine.world.destroy_entity(ws.room_id("hamlet:road_ford"))  # type: ignore[arg-type]
    await engine.dispatch_events()
    assert not ws.has_room("hamlet:road_ford")
    assert ws.path("hamlet:green", "hamlet:wolf_den") is None


async def test_rebuilding_the_index_matches_incremental_updates(engine: GameEngine) -> None:
    ws = ws_of(engine)
    hero = new_character(engine, "Alice", online=False)
    ws.move(HOLLIN, "hamlet:inn")
    ws.move(hero, "hamlet:inn")
    before = {k: sorted(ws.contents(k)) for k in ws.room_keys()}
    ws.rebuild_index()
    assert {k: sorted(ws.contents(k)) for k in ws.room_keys()} == before


async def test_reindex_follows_a_hand_edited_position(engine: GameEngine) -> None:
    ws = ws_of(engine)
    engine.world.get_component(HOLLIN, Position).room = "hamlet:inn"
    assert ws.room_key_of(HOLLIN) == "hamlet:mill"  # bypassed the service
    ws.reindex(HOLLIN)
    assert ws.npcs_in("hamlet:inn")[-1] == HOLLIN


async def test_find_in_room_by_keyword_prefix_ordinal_and_kind(engine: GameEngine) -> None:
    ws = ws_of(engine)
    room = "hamlet:road_copse"
    wolves = [data_uuid("hamlet", "npc", f"wolf#{i}") for i in (1, 2)]
    wheel = data_uuid("hamlet", "item", "cart_wheel")
    assert ws.find_in_room(room, "wolf") == wolves[0]
    assert ws.find_in_room(room, "2.wolf") == wolves[1]
    assert ws.find_in_room(room, "gre") == wolves[0]
    assert ws.find_in_room(room, "grey wolf") == wolves[0]
    assert ws.find_in_room(room, "3.wolf") is None
    assert ws.find_in_room(room, "0.wolf") is None
    assert ws.find_in_room(room, "") is None
    assert ws.find_in_room(room, "wheel") == wheel
    assert ws.find_in_room(room, "wheel", kinds=[NPC]) is None
    assert ws.find_in_room(room, "cart", kinds=[Item]) == wheel
    assert ws.find_in_room(room, "wolf", viewer=wolves[0]) == wolves[1]
    ws.visibility_checks.append(lambda viewer, target: target != wolves[0])
    assert ws.find_in_room(room, "wolf") == wolves[1]
    assert ws.find_in_room(room, "2.wolf") is None


async def test_offline_characters_are_there_but_unseen(engine: GameEngine) -> None:
    ws = ws_of(engine)
    sleeper = new_character(engine, "Sleeper", online=False)
    hero = new_character(engine, "Alice", online=False)
    assert ws.characters_in("hamlet:green") == []
    assert ws.characters_in("hamlet:green", include_offline=True) == [sleeper, hero]
    assert ws.find_in_room("hamlet:green", "sleeper") is None
    await connect(engine, sleeper)
    assert ws.find_in_room("hamlet:green", "sleeper", viewer=hero) == sleeper
    assert ws.characters_in("hamlet:green") == [sleeper]


async def test_paths_and_reachability(engine: GameEngine) -> None:
    ws = ws_of(engine)
    assert ws.path("hamlet:green", "hamlet:green") == []
    assert ws.path("hamlet:mill", "hamlet:wolf_den") == [
        "east",
        "east",
        "south",
        "south",
        "south",
        "south",
        "east",
    ]
    assert ws.is_reachable("hamlet:wolf_den", "hamlet:inn_loft")
    assert not ws.is_reachable("hamlet:green", "hamlet:atlantis")
    assert ws.path("hamlet:green", "hamlet:atlantis") is None


async def test_changing_exits_invalidates_cached_paths(engine: GameEngine) -> None:
    ws = ws_of(engine)
    assert len(ws.path("hamlet:green", "hamlet:wolf_den") or []) == 5
    ws.set_exit("hamlet:green", "down", "hamlet:road_ford")
    assert ws.path("hamlet:green", "hamlet:wolf_den") == ["down", "east"]
    assert ws.remove_exit("hamlet:green", "down")
    assert not ws.remove_exit("hamlet:green", "down")
    assert len(ws.path("hamlet:green", "hamlet:wolf_den") or []) == 5
    # A fallen tree: the ford and the den are cut off entirely.
    ws.remove_exit("hamlet:road_copse", "south")
    assert not ws.is_reachable("hamlet:green", "hamlet:wolf_den")
    assert ws.is_reachable("hamlet:wolf_den", "hamlet:green")
    # Editing the component by hand needs an explicit invalidation.
    room = ws.room_id("hamlet:road_copse")
    assert room is not None
    engine.world.get_component(room, Exits).exits["south"] = "hamlet:road_ford"
    ws.invalidate_paths()
    assert ws.is_reachable("hamlet:green", "hamlet:wolf_den")
    with pytest.raises(UnknownRoom):
        ws.set_exit("hamlet:green", "down", "hamlet:atlantis")


async def test_room_info_gmcp_on_every_move_of_a_connected_character(
    engine: GameEngine,
) -> None:
    ws = ws_of(engine)
    hero = new_character(engine, "Alice", online=False)
    session = await connect(engine, hero)
    session.gmcp.clear()
    await cmd(engine, hero, "south")
    assert [p for p, _ in session.gmcp] == ["Room.Info", "Room.Players"]
    info = session.gmcp[0][1]
    assert session.gmcp[1][1] == [{"name": "Alice", "fullname": "Alice"}]
    gate = ws.room_id("hamlet:hamlet_gate")
    assert gate is not None
    assert info["num"] == room_num(gate)
    assert info["id"] == "hamlet:hamlet_gate"
    assert info["name"] == "The Hamlet Gate"
    assert info["area"] == "Ashford"
    assert info["exit_ids"] == {"north": "hamlet:green", "south": "hamlet:road_bridge"}
    assert info["exits"]["south"] == room_num(ws.room_id("hamlet:road_bridge"))  # type: ignore[arg-type]
    assert info["players"] == [{"name": "Alice", "fullname": "Alice"}]
    assert info["npcs"] == []
    ws.move(hero, "hamlet:mill", reason="teleport")
    await engine.dispatch_events()
    assert session.gmcp[-2][1]["id"] == "hamlet:mill"
    # Hollin leaves the mill: Alice, there, sees it at the end of the tick.
    ws.move(HOLLIN, "hamlet:green")
    await engine.dispatch_events()
    await engine.tick()
    assert session.gmcp[-1][1]["npcs"] == []
    # NPCs and offline characters get nothing (and cost nothing).
    session.gmcp.clear()
    ws.move(HOLLIN, "hamlet:mill_lane")
    await engine.dispatch_events()
    await engine.tick()
    assert session.gmcp == []


async def test_room_info_follows_who_comes_and_goes(engine: GameEngine) -> None:
    """An NPC coming sends Room.Info again (at the end of the tick); a player coming
    or going is one Room.AddPlayer / Room.RemovePlayer, never the whole list again;
    nothing is sent when nothing changed."""
    ws = ws_of(engine)
    hero = new_character(engine, "Alice", online=False)
    session = await connect(engine, hero)
    ws.move(hero, "hamlet:green", reason="teleport")
    ws.move(HOLLIN, "hamlet:mill")
    await engine.dispatch_events()
    await engine.tick()
    session.gmcp.clear()
    await engine.tick()
    assert session.gmcp == []  # nothing changed
    ws.move(HOLLIN, "hamlet:green")
    await engine.dispatch_events()
    assert session.gmcp == []  # not at once: at the end of the tick
    await engine.tick()
    [(package, info)] = session.gmcp
    assert package == "Room.Info"
    assert {"id": entity_num(HOLLIN), "name": "Hollin"} in info["npcs"]
    session.gmcp.clear()
    bob = new_character(engine, "Bob", online=False)
    ws.move(bob, "hamlet:green", reason="teleport")  # offline: nobody sees it
    await engine.dispatch_events()
    assert session.gmcp == []
    s_bob = await connect(engine, bob)
    await engine.tick()
    assert session.gmcp == [("Room.AddPlayer", {"name": "Bob", "fullname": "Bob"})]
    session.gmcp.clear()
    ws.move(bob, "hamlet:mill_lane")
    await engine.dispatch_events()
    ws.move(bob, "hamlet:green")
    await engine.dispatch_events()
    await engine.tick()
    assert session.gmcp == [
        ("Room.RemovePlayer", "Bob"),
        ("Room.AddPlayer", {"name": "Bob", "fullname": "Bob"}),
    ]
    session.gmcp.clear()
    await disconnect(engine, s_bob)
    assert session.gmcp == []  # at the end of the tick, with the rest of it
    await engine.tick()
    assert session.gmcp == [("Room.RemovePlayer", "Bob")]
    session.gmcp.clear()
    await engine.tick()
    assert session.gmcp == []
    # Alice's next Room.Players is the whole list again, whatever she was sent before.
    ws.move(hero, "hamlet:mill_lane")
    await engine.dispatch_events()
    assert dict(session.gmcp)["Room.Players"] == [{"name": "Alice", "fullname": "Alice"}]


async def test_message_room_reaches_connected_characters_there(engine: GameEngine) -> None:
    ws = ws_of(engine)
    a = await connect(engine, new_character(engine, "Alice", online=False))
    b_id = new_character(engine, "Bob", online=False)
    b = await connect(engine, b_id)
    a.sent.clear()
    b.sent.clear()
    assert ws.message_room("hamlet:green", "A bell tolls.", exclude=[b_id]) == 1
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
