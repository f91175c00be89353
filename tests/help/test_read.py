"""``read``: boards, scenery, things here and things carried; a hint toward 'map'."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import HAMLET_RPG, items_of, make_engine, room_key
from kits.heroes import new_character, place

from maid_engine.commands import CommandContext, command
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.world import Describable


@pytest.fixture
async def rpg(tmp_path: Path) -> AsyncIterator[GameEngine]:
    async with make_engine(tmp_path, HAMLET_RPG, tick=None, seed=None).lifespan() as started:
        yield started


async def test_read_scenery_things_here_and_things_carried(engine: GameEngine) -> None:
    hero = new_character(engine, "Ada")
    place(engine, hero, room_key(engine, "green"))
    assert "a frog that does not care" in await cmd(engine, hero, "read trough")
    assert "Read what?" in await cmd(engine, hero, "read")
    board = await cmd(engine, hero, "read board")
    assert "KEEP OFF THE MILL ROAD" in board
    assert "You see nothing called 'scroll' here to read." in await cmd(engine, hero, "read scroll")


async def test_read_what_you_carry_through_examine(rpg: GameEngine) -> None:
    hero = new_character(rpg, "Ada")
    place(rpg, hero, room_key(rpg, "green"))
    letter = items_of(rpg).spawn("hamlet:flour", holder=hero)
    rpg.world.get_component(letter, Describable).description = "Stamped: BEST FLOUR."
    assert "Stamped: BEST FLOUR." in await cmd(rpg, hero, "read flour")
    assert "nothing called 'scroll'" in await cmd(rpg, hero, "read scroll")


async def test_read_map_points_to_the_map_command(engine: GameEngine) -> None:
    hero = new_character(engine, "Ada")
    place(engine, hero, room_key(engine, "green"))
    if not engine.commands.match("map"):  # no map command: nothing to point to
        assert "nothing called 'map'" in await cmd(engine, hero, "read map")

    @command("map", category="movement")
    def drawn(ctx: CommandContext) -> None:
        """Draw the map."""

    if not engine.commands.match("map"):
        engine.commands.add(drawn)
    assert await cmd(engine, hero, "read map") == (
        "There is no map here to read. Type 'map' to draw the area around you."
    )
