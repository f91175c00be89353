"""exits, map, where, time and recall, as a player types them (on Hamlet)."""

from __future__ import annotations

from typing import cast

from kits.engines import hv, ws_of
from kits.heroes import new_character, place

from classic_rpg.combat.service import CombatService
from maid_engine.clock import GAME_DAY, GAME_HOUR, ManualClock
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.navigation import Navigation
from maid_stdlib.world import Exits


def clock(engine: GameEngine) -> ManualClock:
    return cast(ManualClock, engine.clock)


async def test_exits_name_where_each_way_leads(engine: GameEngine) -> None:
    hero = new_character(engine, "Alice")
    assert await cmd(engine, hero, "exits") == "\n".join(
        [
            "|gObvious exits:|n",
            "  north  The Warden's Hut",
            "  east   The Sheaf Inn",
            "  south  The Hamlet Gate",
            "  west   Mill Lane",
        ]
    )
    place(engine, hero, "hamlet:inn")
    # An exit to a room that is not loaded (its pack was dropped, say).
    ws = ws_of(engine)
    inn = ws.room_id("hamlet:inn")
    assert inn is not None
    engine.world.get_component(inn, Exits).exits["trapdoor"] = "hamlet:nowhere"
    ws.invalidate_paths()
    out = await cmd(engine, hero, "exits")
    assert "  up        The Inn Loft" in out
    assert "  trapdoor  somewhere you cannot make out" in out


async def test_exits_of_a_room_without_any(engine: GameEngine) -> None:
    hero = new_character(engine, "Alice")
    ws = ws_of(engine)
    place(engine, hero, "hamlet:inn_loft")
    ws.remove_exit("hamlet:inn_loft", "down")
    assert await cmd(engine, hero, "exits") == "There is no obvious way out of here."


async def test_the_map_around_the_green(engine: GameEngine) -> None:
    hero = new_character(engine, "Alice")
    assert await cmd(engine, hero, "map") == "\n".join(
        [
            "|cAround Ashford Green|n (radius 4)",
            "         [ ]",
            "          ||",
            " [ ]-[ ]-[|y@|n]-[^]",
            "          ||",
            "         [ ]",
            "          ||",
            "         [ ]",
            "          ||",
            "         [ ]",
            "          ||",
            "         [ ]-",
            "[@] you  [^] way up  [v] way down  [#] up and down  - || / \\ ways",
        ]
    )
    out = await cmd(engine, hero, "map 5")
    assert "(radius 5)" in out
    assert "         [ ]-[ ]" in out  # the wolf den, five steps away


async def test_the_map_radius_must_be_a_small_number(engine: GameEngine) -> None:
    hero = new_character(engine, "Alice")
    for bad in ("0", "10", "big", "-1"):
        assert await cmd(engine, hero, f"map {bad}") == (
            "Usage: map [<radius>] (a number of steps, 1 to 9)"
        )


async def test_the_map_fits_a_narrow_client(engine: GameEngine) -> None:
    hero = new_character(engine, "Alice")
    session_for(engine, hero).caps.width = 10
    out = await cmd(engine, hero, "map 1")
    drawn = out.splitlines()[1:-1]
    assert max(len(line.replace("|y@|n", "@").replace("||", "|")) for line in drawn) <= 20
    assert any("@" in line for line in drawn)


async def test_where_lists_the_players_of_your_area(engine: GameEngine) -> None:
    alice = new_character(engine, "Alice")
    bob = new_character(engine, "Bob")
    cara = new_character(engine, "Cara")
    new_character(engine, "Dirk", online=False)  # offline: never listed
    place(engine, bob, "hamlet:inn")
    place(engine, cara, "hamlet:road_ford")  # another area: the Mill Road
    assert await cmd(engine, alice, "where") == "\n".join(
        [
            "|cPlayers in Ashford:|n",
            "  Alice  Ashford Green |x(you)|n",
            "  Bob    The Sheaf Inn",
        ]
    )
    assert await cmd(engine, alice, "where bo") == "Bob is in The Sheaf Inn."
    assert await cmd(engine, alice, "where cara") == "Cara is not anywhere near you."
    assert await cmd(engine, cara, "where") == "\n".join(
        ["|cPlayers in The Mill Road:|n", "  Cara  The Ford |x(you)|n", "Nobody else is around."]
    )
    assert await cmd(engine, alice, "where zed") == (
        "Nobody called 'zed' is anywhere in Ashford. (Only the area you are in is searched.)"
    )


