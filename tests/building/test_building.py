"""Online building: each command changes the world at once and the pack's files,
keeping builders' comments, and refuses what would break the pack."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

import yaml
from kits.engines import ws_of

from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.packcheck import check_pack
from maid_engine.testing import cmd, session_for
from maid_stdlib.building.sources import dump_text, folded, load_text
from maid_stdlib.living.components import NeedsComponent
from maid_stdlib.living.facts import Schedule
from maid_stdlib.world import Describable, data_uuid

AREA = "areas/hamlet.yaml"


async def b(engine: GameEngine, who: UUID, line: str) -> str:
    return await cmd(engine, who, line, role=Role.BUILDER)


def area(root: Path) -> dict[str, Any]:
    data = yaml.safe_load((root / AREA).read_text())
    assert isinstance(data, dict)
    return data


def room_entry(root: Path, key: str) -> dict[str, Any]:
    return next(r for r in area(root)["rooms"] if r["key"] == key)


def valid(root: Path) -> None:
    from kits.hamlet.pack import HamletPack

    pack = type("CheckedHamlet", (HamletPack,), {"path": property(lambda self: root)})
    assert check_pack(pack) == []


async def test_dig_and_tunnel_make_rooms_both_ways_and_keep_comments(
    engine: GameEngine, builder: UUID, hamlet_dir: Path
) -> None:
    ws = ws_of(engine)
    text = (hamlet_dir / AREA).read_text()
    assert text.startswith("# The hamlet: the green, the mill, the inn and the warden's hut.")
    out = await b(engine, builder, "@dig ne The Stable Yard")
    assert out == "Dug northeast to The Stable Yard (hamlet:stable_yard) and back southwest."
    assert ws.exits_of("hamlet:green")["northeast"] == "hamlet:stable_yard"
    assert ws.exits_of("hamlet:stable_yard") == {"southwest": "hamlet:green"}
    assert ws.room_key_of(builder) == "hamlet:green"
    out = await b(engine, builder, "@tunnel up The Hayloft")
    assert out.splitlines()[0] == "Dug up to The Hayloft (hamlet:hayloft) and back down."
    assert ws.room_key_of(builder) == "hamlet:hayloft"
    assert "The Hayloft" in out
    assert await b(engine, builder, "@dig down Somewhere") == "There is already an exit down here."
    # A new room's editor starts empty (its placeholder is not text to keep).
    assert "(no text yet)" in await b(engine, builder, "@desc here")
    assert "nothing was saved" in await b(engine, builder, ".q")

    after = (hamlet_dir / AREA).read_text()
    # Every comment of the builder's file is still there.
    for line in text.splitlines():
        if line.strip().startswith("#"):
            assert line in after
    assert room_entry(hamlet_dir, "stable_yard")["exits"] == {"southwest": "green"}
    assert room_entry(hamlet_dir, "green")["exits"]["northeast"] == "stable_yard"
    valid(hamlet_dir)


async def test_a_comment_survives_several_edits(
    engine: GameEngine, builder: UUID, hamlet_dir: Path
) -> None:
    path = hamlet_dir / AREA
    text = path.read_text().replace(
        "  - key: green\n",
        "  # Bea: the green is the heart of the hamlet, keep it safe.\n  - key: green\n",
        1,
    )
    text = text.replace(
        "    flags: [outdoors, safe]\n", "    flags: [outdoors, safe]   # no fights here\n", 1
    )
    path.write_text(text)
    assert (await b(engine, builder, "@reload hamlet")).startswith("Reloaded hamlet")
    for line in (
        "@set here name The Village Green",
        "@desc here Short grass, a trough and a frog.",
        "@create a brass lamp",
        "@set lamp short A brass lamp hangs from a post.",
        "@dig w The Duck Pond",
        "@destroy exit west",
        "@open west mill_lane",
    ):
        out = await b(engine, builder, line)
        assert not out.startswith("Not changed"), (line, out)
    final = path.read_text()
    assert "  # Bea: the green is the heart of the hamlet, keep it safe.\n  - key: green\n" in final
    assert "    flags: [outdoors, safe]   # no fights here\n" in final
    assert final.startswith("# The hamlet: the green, the mill, the inn and the warden's hut.")
    green = room_entry(hamlet_dir, "green")
    assert green["name"] == "The Village Green"
    assert green["description"] == "Short grass, a trough and a frog."
    # Key order kept: the name is still second, as the builder wrote it.
    assert list(green)[:3] == ["key", "name", "flags"]
    room = ws_of(engine).room("hamlet:green")
    assert room is not None
    assert room.name == "The Village Green"
    valid(hamlet_dir)


async def test_an_edit_that_breaks_the_pack_is_refused_and_says_why(
    engine: GameEngine, builder: UUID, hamlet_dir: Path
) -> None:
    before = (hamlet_dir / AREA).read_text()
    out = await b(engine, builder, "@set here flags [Outdoors!]")
    assert out.startswith("Not changed: the edit would leave 1 problem in the pack")
    assert "room 'green': flags.0" in out
    assert (hamlet_dir / AREA).read_text() == before
    out = await b(engine, builder, "@destroy room")
    assert out.startswith("Not changed")
    assert "leads to unknown room 'hamlet:green'" in out
    assert ws_of(engine).has_room("hamlet:green")
    assert (hamlet_dir / AREA).read_text() == before
    assert await b(engine, builder, "@set here key meadow") == (
        "A key cannot change online (other entries refer to it)."
    )


async def test_create_set_and_destroy_an_item(
    engine: GameEngine, builder: UUID, hamlet_dir: Path
) -> None:
    ws = ws_of(engine)
    out = await b(engine, builder, "@create a brass lamp")
    assert out == (
        "Created the item a brass lamp (hamlet:brass_lamp) here, in hamlet/areas/hamlet.yaml."
    )
    lamp = data_uuid("hamlet", "item", "brass_lamp")
    assert lamp in ws.items_in("hamlet:green")
    entry = next(i for i in area(hamlet_dir)["items"] if i["key"] == "brass_lamp")
    assert entry == {
        "key": "brass_lamp",
        "name": "a brass lamp",
        "keywords": ["brass", "lamp"],
        "room": "green",
    }
    assert "keywords: [brass, lamp]" in (hamlet_dir / AREA).read_text()
    await b(engine, builder, "@set lamp keywords [lamp, lantern]")
    assert engine.world.get_component(lamp, Describable).keywords == ["lamp", "lantern"]
    out = await b(engine, builder, "@examine lantern")
    assert "item hamlet:brass_lamp" in out
    assert "Defined in: pack hamlet, file hamlet/areas/hamlet.yaml, line" in out
    assert "Now in: hamlet:green" in out
    assert await b(engine, builder, "@destroy lamp") == "Destroyed item hamlet:brass_lamp."
    await engine.dispatch_events()
    assert not engine.world.entity_exists(lamp)
    assert all(i["key"] != "brass_lamp" for i in area(hamlet_dir).get("items", []))
    valid(hamlet_dir)


async def test_examine_names_the_file_and_line(
    engine: GameEngine, builder: UUID, hamlet_dir: Path
) -> None:
    lines = (hamlet_dir / AREA).read_text().splitlines()
    out = await b(engine, builder, "@examine")
    number = lines.index("  - key: green") + 1
    assert out.splitlines()[:2] == [
        "room hamlet:green",
        f"Defined in: pack hamlet, file hamlet/areas/hamlet.yaml, line {number}",
    ]
    ws_of(engine).move(builder, "hamlet:mill")
    out = await b(engine, builder, "@examine hollin")
    living = (hamlet_dir / "living.yaml").read_text().splitlines()
    assert f"Living data: hamlet/living.yaml, line {living.index('  hollin:') + 1}" in out
    assert "Entity " in out
    assert "Nothing here matches 'nobody'" in await b(engine, builder, "@examine nobody")
    assert "Huh?" in await cmd(engine, builder, "@examine")  # a player: not a command


async def test_npc_create_and_living_data(
    engine: GameEngine, builder: UUID, hamlet_dir: Path
) -> None:
    living_text = (hamlet_dir / "living.yaml").read_text()
    out = await b(engine, builder, "@npc create Mira the ostler")
    assert out == (
        "Created the NPC Mira the ostler (hamlet:mira_the_ostler) here, in "
        "hamlet/areas/hamlet.yaml."
    )
    mira = data_uuid("hamlet", "npc", "mira_the_ostler")
    assert mira in ws_of(engine).npcs_in("hamlet:green")
    assert "set" in await b(engine, builder, "@npc mira need social 0.6 0.002 0.3")
    assert "goes to hamlet:inn" in await b(engine, builder, "@npc mira schedule 19 inn drinking")
    await b(engine, builder, "@npc mira schedule 7 green")
    assert "member of hamlet" in await b(engine, builder, "@npc mira faction hamlet")
    out = await b(engine, builder, "@npc mira influence 0.3")
    assert out == "hamlet:mira_the_ostler: influence set."
    needs = engine.world.get_component(mira, NeedsComponent)
    assert needs.needs["social"].value == 0.6
    schedule = engine.world.get_component(mira, Schedule)
    assert [(e.hour, e.room) for e in schedule.entries] == [(7, "hamlet:green"), (19, "hamlet:inn")]
    data = yaml.safe_load((hamlet_dir / "living.yaml").read_text())
    assert data["npcs"]["mira_the_ostler"]["factions"] == {"hamlet": "member"}
    # The rest of the living file, comments included, is as it was.
    assert (hamlet_dir / "living.yaml").read_text().startswith(living_text.rstrip("\n"))
    shown = await b(engine, builder, "@npc mira")
    assert "schedule:" in shown
    assert "- {hour: 7, room: green}" in shown
    out = await b(engine, builder, "@npc mira schedule 8 atlantis")
    assert out == "No room or character matches 'atlantis'."
    out = await b(engine, builder, "@npc mira need social lots")
    assert out == "The value, decay and threshold are numbers."
    out = await b(engine, builder, "@npc mira goals [{id: x, type: NOPE}]")
    assert out.startswith("Not changed")
    valid(hamlet_dir)


async def test_the_line_editor(engine: GameEngine, builder: UUID, hamlet_dir: Path) -> None:
    ws_of(engine).move(builder, "hamlet:inn_loft")
    out = await b(engine, builder, "@desc here")
    assert out.startswith("Editing the description of hamlet:inn_loft.")
    assert " 1] A loft of straw mattresses under the thatch." in out
    assert await b(engine, builder, ".c") == "Cleared."
    await b(engine, builder, "A loft of straw mattresses")
    await b(engine, builder, "look")  # text while editing, not a command
    await b(engine, builder, "under a thatch that leaks when it rains.")
    assert await b(engine, builder, ".l") == (
        " 1] A loft of straw mattresses\n 2] look\n 3] under a thatch that leaks when it rains."
    )
    assert await b(engine, builder, ".d 2") == "Deleted line 2: look"
    assert "Usage: .d N, with N from 1 to 2." in await b(engine, builder, ".d 9")
    assert "Unknown editor command '.x'" in await b(engine, builder, ".x")
    assert ".q" in await b(engine, builder, ".h")
    assert await b(engine, builder, ".") == "Description of hamlet:inn_loft saved."
    room = ws_of(engine).room("hamlet:inn_loft")
    assert room is not None
    assert room.description == "A loft of straw mattresses under a thatch that leaks when it rains."
    assert "|cThe Inn Loft|n" in await b(engine, builder, "look")  # a command again
    # .q leaves the text as it was.
    await b(engine, builder, "@desc here")
    await b(engine, builder, "nonsense")
    assert await b(engine, builder, ".q") == (
        "Stopped editing the description of hamlet:inn_loft; nothing was saved."
    )
    assert room_entry(hamlet_dir, "inn_loft")["description"].startswith("A loft of straw")


async def test_a_refused_save_keeps_the_editor_open(
    engine: GameEngine, builder: UUID, hamlet_dir: Path
) -> None:
    await b(engine, builder, "@desc here")
    await b(engine, builder, ".c")
    out = await b(engine, builder, ".")
    assert out.startswith("Not changed")
    assert "Still editing" in out
    await b(engine, builder, "A green, greener than ever.")
    assert await b(engine, builder, ".") == "Description of hamlet:green saved."
    assert session_for(engine, builder).data.get("building.editor") is None


def test_long_text_is_folded_as_a_builder_would_write_it() -> None:
    text = " ".join(["word"] * 40)
    doc = load_text("description: x\n")
    doc["description"] = folded(text)
    out = dump_text(doc)
    assert out.startswith("description: >-\n  word")
    assert all(len(line) <= 80 for line in out.splitlines())
    assert yaml.safe_load(out)["description"] == text
    assert folded("short") == "short"


async def test_usage_lines(engine: GameEngine, builder: UUID) -> None:
    assert await b(engine, builder, "@dig north") == "Usage: @dig <direction> <room name>"
    assert await b(engine, builder, "@open") == "Usage: @open <exit> <room key or name>"
    assert await b(engine, builder, "@set here") == "Usage: @set <thing> <field> <value>"
    assert await b(engine, builder, "@create") == "Usage: @create <name>"
    assert await b(engine, builder, "@npc") == (
        "Usage: @npc create <name> || @npc <npc> [what] [values]"  # "|" escaped
    )
    assert "is not an NPC" in await b(engine, builder, "@npc here need x 1")
    assert "There is already an exit north" in await b(engine, builder, "@open north inn")
    assert "Exit north now leads to hamlet:inn." in await b(engine, builder, "@link north inn")
    assert "There is no exit 'sideways' here." in await b(engine, builder, "@destroy exit sideways")
