"""End to end over a real telnet socket: a new character takes Captain Voss's quest,
kills a bandit scout, brings back its insignia and turns the quest in."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from kits.heroes import make_strong

from classic_rpg.components import CharacterStats
from classic_rpg.systems.quests import QuestManager
from maid_engine.app import MaidServer
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.store import Store
from maid_stdlib.questgen.vocabulary import QuestState

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
TIMEOUT = 15.0
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Telnet:
    """A plain client: refuses every option, collects the text."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.data = bytearray()
        self._changed = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        state, sb = "data", False
        while chunk := await self.reader.read(65536):
            for b in chunk:
                if state == "data":
                    if b == IAC:
                        state = "iac"
                    elif not sb:
                        self.data.append(b)
                elif state == "iac":
                    state = "data"
                    if b in (DO, DONT, WILL, WONT):
                        state = f"opt{b}"
                    elif b == SB:
                        sb = True
                    elif b == SE:
                        sb = False
                    elif b == IAC and not sb:
                        self.data.append(b)
                else:
                    verb = int(state[3:])
                    if verb in (DO, WILL):
                        self.writer.write(bytes([IAC, WONT if verb == DO else DONT, b]))
                    state = "data"
            self._changed.set()
        self._changed.set()

    def text(self) -> str:
        return _ANSI.sub("", self.data.decode("utf-8", errors="replace"))

    async def expect(self, needle: str, since: int = 0) -> str:
        async def loop() -> None:
            while needle not in self.text()[since:]:
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(loop(), TIMEOUT)
        except TimeoutError:
            raise AssertionError(f"never saw {needle!r}; got: {self.text()[since:]!r}") from None
        return self.text()[since:]

    async def first(self, text: str, *needles: str) -> str:
        """Send a line and wait for whichever of ``needles`` comes first; that one."""
        since = len(self.text())
        self.writer.write(text.encode() + b"\r\n")

        async def loop() -> str:
            while True:
                seen = self.text()[since:]
                found = [(seen.index(n), n) for n in needles if n in seen]
                if found:
                    return min(found)[1]
                self._changed.clear()
                await self._changed.wait()

        try:
            return await asyncio.wait_for(loop(), TIMEOUT)
        except TimeoutError:
            raise AssertionError(f"never saw any of {needles!r}") from None

    async def line(self, text: str, needle: str) -> str:
        """Send a line and wait for ``needle`` in what follows; returns that output."""
        since = len(self.text())
        self.writer.write(text.encode() + b"\r\n")
        return await self.expect(needle, since)

    async def close(self) -> None:
        self.writer.close()
        await asyncio.gather(self._task, return_exceptions=True)


async def test_new_character_plays_scouts_on_the_road_over_telnet(tmp_path: Path) -> None:
    settings = Settings(
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
    server = MaidServer(settings, clock=ManualClock(), announce=lambda _text: None)
    async with server.lifespan():
        engine = server.engine
        client = Telnet(*await asyncio.open_connection("127.0.0.1", server.telnet_port))
        try:
            await client.expect("create <name> <password>")
            await client.line("create Aldric tin-hunter-22", "Ironvale Village Square")
            [hero] = engine.sessions.characters_online()
            async with engine.world_lock:
                # Three hostile scouts guard the wagon: give the newcomer a veteran's
                # health so the dice cannot end the test early.
                make_strong(engine, hero, hp=900)
            await client.line("north", "Watch Street")
            await client.line("north", "The Guard Post")
            out = await client.line("talk voss", "or 'accept road' to take")
            assert "(Type 'accept 1' or" in out
            assert "Quest offered: 'Scouts on the Road'." in out
            await client.line("accept road", "You accept 'Scouts on the Road'.")
            out = await client.line("quests", "Give a bandit insignia to Captain Voss.")
            assert "[locked] Give a bandit insignia" in out
            for _ in range(8):
                await client.line("south", "Exits:")
            await client.expect("Old Trade Road, The Broken Wagon")
            since = len(client.text())
            await client.line("kill scout", "You")
            await client.expect("[Scouts on the Road] Kill a bandit scout", since)
            await client.line("get insignia", "insignia")
            # Another scout may have taken up the fight, and nobody walks out of
            # one: the veteran's health wins it first.
            for _ in range(3):
                if await client.first("north", "Washed-out Bend", "for your life!") != (
                    "for your life!"
                ):
                    break
                await client.line("kill scout", "falls to the ground, dead.")
            else:
                raise AssertionError("held at the wagon by one fight after another")
            for _ in range(7):
                await client.line("north", "Exits:")
            await client.expect("The Guard Post")
            out = await client.line(
                "give insignia to voss",
                "You have completed the objectives of 'Scouts on the Road'.",
            )
            xp = engine.world.get_component(hero, CharacterStats).experience
            out = await client.line("talk voss", "Quest complete: 'Scouts on the Road'")
            assert "Kral's mark, then." in out
            assert "You gain 120 experience for completing 'Scouts on the Road'." in out
            await client.line("quests", "Completed: Scouts on the Road.")
            manager = engine.services.get(QuestManager)
            assert manager.quest_state(hero, "road-scouts") is QuestState.TURNED_IN
            assert engine.world.get_component(hero, CharacterStats).experience == xp + 120
        finally:
            await client.close()
    # The turn-in was written with the rewards: the record is in the database.
    store = Store(settings.resolved_database_url)
    await store.open()
    try:
        record = await store.documents.get("quest_turnins", f"road-scouts:{hero}")
        assert record is not None
        assert record["rewards"]["experience"] == 120
    finally:
        await store.close()
