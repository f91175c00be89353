"""Over a real telnet socket: a newcomer at the broken wagon is jumped by one scout,
sees their health in the prompt after every round, considers, sets wimpy, flees,
then rests, sleeps and wakes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import ironvale.test_authored_quest_telnet as qt
from kits.heroes import make_strong

from classic_rpg.combat.components import Fighting, Wimpy
from classic_rpg.components import Health
from maid_engine.app import MaidServer
from maid_engine.clock import ManualClock
from maid_engine.config import Settings


def fast_settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path,
        telnet_port=0,
        metrics_enabled=False,
        packs=["ironvale"],
        tick_rate=100,
        random_seed=3,
        commands_per_second=100,
        command_burst=100,
        scrypt_n=2**10,
    )


async def test_a_fight_at_the_wagon_with_prompt_wimpy_flee_and_rest(tmp_path: Path) -> None:
    # A manual clock at 100 ticks a second: a 3-second round passes in 0.03 s.
    server = MaidServer(fast_settings(tmp_path), clock=ManualClock(), announce=lambda _t: None)
    async with server.lifespan():
        engine = server.engine
        client = qt.Telnet(*await asyncio.open_connection("127.0.0.1", server.telnet_port))
        try:
            await client.expect("create <name> <password>")
            await client.line("create Brenna tin-hunter-22", "Ironvale Village Square")
            [hero] = engine.sessions.characters_online()
            async with engine.world_lock:
                make_strong(engine, hero, level=1, hp=900)
            await client.line("wimpy 20", "Wimpy set to 20 hit points")
            assert engine.world.get_component(hero, Wimpy).hp == 20
            for _ in range(5):
                await client.line("south", "Exits:")
            since = len(client.text())
            await client.line("south", "The Broken Wagon")
            await client.expect("attacks you!", since)
            async with engine.world_lock:
                # The scout must outlast the flee attempts, however fast the ticks run.
                for uid, _fighting in engine.world.each(Fighting):
                    if uid != hero:
                        engine.world.add_component(uid, Health(10_000, 10_000))
            await client.expect("<8", since)  # the prompt, with health below 900 now
            out = await client.line(
                "consider scout", "(A bandit scout is 1 level higher than you.)"
            )
            assert client.text()[since:].count("attacks you!") == 1  # one scout, not three
            prompts = client.text()[since:].count("/900hp")
            await client.expect("/900hp", len(client.text()))
            assert client.text()[since:].count("/900hp") > prompts
            for _ in range(20):
                out = await client.line("flee", "flee")
                if "You flee" in out:
                    break
            assert "You flee" in out
            assert not engine.world.has_component(hero, Fighting)
            await client.line("rest", "You sit down and rest.")
            await client.line("north", "You are resting. (Type 'stand' to get up first.)")
            await client.line("sleep", "You lie down and go to sleep.")
            await client.line("look", "You are asleep. (Type 'wake' to get up.)")
            await client.line("wake", "You wake and stand up.")
            await client.line("rest", "You sit down and rest.")
            await client.line("stand", "You stand up.")
            await client.line("help wimpy", "Flee on your own")
        finally:
            await client.close()


async def test_two_players_follow_group_gtell_and_walk_together(tmp_path: Path) -> None:
    server = MaidServer(fast_settings(tmp_path), clock=ManualClock(), announce=lambda _t: None)
    async with server.lifespan():
        engine = server.engine
        port = server.telnet_port
        ann = qt.Telnet(*await asyncio.open_connection("127.0.0.1", port))
        bo = qt.Telnet(*await asyncio.open_connection("127.0.0.1", port))
        try:
            await ann.expect("create <name> <password>")
            await ann.line("create Ann tin-hunter-22", "Ironvale Village Square")
            await bo.expect("create <name> <password>")
            await bo.line("create Boris tin-hunter-23", "Ironvale Village Square")
            await bo.line("follow ann", "You now follow Ann.")
            await ann.expect("Boris now follows you.")
            await ann.line("group boris", "Boris joins your group.")
            await bo.expect("You join Ann's group.")
            out = await ann.line("group", "Boris")
            assert "Ann's group:" in out
            assert "30/30 hp" in out
            since = len(bo.text())
            await ann.line("north", "Watch Street")
            await bo.expect("You follow Ann north.", since)
            await bo.expect("Watch Street", since)
            await bo.line("gt ready when you are", "You tell the group: 'ready when you are'")
            await ann.expect("Boris tells the group: 'ready when you are'")
            for client in (ann, bo):
                await client.line("help group", "See your group")
            await bo.line("ungroup", "You leave Ann's group.")
            await ann.expect("Boris has left the group.")
            await bo.line("unfollow", "You stop following Ann.")
            await ann.expect("Boris stops following you.")
            assert len(engine.sessions.characters_online()) == 2
        finally:
            await ann.close()
            await bo.close()
