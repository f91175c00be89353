"""The building commands' refusals and corners: usage, values, what is not in a file."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import yaml
from kits.engines import ws_of
from kits.heroes import new_character

from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.building.sources import find_entry, line_of, load_text

AREA = "areas/hamlet.yaml"


async def b(engine: GameEngine, who: UUID, line: str) -> str:
    return await cmd(engine, who, line, role=Role.BUILDER)


async def test_set_reaches_into_sections_and_removes_fields(
    engine: GameEngine, builder: UUID, hamlet_dir: Path
) -> None:
    ws_of(engine).move(builder, "hamlet:inn_loft")
    out = await b(engine, builder, "@set here details.straw Dusty straw, years old.")
    assert out == "hamlet:inn_loft: details.straw set to Dusty straw, years old.."
    room = ws_of(engine).room("hamlet:inn_loft")
    assert room is not None
    assert room.details == {"straw": "Dusty straw, years old."}
    assert await b(engine, builder, "@set here details null") == (
        "hamlet:inn_loft: details removed."
    )
    room = ws_of(engine).room("hamlet:inn_loft")
    assert room is not None
    assert room.details == {}
    out = await b(engine, builder, "@set here flags [unclosed")
    assert out.startswith("Cannot read '[unclosed' as a value")
    out = await b(engine, builder, "@examine hamlet:hollin")
    assert out.startswith("npc hamlet:hollin\nDefined in: pack hamlet")
    assert "Entity" not in out  # a key names the entry, not one of its NPCs


async def test_what_is_not_defined_in_a_file_is_refused(
    engine: GameEngine, builder: UUID, hamlet_dir: Path
) -> None:
    ws = ws_of(engine)
    other = new_character(engine, "Cole", online=True)
    ws.move(other, "hamlet:green")
    assert await b(engine, builder, "@examine cole") == (
        "'cole' is not defined in a world pack's files."
    )
    assert await b(engine, builder, "@desc") == "Usage: @desc <thing> [text]"
    assert await b(engine, builder, "@destroy") == (
        "Usage: @destroy <thing> || @destroy exit <exit> || @destroy room"  # "|" escaped
    )
    # An exit opened in play is not in the file: nothing to remove there.
    ws.set_exit("hamlet:green", "down", "hamlet:inn_loft")
    out = await b(engine, builder, "@destroy exit down")
    assert out.startswith("Not changed: the edit would leave 1 problem")
    assert "the exit down is not in hamlet/areas/hamlet.yaml (added in play?)" in out
    assert await b(engine, builder, "@open up green") == (
        "An exit cannot lead back into the same room."
    )


async def test_npc_usage_and_living_corners(
    engine: GameEngine, builder: UUID, hamlet_dir: Path
) -> None:
    await b(engine, builder, "@npc create Odo the tinker")
    assert await b(engine, builder, "@npc odo") == (
        "hamlet:odo_the_tinker has no living data yet (see help @npc)."
    )
    for line, usage in (
        ("@npc odo need social", "Usage: @npc <npc> need <need> <value> [decay] [threshold]"),
        ("@npc odo schedule noon green", "Usage: @npc <npc> schedule <hour> <room> [activity]"),
        ("@npc odo faction", "Usage: @npc <npc> faction <faction> [role]"),
        ("@npc odo influence", "Usage: @npc <npc> <field> <value>"),
    ):
        assert await b(engine, builder, line) == usage
    await b(engine, builder, "@npc odo schedule 9 green")
    await b(engine, builder, "@npc odo schedule 9 inn resting")
    data = yaml.safe_load((hamlet_dir / "living.yaml").read_text())
    assert data["npcs"]["odo_the_tinker"]["schedule"] == [
        {"hour": 9, "room": "inn", "activity": "resting"}
    ]
    await b(engine, builder, "@npc create Pim")
    await b(engine, builder, "@npc pim influence 0.2")
    assert await b(engine, builder, "@npc pim influence null") == "hamlet:pim: influence removed."
    data = yaml.safe_load((hamlet_dir / "living.yaml").read_text())
    assert "pim" not in data["npcs"]  # nothing left of it
    # The last exit of a room removed takes the empty mapping with it.
    ws_of(engine).move(builder, "hamlet:inn_loft")
    assert await b(engine, builder, "@destroy exit down") == "Exit down removed."
    loft = next(
        r
        for r in yaml.safe_load((hamlet_dir / AREA).read_text())["rooms"]
        if r["key"] == "inn_loft"
    )
    assert "exits" not in loft


def test_sources_find_entries_and_lines(hamlet_dir: Path) -> None:
    doc = load_text((hamlet_dir / AREA).read_text())
    area = find_entry(doc, "area", "hamlet")
    assert area is not None
    assert area["name"] == "Ashford"
    assert find_entry(doc, "room", "nowhere") is None
    assert find_entry(load_text("[1, 2]"), "room", "green") is None
    assert find_entry(load_text("area: {key: x}\n"), "npc", "bob") is None
    assert line_of(hamlet_dir / AREA, ["area"]) == 2
    assert line_of(hamlet_dir / AREA, ["nothing"]) is None
    assert line_of(hamlet_dir / "missing.yaml", ["npcs"]) is None
