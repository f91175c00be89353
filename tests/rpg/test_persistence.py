"""Inventory, equipment, stats and pending respawns survive a checkpoint + restart."""

from __future__ import annotations

from pathlib import Path

from kits.engines import items_of, npcs, ws_of
from kits.heroes import make_strong, new_character, place
from rpg.rpgkit import make_engine

from classic_rpg.combat.components import PendingRespawn
from classic_rpg.components import Attributes, CharacterStats, Equipment, Health, Mana
from classic_rpg.items.components import HeldBy
from maid_engine.testing import cmd
from maid_stdlib.world import Position


async def test_character_state_survives_restart(tmp_path: Path, db_url: str) -> None:
    async with make_engine(tmp_path, db_url=db_url).lifespan() as engine:
        hero = new_character(engine)
        await cmd(engine, hero, "get all")
        await cmd(engine, hero, "wield sword")
        items = items_of(engine)
        [jerkin] = items.carried(hero)
        sword = items.equipped(hero)["weapon"]
        ore = items.spawn("rpgtest:ore", holder=hero)
        world = engine.world
        # kill the rat: it must stay dead and its respawn must still be pending
        make_strong(engine, hero, dexterity=16)
        place(engine, hero, "rpgtest:field")
        await cmd(engine, hero, "kill rat")
        for _ in range(30):
            await engine.run_ticks(1)
            if not npcs(engine, "rpgtest:rat"):
                break
        assert not npcs(engine, "rpgtest:rat")
        stats = world.get_component(hero, CharacterStats)
        stats.level, stats.experience, stats.gold = 4, 950, 77
        world.add_component(hero, Health(33, 60))
        world.get_component(hero, Attributes).strength = 16
        await engine.checkpoint()

    async with make_engine(tmp_path, db_url=db_url).lifespan() as engine:
        world = engine.world
        items = items_of(engine)
        stats = world.get_component(hero, CharacterStats)
        assert (stats.level, stats.experience, stats.gold) == (4, 950, 77)
        assert world.get_component(hero, Health).current == 33
        assert world.get_component(hero, Mana).maximum == 15
        assert world.get_component(hero, Attributes).strength == 16
        assert items.carried(hero) == [jerkin, ore]
        assert world.get_component(hero, Equipment).slots == {"weapon": sword}
        for item in (jerkin, ore, sword):
            assert world.get_component(item, HeldBy).holder == hero
            assert not world.has_component(item, Position)
            assert ws_of(engine).room_key_of(item) is None
        assert "a rusty sword" in await cmd(engine, hero, "eq")
        # the slain rat is not re-spawned from data, but its respawn is still due
        assert npcs(engine, "rpgtest:rat") == []
        assert len(list(world.query(PendingRespawn))) == 1
        for _ in range(70):
            await engine.run_ticks(1)
        assert len(npcs(engine, "rpgtest:rat")) == 1
