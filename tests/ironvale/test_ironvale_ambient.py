"""Idling in Ironvale: five real minutes (120 game minutes at the default time scale)
in the tavern in the evening and in the square in the afternoon show several lines
of village life, built from what the villagers really know and want; and the same
over a real telnet socket with a fast clock."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from ironvale.ironkit import ironvale_engine, iv
from kits.heroes import new_hero, walk

from maid_engine.app import MaidServer
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_engine.testing import session_for
from maid_stdlib.living import LivingWorld
from maid_stdlib.living.ambient import Ambient
from maid_stdlib.world import WorldService

#: What a line of village life looks like (greetings, talk, reactions).
LIFE = re.compile(
    r"(says to|mutters|complains to|sighs|exchange sharp words|shares a joke|goes on|"
    r"looks up|stares|curses|warns|exclaims|looks relieved|swears quietly)"
)
# Talk comes every quarter hour on average: over two game hours, three lines of it
# are the village's life, not the luck of the dice.
IDLE_MINUTES = 120


async def idle_in(engine: GameEngine, hero: object, room: str, hour: int) -> list[str]:
    clock = engine.clock
    assert isinstance(clock, ManualClock)
    while int(clock.game_time // 3600) % 24 != hour:
        await engine.run_ticks(1)
    await walk(engine, hero, room)  # type: ignore[arg-type]
    session = session_for(engine, hero)  # type: ignore[arg-type]
    session.take()
    await engine.run_ticks(IDLE_MINUTES)
    return [line for line in session.take().splitlines() if LIFE.search(line)]


async def test_idling_in_the_tavern_and_the_square_shows_village_life(tmp_path: Path) -> None:
    engine = ironvale_engine(tmp_path, tick=60.0)
    async with engine.lifespan():
        hero = new_hero(engine)
        square = await idle_in(engine, hero, "ironvale:square", 15)
        assert len(square) >= 3, square
        tavern = await idle_in(engine, hero, "ironvale:tavern", 19)
        assert len(tavern) >= 3, tavern
        said = " ".join(square + tavern)
        # About the world as it is: the threats of the valley (the bandits on the
        # road, the crawlers in the mine, the wolves in the Greywood), Gundrik's iron.
        assert "have been seen" in said or "iron" in said, said
        # Never a flood: at most three lines a real minute (1,440 game seconds).
        assert len(tavern) <= 3 * (IDLE_MINUTES * 60 // 1440 + 1)


async def test_village_life_over_telnet(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        telnet_port=0,
        metrics_enabled=False,
        packs=["ironvale"],
        tick_rate=50,
        random_seed=3,
        commands_per_second=100,
        command_burst=100,
        scrypt_n=2**10,
    )
    # A fast clock: a game minute a tick, 50 ticks a real second; the evening.
    clock = ManualClock(tick_game_seconds=60.0, game_time=19.5 * 3600)
    server = MaidServer(settings, clock=clock, announce=lambda _text: None)
    async with server.lifespan():
        reader, writer = await asyncio.open_connection("127.0.0.1", server.telnet_port)
        data = bytearray()
        changed = asyncio.Event()

        async def pump() -> None:
            while chunk := await reader.read(65536):
                data.extend(b for b in chunk if b < 0xF0)  # telnet commands are dropped
                changed.set()
            changed.set()

        task = asyncio.get_running_loop().create_task(pump())

        async def until(pattern: str, count: int = 1, within: float = 20.0, since: int = 0) -> str:
            # Counted from ``since``: what was said in the square on the way does
            # not count as the tavern's life.
            async def loop() -> None:
                while len(re.findall(pattern, data[since:].decode(errors="replace"))) < count:
                    changed.clear()
                    await changed.wait()

            await asyncio.wait_for(loop(), within)
            return data.decode(errors="replace")

        try:
            await until("create <name> <password>")
            writer.write(b"create Idler tin-hunter-22\r\n")
            await until("Ironvale Village Square")
            for step in (b"south\r\n", b"east\r\n"):
                writer.write(step)
            await until("The Rusty Tankard")
            start = len(data)
            await until(LIFE.pattern, count=3, since=start)
            text = data[start:].decode(errors="replace")
            lines = [ln for ln in text.splitlines() if LIFE.search(ln)]
            assert len(lines) >= 3, lines
            assert any("Bram Holloway" in ln or "Gundrik" in ln or "Selena" in ln for ln in lines)
        finally:
            writer.close()
            await asyncio.gather(task, return_exceptions=True)


async def test_a_smith_at_a_cold_forge_is_not_seen_working(tmp_path: Path) -> None:
    # His room line glowers at the cold forge; the idle line must not say he goes
    # on working there. The line he shows names what he is seen doing instead.
    engine = ironvale_engine(tmp_path, tick=60.0)
    async with engine.lifespan():
        clock = engine.clock
        while int(clock.game_time // 3600) % 24 != 8:
            await engine.run_ticks(1)
        living = engine.services.get(LivingWorld)
        gundrik, aldous = iv("gundrik"), iv("aldous")
        now = clock.game_time
        assert engine.services.get(WorldService).room_key_of(gundrik) == "ironvale:smithy"
        assert living.presence.activity_now(gundrik, now) == "working"
        assert living.presence.seen_doing(gundrik, now) == "glowering_at_the_cold_forge"
        lines = [line for _, line in Ambient(living).topics(gundrik, None, now)]
        assert "Gundrik goes on glowering at the cold forge." in lines
        assert not [line for line in lines if "working" in line]
        # Where the line he shows names nothing, his schedule says what he does.
        assert living.presence.seen_doing(aldous, now) == living.presence.activity_now(aldous, now)
        assert living.presence.seen_doing(aldous, now)
