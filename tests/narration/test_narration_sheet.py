"""``state``, ``@state`` and builders' edits."""

from __future__ import annotations

from narration.narrkit import CELLAR, TOWER, block, fast, player, room_id, scripted, service, settle

from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.narration.sheet import bar
from maid_stdlib.world import WorldService
from maid_stdlib.worldstate import NarratedPlayerStats, NarratedRoomState, StatDef


def test_bars_run_from_min_to_max() -> None:
    assert bar(StatDef(min=0, max=100), 55) == "[######----]"
    assert bar(StatDef(min=-100, max=100), 0) == "[#####-----]"
    assert bar(StatDef(min=0, max=50), 50) == "[##########]"
    assert bar(StatDef(min=1), 3) == ""


async def test_state_shows_world_you_npcs_here_and_goals(engine: GameEngine) -> None:
    fast(engine, scripted(block('{"player.hp": -35, "milestones.rescue_gwen": true}')))
    hero, _ = player(engine, "Aldric")
    await cmd(engine, hero, "act smash the lock")
    await settle(service(engine).drain())
    text = await cmd(engine, hero, "state")
    assert "The Cellar" in text
    assert "hp             60/100   [######----] healthy" in text
    assert "mana           20/50    [####------] steady" not in text  # mana has no bands
    assert "mana           20/50    [####------]" in text
    assert "Gwen" in text
    assert "trust" in text
    assert "wary" in text
    assert "day            1        (counter)" in text
    assert "[x]|n Rescue Gwen from the bandits" in text
    assert "[ ] Arrive at the capital city" in text
    assert "Flags: has key no" in text


async def test_builders_set_values_checked_and_clamped(engine: GameEngine) -> None:
    builder, _ = player(engine, "Bryn", role=Role.BUILDER)
    hero, _ = player(engine, "Aldric")

    async def state(line: str) -> str:
        return await cmd(engine, builder, f"@state {line}", role=Role.BUILDER)

    assert await state("set world.day 3") == "world.day: 1 -> 3."
    assert await state("set player.hp 250 Aldric") == (
        "player.hp: 90 -> 100 (clamped to its maximum of 100)."
    )
    assert await state("set npc.gwen.trust -40.6") == "npc.gwen.trust: 20 -> -41."
    assert await state("set flags.has_key true") == "flags.has_key: false -> true."
    assert await state("set milestones.rescue_gwen true") == (
        "milestones.rescue_gwen: pending -> reached."
    )
    assert "Did you mean `player.hp`" in await state("set player.hpp 3")
    assert "takes a number" in await state("set world.day soon")
    assert "No character called 'zed'" in await state("set player.hp 3 zed")
    room = room_id(engine, CELLAR)
    stored = engine.world.get_component(room, NarratedRoomState)
    assert stored.world["day"] == 3
    assert stored.flags["has_key"] is True
    assert stored.milestones == {"rescue_gwen": 0}
    assert engine.world.get_component(hero, NarratedPlayerStats).values[CELLAR]["hp"] == 100
    sheet = await state("Aldric")
    assert "You (Aldric)" in sheet
    assert "player.hp" in sheet
    assert "(milestones.rescue_gwen)" in sheet
    assert "action index 0" in sheet
    assert await state("set milestones.rescue_gwen false") == (
        "milestones.rescue_gwen: reached -> pending."
    )


async def test_at_state_is_for_builders_and_players_cannot_use_it(engine: GameEngine) -> None:
    hero, _ = player(engine, "Aldric")
    out = await cmd(engine, hero, "@state set world.day 9")
    assert "Huh?" in out
    room = room_id(engine, CELLAR)
    assert engine.world.get_component(room, NarratedRoomState).world["day"] == 1


async def test_the_builder_sheet_lists_npcs_that_are_away(engine: GameEngine) -> None:
    builder, _ = player(engine, "Bryn", room=TOWER, role=Role.BUILDER)
    sheet = await cmd(engine, builder, "@state", role=Role.BUILDER)
    assert "Hask (npc.hask)" in sheet
    assert "world.alarm" in sheet
    assert "scope woods" in sheet
    ws = engine.services.get(WorldService)
    hask = service(engine).rooms[TOWER].npcs["hask"]
    async with engine.world_lock:
        ws.move(hask, "testpack:camp")
    assert "Hask (npc.hask) — not here" in await cmd(engine, builder, "@state", role=Role.BUILDER)
    assert "Hask" not in await cmd(engine, builder, "state", role=Role.BUILDER)
