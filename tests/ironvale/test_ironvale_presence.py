"""What Ironvale shows follows what its people live: Gundrik's line, the forge in
the smithy, the lane and the square, and the notice board, as a player sees them
with ``look`` through the day and once the road is clear."""

from __future__ import annotations

from pathlib import Path

from ironvale.ironkit import ironvale_engine
from kits.engines import npcs, plain
from kits.heroes import new_hero, walk

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.living import LivingWorld
from maid_stdlib.questgen.system_wiring import QuestBoardSection
from maid_stdlib.world import WorldService


async def until_hour(engine: GameEngine, hour: int) -> None:
    clock = engine.clock
    assert isinstance(clock, ManualClock)
    while int(clock.game_time // 3600) % 24 != hour:
        await engine.run_ticks(1)
    await engine.run_ticks(10)  # walking there takes a few minutes


async def test_gundrik_and_his_forge_show_what_he_lives(tmp_path: Path) -> None:
    engine = ironvale_engine(tmp_path, tick=60.0)
    async with engine.lifespan():
        hero = new_hero(engine)
        await engine.run_ticks(2)
        # Morning, no iron: at his cold forge, and the village hears no hammer.
        await walk(engine, hero, "ironvale:smithy")
        out = plain(await cmd(engine, hero, "look"))
        assert "Gundrik the blacksmith glowers at his cold forge" in out
        assert "banked low and sullen" in out
        assert "hold little more than rust and dust" in out
        assert "{" not in out
        await walk(engine, hero, "ironvale:square")
        out = plain(await cmd(engine, hero, "look"))
        assert "Forge Lane to the west lies quiet" in out
        assert "clang of a hammer" not in out

        # In the evening he is at the tavern: not glowering at any forge there.
        await until_hour(engine, 19)
        await walk(engine, hero, "ironvale:tavern")
        out = plain(await cmd(engine, hero, "look"))
        assert "cold forge" not in out
        assert "Gundrik" in out
        assert "by the hearth" in out
        look = plain(await cmd(engine, hero, "look gundrik"))
        assert "Even away from his forge" in look
        assert "empty ore bins" not in look

        # The road cleared (the bandits gone), the next working day the forge roars.
        for uid in [*npcs(engine, "bandit_scout"), *npcs(engine, "kral")]:
            engine.world.destroy_entity(uid)
        await until_hour(engine, 9)
        await walk(engine, hero, "ironvale:smithy")
        out = plain(await cmd(engine, hero, "look"))
        assert "Gundrik the blacksmith hammers a glowing bar" in out
        assert "coals roaring white" in out
        assert "stacked with fresh bar iron" in out
        assert "whistling" in plain(await cmd(engine, hero, "look gundrik"))
        await walk(engine, hero, "ironvale:square")
        assert "the clang of a hammer drifts from Forge Lane" in plain(
            await cmd(engine, hero, "look")
        )


async def test_the_notice_board_lists_what_the_village_needs(tmp_path: Path) -> None:
    engine = ironvale_engine(tmp_path, tick=60.0)
    async with engine.lifespan():
        hero = new_hero(engine)
        await walk(engine, hero, "ironvale:square")
        await engine.run_ticks(2)
        before = plain(await cmd(engine, hero, "look board"))
        assert "AT YOUR OWN RISK" in before
        assert "Source quality iron" not in before
        # A quiet board says so once, not twice in other words.
        read = plain(await cmd(engine, hero, "read board"))
        assert "Nothing else has been pinned up lately." in read
        assert "Nothing new has been posted" not in read
        # By the afternoon Gundrik is short of iron and it is known.
        await until_hour(engine, 15)
        out = plain(await cmd(engine, hero, "look board"))
        assert "Gundrik: Source quality iron (held up by bandits at" in out
        assert "Source quality iron" in plain(await cmd(engine, hero, "read board"))


async def test_reading_a_board_that_lists_work_points_to_those_named(tmp_path: Path) -> None:
    engine = ironvale_engine(tmp_path, tick=60.0)
    async with engine.lifespan():
        engine.services.get(LivingWorld).presence.board_sections.append(
            lambda area: [QuestBoardSection.HEADING, "  - Wolves at the Weir (ask Tam)"]
        )
        hero = new_hero(engine)
        await walk(engine, hero, "ironvale:square")
        await engine.run_ticks(2)
        out = plain(await cmd(engine, hero, "read board"))
        assert "Wolves at the Weir (ask Tam)" in out
        assert "ask those named above about their work" in out
        assert "Nothing new has been posted" not in out


async def test_bram_greets_by_where_he_is(tmp_path: Path) -> None:
    # At the well of a morning he does not welcome anyone to his tavern.
    engine = ironvale_engine(tmp_path, tick=60.0)
    async with engine.lifespan():
        hero = new_hero(engine)
        await until_hour(engine, 9)
        await walk(engine, hero, "ironvale:square")
        out = plain(await cmd(engine, hero, "talk bram"))
        assert "Mind the bucket. The Tankard opens once I have the water in" in out
        assert "Welcome to the Rusty Tankard" not in out
        # The well he draws from is the square's, not someone to talk to.
        assert plain(await cmd(engine, hero, "talk well")) == (
            "That is part of the place, not someone you can talk to."
        )
        await until_hour(engine, 11)
        await walk(engine, hero, "ironvale:tavern")
        out = plain(await cmd(engine, hero, "talk bram"))
        assert "Welcome to the Rusty Tankard" in out


async def test_the_toll_bridge_agrees_with_its_keeper(tmp_path: Path) -> None:
    # The room does not call the booth empty with Osric sitting in it, and he does
    # not ask a toll that nobody is charged.
    engine = ironvale_engine(tmp_path, tick=60.0)
    async with engine.lifespan():
        hero = new_hero(engine)
        await until_hour(engine, 9)
        await walk(engine, hero, "ironvale:toll_bridge")
        out = plain(await cmd(engine, hero, "look"))
        assert "Osric the toll-keeper sits in his booth by the raised pole" in out
        assert "empty" not in out
        assert "barred" not in out
        out = plain(await cmd(engine, hero, "talk osric"))
        assert "the pole has stayed up since the road closed" in out


async def test_the_old_oak_is_there_to_look_at(tmp_path: Path) -> None:
    # A room named for a thing it shows has that thing to look at.
    engine = ironvale_engine(tmp_path, tick=60.0)
    async with engine.lifespan():
        hero = new_hero(engine)
        await walk(engine, hero, "ironvale:old_oak")
        assert "would take four people to ring" in plain(await cmd(engine, hero, "look oak"))
        assert plain(await cmd(engine, hero, "talk oak")) == (
            "That is part of the place, not someone you can talk to."
        )


async def test_the_camp_is_heard_while_someone_holds_it(tmp_path: Path) -> None:
    engine = ironvale_engine(tmp_path, tick=60.0)
    async with engine.lifespan():
        hero = new_hero(engine)
        await engine.run_ticks(2)
        await walk(engine, hero, "ironvale:camp_trail")
        out = plain(await cmd(engine, hero, "look"))
        assert "somewhere ahead a voice laughs, loud and harsh" in out
        assert "{" not in out
        # Kral dead (a new Kral comes back later, and with him the laughter).
        for uid in npcs(engine, "kral"):
            engine.world.destroy_entity(uid)
        engine.services.get(LivingWorld).invalidate_threats()
        await engine.run_ticks(2)
        out = plain(await cmd(engine, hero, "look"))
        assert "no voice carries from the camp ahead" in out
        assert "laughs" not in out
        ws = engine.services.get(WorldService)
        ws.move(hero, "ironvale:camp_cellar", reason="test")
        out = plain(await cmd(engine, hero, "look"))
        assert "The boards overhead are silent." in out
        assert "laughter" not in out
        ws.move(hero, "ironvale:guard_post", reason="test")
        said = plain(await cmd(engine, hero, "ask voss about kral"))
        assert "His camp in the pines stands empty" in said


async def test_wren_speaks_of_her_jars_only_among_them(tmp_path: Path) -> None:
    engine = ironvale_engine(tmp_path, tick=60.0)
    async with engine.lifespan():
        hero = new_hero(engine)
        ws = engine.services.get(WorldService)
        wren = next(iter(npcs(engine, "wren")))
        for room, said in (
            ("ironvale:herb_house", "Mind the jars."),
            ("ironvale:herb_glade", "Quietly, if you please."),
            ("ironvale:square", "My jars at home are near empty"),
        ):
            ws.move(wren, room, reason="test")
            ws.move(hero, room, reason="test")
            out = plain(await cmd(engine, hero, "talk wren"))
            assert said in out, (room, out)
