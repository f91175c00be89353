"""The world's list of room names (which quest generation reads for every quest it
plans) is kept, and so are quest generation's lists made of it; a change shows in
them at once: a builder's ``@set`` and ``@dig``, a name assigned by code, a room
destroyed."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from kits.engines import ws_of

from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.questgen import QuestGen
from maid_stdlib.world import Room


def names(engine: GameEngine) -> dict[str, str]:
    return dict(ws_of(engine).room_names())


async def test_the_rooms_are_looked_up_once_while_none_changes(
    engine: GameEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked: list[UUID] = []
    world = engine.world
    real = world.try_component

    def counted(uid: UUID, ctype: Any) -> Any:
        if ctype is Room:
            looked.append(uid)
        return real(uid, ctype)

    monkeypatch.setattr(world, "try_component", counted)
    ws = ws_of(engine)
    assert ws.room_names()
    assert looked == []  # read at start-up (ws.warm)
    ws.rebuild_index()
    del looked[:]
    first = ws.room_names()
    assert len(looked) == len(first) == len(ws.room_keys())
    assert ws.room_names() is first
    assert len(looked) == len(first)  # the second read looked nothing up


async def test_a_renamed_room_reads_by_its_new_name(engine: GameEngine, builder: UUID) -> None:
    ws = ws_of(engine)
    assert names(engine)["hamlet:green"] == "Ashford Green"
    assert [k for k, _ in ws.room_names()] == ws.room_keys()
    out = await cmd(engine, builder, "@set here name The Old Green", role=Role.BUILDER)
    assert not out.startswith("Not changed"), out
    assert names(engine)["hamlet:green"] == "The Old Green"
    out = await cmd(engine, builder, "@dig ne The Stable Yard", role=Role.BUILDER)
    assert names(engine)["hamlet:stable_yard"] == "The Stable Yard"
    # Code that assigns the field (no version changes) is read as it stands too.
    yard = ws.room_id("hamlet:stable_yard")
    assert yard is not None
    engine.world.get_component(yard, Room).name = "The Mews"
    assert names(engine)["hamlet:stable_yard"] == "The Mews"
    engine.world.destroy_entity(yard)
    await engine.dispatch_events()
    assert "hamlet:stable_yard" not in names(engine)
    assert list(names(engine)) == ws.room_keys()


async def test_quest_generations_lists_of_names_are_kept_until_a_name_changes(
    engine: GameEngine,
) -> None:
    facts = engine.services.get(QuestGen).facts
    rooms, places = facts.room_names(), facts.place_names()
    assert ("hamlet:green", "Ashford Green") in rooms
    assert "Ashford Green" in places.split(" | ")
    assert facts.room_names() is rooms
    assert facts.place_names() is places
    green = ws_of(engine).room_id("hamlet:green")
    assert green is not None
    engine.world.get_component(green, Room).name = "The Old Green"
    assert ("hamlet:green", "The Old Green") in facts.room_names()
    assert "The Old Green" in facts.place_names().split(" | ")
    assert "Ashford Green" not in facts.place_names()
    # An area renamed: the places follow.
    area = ws_of(engine).area("hamlet:hamlet")
    assert area is not None
    area.name = "Ashford Vale"
    assert "Ashford Vale" in facts.place_names().split(" | ")