async def test_where_finds_the_people_and_creatures_of_your_area(engine: GameEngine) -> None:
    # Not only players: a quest giver gone about their day, a beast to hunt.
    alice = new_character(engine, "Alice")
    assert await cmd(engine, alice, "where hollin") == "Hollin is in The Mill."
    assert await cmd(engine, alice, "where keeper") == "Marta is in The Sheaf Inn."
    # The wolves are on the Mill Road, another area.
    assert await cmd(engine, alice, "where wolf") == (
        "Nobody called 'wolf' is anywhere in Ashford. (Only the area you are in is searched.)"
    )
    place(engine, alice, "hamlet:road_bridge")
    assert await cmd(engine, alice, "where wolf") == "\n".join(
        ["2 grey wolves are in The Copse.", "Old Grey is in The Wolf Den."]
    )
    # A player of that name comes first.
    pell = new_character(engine, "Pellam")
    place(engine, pell, "hamlet:road_ford")
    assert await cmd(engine, alice, "where pell") == "Pellam is in The Ford."


async def test_time_names_the_hour_the_weekday_and_the_season(engine: GameEngine) -> None:
    hero = new_character(engine, "Alice")
    assert await cmd(engine, hero, "time") == (
        "It is 08:00 (morning) on Monday, the 1st day of spring, year 1."
    )
    clock(engine).skip(31 * GAME_DAY + 14 * GAME_HOUR + 5 * 60)
    assert await cmd(engine, hero, "time") == (
        "It is 22:05 (night) on Thursday, the 2nd day of summer, year 1."
    )
    clock(engine).skip(90 * GAME_DAY)
    assert "the 2nd day of spring, year 2" in await cmd(engine, hero, "time")


async def test_recall_takes_you_to_the_start_then_waits_real_seconds(engine: GameEngine) -> None:
    hero = new_character(engine, "Alice")
    watcher = new_character(engine, "Bob")
    assert await cmd(engine, hero, "recall") == "You are already in Ashford Green."
    place(engine, hero, "hamlet:road_ford")
    out = await cmd(engine, hero, "recall")
    assert out.startswith("You close your eyes and think of Ashford Green...\n|cAshford Green|n")
    assert ws_of(engine).room_key_of(hero) == "hamlet:green"
    assert "Alice appears, blinking." in session_for(engine, watcher).text()
    place(engine, hero, "hamlet:mill")
    assert await cmd(engine, hero, "recall") == "You cannot recall again yet; try in 120 s."
    # Game time racing ahead does not shorten it: the cooldown is in real seconds.
    clock(engine).game_time += 10 * GAME_DAY
    clock(engine).advance_wall(100.5)
    assert await cmd(engine, hero, "recall") == "You cannot recall again yet; try in 20 s."
    clock(engine).advance_wall(20)
    assert "Ashford Green" in await cmd(engine, hero, "recall")
    assert engine.services.get(Navigation).config.recall_cooldown == 120.0


async def test_recall_needs_a_start_room(engine: GameEngine) -> None:
    hero = new_character(engine, "Alice")
    ws_of(engine).start_room = None
    assert await cmd(engine, hero, "recall") == "There is nowhere to recall to in this world."


async def test_no_recall_in_the_middle_of_a_fight(rpg_engine: GameEngine) -> None:
    engine = rpg_engine
    hero = new_character(engine, "Alice")
    place(engine, hero, "hamlet:road_copse")
    wolf = hv("wolf#1")
    place(engine, wolf, "hamlet:road_copse")
    combat = engine.services.get(CombatService)
    assert combat.engage(hero, wolf)
    out = await cmd(engine, hero, "recall")
    assert out.startswith("You cannot recall in the middle of a fight! Try 'flee' first.")
    assert ws_of(engine).room_key_of(hero) == "hamlet:road_copse"
