"""@reload: a world pack's files applied to the running world, or nothing at all."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from kits.engines import ws_of
from kits.hamlet.pack import HamletPack
from kits.heroes import new_character
from world.worldkit import (
    OgreStats,
    connect,
    make_engine,
    stats_pack,
    tiny_area,
    tmp_pack,
    write_yaml,
)

from maid_engine.commands import Role
from maid_engine.testing import cmd
from maid_stdlib.living import LivingWorld
from maid_stdlib.living.components import NeedsComponent
from maid_stdlib.living.facts import Schedule
from maid_stdlib.world import Describable, WorldData, data_uuid
from maid_stdlib.world.events import PackReloadedEvent
from maid_stdlib.world.reload import PackReloader, PackWatcher, PackWatchSystem

KITS = Path(__file__).resolve().parents[1] / "kits"


def town(**changes: Any) -> dict[str, Any]:
    area = tiny_area(
        npcs=[
            {"key": "bob", "name": "Bob", "keywords": ["bob"], "room": "hall"},
            {"key": "ogre", "name": "an ogre", "keywords": ["ogre"], "room": "yard"},
        ],
        items=[{"key": "lamp", "name": "a lamp", "keywords": ["lamp"], "room": "yard"}],
    )
    area["npcs"][1]["stats"] = {"level": 2, "hp": 20}
    area.update(changes)
    return area


def reloader(engine: Any) -> PackReloader:
    result: PackReloader = engine.services.get(PackReloader)
    return result


async def test_reload_applies_the_difference_and_keeps_what_the_world_owns(
    tmp_path: Path,
) -> None:
    root = tmp_path / "testpack"
    area = town()
    write_yaml(root / "areas" / "town.yaml", area)
    write_yaml(root / "pack.yaml", {"start_room": "hall"})
    pack = tmp_pack(root, requires=("stdlib", "rules"))
    bob = data_uuid("testpack", "npc", "bob")
    ogre = data_uuid("testpack", "npc", "ogre")
    lamp = data_uuid("testpack", "item", "lamp")
    async with make_engine(tmp_path, [stats_pack(), pack]).lifespan() as engine:
        ws = ws_of(engine)
        hero = new_character(engine, "Alice", online=False)
        await connect(engine, hero, Role.BUILDER)
        ws.move(hero, "testpack:hall")
        ws.move(bob, "testpack:yard")  # he wandered off in play
        engine.world.get_component(ogre, OgreStats).hp = 3  # wounded in play
        seen: list[str] = []
        engine.events.subscribe(PackReloadedEvent, lambda e: seen.append(e.pack))

        area["rooms"][0]["description"] = "A hall, freshly painted."
        area["rooms"][0]["exits"]["down"] = "cellar"
        area["rooms"].append(
            {"key": "cellar", "name": "Cellar", "description": "Damp.", "exits": {"up": "hall"}}
        )
        area["npcs"][0]["description"] = "Bob, in a new coat."
        area["items"] = [{"key": "key", "name": "a key", "keywords": ["key"], "room": "cellar"}]
        write_yaml(root / "areas" / "town.yaml", area)

        result = reloader(engine).reload("testpack")
        assert result.ok, result.problems
        await engine.dispatch_events()
        lines = result.lines()
        assert lines[0] == "Reloaded testpack: 2 new, 2 changed, 1 removed, 3 unchanged."
        assert "  new room: testpack:cellar" in lines
        assert "  removed item: testpack:lamp" in lines
        assert seen == ["testpack"]

        room = ws.room("testpack:hall")
        assert room is not None
        assert room.description == "A hall, freshly painted."
        assert ws.exits_of("testpack:hall") == {"north": "testpack:yard", "down": "testpack:cellar"}
        assert ws.path("testpack:yard", "testpack:cellar") == ["south", "down"]
        assert engine.world.get_component(bob, Describable).description == "Bob, in a new coat."
        assert ws.room_key_of(bob) == "testpack:yard"  # where he is: the world's
        assert engine.world.get_component(ogre, OgreStats).hp == 3  # unchanged section
        assert not engine.world.entity_exists(lamp)
        assert ws.items_in("testpack:cellar") == [data_uuid("testpack", "item", "key")]
        # The builder never left.
        assert ws.room_key_of(hero) == "testpack:hall"
        assert engine.sessions.is_online(hero)

        # A second reload of the same files changes nothing.
        again = reloader(engine).reload("testpack")
        assert again.lines() == ["Reloaded testpack: 0 new, 0 changed, 0 removed, 7 unchanged."]


async def test_a_failed_validation_changes_nothing_and_lists_every_problem(
    tmp_path: Path,
) -> None:
    root = tmp_path / "testpack"
    area = town()
    write_yaml(root / "areas" / "town.yaml", area)
    pack = tmp_pack(root, requires=("stdlib", "rules"))
    async with make_engine(tmp_path, [stats_pack(), pack]).lifespan() as engine:
        ws = ws_of(engine)
        before = engine.services.get(WorldData).load("testpack")
        area["rooms"][0]["description"] = "Half an edit."
        area["rooms"][0]["exits"]["east"] = "nowhere"
        area["npcs"][0]["keywords"] = []
        area["npcs"][1]["stats"] = {"level": "high"}
        write_yaml(root / "areas" / "town.yaml", area)

        result = reloader(engine).reload("testpack")
        assert not result.ok
        text = "\n".join(result.lines())
        assert text.startswith("Reload of testpack refused: 3 problems; nothing was changed.")
        assert "exit 'east' leads to unknown room 'testpack:nowhere'" in text
        assert "npc 'bob': keywords" in text
        assert "npc 'ogre': stats.level" in text
        room = ws.room("testpack:hall")
        assert room is not None
        assert room.description == "A hall."
        assert engine.services.get(WorldData).load("testpack") is before

        unknown = reloader(engine).reload("atlantis")
        assert unknown.problems == ["no world pack 'atlantis' (world packs: testpack)"]


async def test_a_removed_room_sends_its_occupants_to_the_start_room(tmp_path: Path) -> None:
    root = tmp_path / "testpack"
    area = town()
    write_yaml(root / "areas" / "town.yaml", area)
    write_yaml(root / "pack.yaml", {"start_room": "hall"})
    pack = tmp_pack(root, requires=("stdlib", "rules"))
    async with make_engine(tmp_path, [stats_pack(), pack]).lifespan() as engine:
        ws = ws_of(engine)
        hero = new_character(engine, "Alice", online=False)
        session = await connect(engine, hero)
        ws.move(hero, "testpack:yard")
        area["rooms"] = [{"key": "hall", "name": "Hall", "description": "A hall."}]
        area["npcs"] = area["npcs"][:1]
        area["items"] = []
        write_yaml(root / "areas" / "town.yaml", area)
        session.sent.clear()

        result = reloader(engine).reload("testpack")
        assert result.ok, result.problems
        await engine.dispatch_events()
        assert ws.room_key_of(hero) == "testpack:hall"
        assert not ws.has_room("testpack:yard")
        assert ws.exits_of("testpack:hall") == {}
        assert any("you find yourself in Hall" in line for line in session.sent)
        assert "  moved out of removed rooms: 1" in result.lines()


async def test_a_pack_requiring_it_must_still_be_valid(tmp_path: Path) -> None:
    base_root = tmp_path / "base"
    base_area = tiny_area()
    write_yaml(base_root / "areas" / "town.yaml", base_area)
    base = tmp_pack(base_root, name="base")
    annex_root = tmp_path / "annex"
    write_yaml(
        annex_root / "areas" / "annex.yaml",
        tiny_area(
            "annex",
            rooms=[
                {
                    "key": "shed",
                    "name": "Shed",
                    "description": "A shed.",
                    "exits": {"w": "base:yard"},
                }
            ],
        ),
    )
    annex = tmp_pack(annex_root, name="annex", requires=("base",))
    async with make_engine(tmp_path, [base, annex]).lifespan() as engine:
        base_area["rooms"] = base_area["rooms"][:1]
        base_area["rooms"][0]["exits"] = {}
        write_yaml(base_root / "areas" / "town.yaml", base_area)
        result = reloader(engine).reload("base")
        assert not result.ok
        assert result.problems == [
            "annex/areas/annex.yaml:6: room 'shed': exit 'west' leads to unknown room 'base:yard'"
        ]
        assert ws_of(engine).has_room("base:yard")


async def test_living_data_is_read_again_and_state_is_kept(tmp_path: Path) -> None:
    root = tmp_path / "hamlet"
    shutil.copytree(KITS / "hamlet", root)
    pack = type("ReloadedHamlet", (HamletPack,), {"path": property(lambda self: root)})
    hollin = data_uuid("hamlet", "npc", "hollin")
    async with make_engine(tmp_path, [pack]).lifespan() as engine:
        living = engine.services.get(LivingWorld)
        needs = engine.world.get_component(hollin, NeedsComponent)
        needs.needs["economic"].value = 0.11  # hungry in play
        crises = list(living.registries.crises)
        text = (root / "living.yaml").read_text()
        edited = text.replace("- {hour: 19, room: inn}", "- {hour: 20, room: inn}", 1)
        assert edited != text
        (root / "living.yaml").write_text(edited)

        result = reloader(engine).reload("hamlet")
        assert result.ok, result.problems
        assert any("living data: hamlet/living.yaml applied again" in n for n in result.lines())
        schedule = engine.world.get_component(hollin, Schedule)
        assert [e.hour for e in schedule.entries] == [7, 20, 22]
        needs = engine.world.get_component(hollin, NeedsComponent)
        assert needs.needs["economic"].value == 0.11
        assert living.registries.crises == crises  # not added twice

        (root / "living.yaml").write_text(edited.replace("room: inn}", "room: moon}", 1))
        refused = reloader(engine).reload("hamlet")
        assert not refused.ok
        assert any("unknown room 'hamlet:moon'" in p for p in refused.problems)
        assert [e.hour for e in engine.world.get_component(hollin, Schedule).entries] == [7, 20, 22]


async def test_the_reload_command(tmp_path: Path) -> None:
    root = tmp_path / "testpack"
    area = town()
    write_yaml(root / "areas" / "town.yaml", area)
    pack = tmp_pack(root, requires=("stdlib", "rules"))
    async with make_engine(tmp_path, [stats_pack(), pack]).lifespan() as engine:
        hero = new_character(engine, "Alice", online=False)
        out = await cmd(engine, hero, "@reload", role=Role.BUILDER)
        assert out == "Usage: @reload <pack>. World packs: testpack."
        area["rooms"][1]["name"] = "Back Yard"
        write_yaml(root / "areas" / "town.yaml", area)
        out = await cmd(engine, hero, "@reload testpack", role=Role.BUILDER)
        assert out.splitlines()[:2] == [
            "Reloaded testpack: 0 new, 1 changed, 0 removed, 5 unchanged.",
            "  changed room: testpack:yard",
        ]
        player = await cmd(engine, hero, "@reload testpack", role=Role.PLAYER)
        assert "Reloaded" not in player


async def test_watch_reloads_a_pack_whose_files_changed(tmp_path: Path) -> None:
    root = tmp_path / "testpack"
    area = town()
    write_yaml(root / "areas" / "town.yaml", area)
    pack = tmp_pack(root, requires=("stdlib", "rules"))
    async with make_engine(tmp_path, [stats_pack(), pack]).lifespan() as engine:
        times: dict[Path, float] = {}
        lines: list[str] = []
        watcher = PackWatcher(reloader(engine), lines.append, stat=lambda p: times.get(p, 1.0))
        clock = [100.0]
        system = PackWatchSystem(watcher, interval=2.0, now=lambda: clock[0])
        await system.startup()
        await system.update(0.1)
        assert lines == []
        area["rooms"][0]["name"] = "Great Hall"
        write_yaml(root / "areas" / "town.yaml", area)
        times[root / "areas" / "town.yaml"] = 2.0
        clock[0] = 101.0
        await system.update(0.1)
        assert lines == []  # not yet time to look
        clock[0] = 102.5
        await system.update(0.1)
        assert lines[0].startswith("Reloaded testpack: 0 new, 1 changed")
        room = ws_of(engine).room("testpack:hall")
        assert room is not None
        assert room.name == "Great Hall"
        clock[0] = 105.0
        await system.update(0.1)
        assert len(lines) == 2  # nothing changed since: no second reload


async def test_watch_is_a_system_only_when_asked_for(tmp_path: Path) -> None:
    plain = make_engine(tmp_path / "a")
    plain.register_packs()
    assert not any(isinstance(s, PackWatchSystem) for s in plain.systems)
    engine = make_engine(tmp_path / "b", settings={"watch": True})
    engine.register_packs()
    assert any(isinstance(s, PackWatchSystem) for s in engine.systems)
