"""Crash safety: ``kill -9`` of a real server process, on SQLite and PostgreSQL.

Guarantees under test (docs/operations.md, "Crash safety"):

* an account or character whose creation was acknowledged is never lost;
* other world state is at most one checkpoint interval old after a restart;
* the game clock carries on from where it was saved, it is not reset.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.client import ClientPool, LoginFailed, TelnetClient
from e2e.server import ServerProcess
from e2e.worlddb import read_persisted

from maid_engine.clock import GAME_HOUR

pytestmark = pytest.mark.slow
StartServer = Callable[..., Awaitable[ServerProcess]]

INTERVAL = 0.5
ENV = {
    "MAID_CHECKPOINT_INTERVAL": str(INTERVAL),
    # One real second is one game hour: a reset clock would be obvious.
    "MAID_TIME_SCALE": "3600",
}
START_OF_TIME = 8 * GAME_HOUR  # GameClock's default game_time
# How much older than the kill the restored state may be: one interval, plus the tick
# that notices the interval is over (0.1 s at 10 ticks/s), plus the time the write
# itself takes on a busy 2-core CI machine (generous: 0.9 s). The player acts for
# longer than this before the crash, so the bound is really tested.
STALENESS_BOUND = INTERVAL + 1.0


async def test_kill9_keeps_acknowledged_accounts_and_the_last_checkpoint(
    tmp_path: Path, server_db: str, maid_server: StartServer, telnet: ClientPool
) -> None:
    server = await maid_server(tmp_path, database_url=server_db, env=ENV)
    alice = await telnet.open(server.host, server.telnet_port)
    await alice.create("Alice", "secret-lantern-9")
    assert "Watch Street" in await alice.command("north")
    # A checkpoint that started after the move has finished: the move is on disk.
    await server.wait_checkpoints(after=await server.checkpoints(), count=2)
    # Bob's creation is acknowledged and the server dies at once: no checkpoint ran in
    # between, so only the immediate write of accounts and characters can save him.
    bob = await telnet.open(server.host, server.telnet_port)
    await bob.create("Bob", "tin-hunter-22")
    server.kill9()
    assert await server.wait() == -9
    await telnet.close_all()

    saved = await read_persisted(server_db)
    assert {"alice", "bob"} <= set(saved.accounts)
    assert {"Alice", "Bob"} <= set(saved.characters())
    assert saved.room_of("Alice") == "ironvale:watch_street"
    assert saved.room_of("Bob") is not None
    # The second checkpoint after the move started at least one interval (half a game
    # hour at this scale) after the first: the saved clock has moved at least that far.
    assert saved.game_time is not None
    assert saved.game_time > START_OF_TIME + INTERVAL * GAME_HOUR

    server = await maid_server(tmp_path, database_url=server_db, env=ENV)
    alice = await telnet.open(server.host, server.telnet_port)
    out = await alice.connect_as("Alice", "secret-lantern-9")
    assert "Welcome, Alice." in out
    assert "Watch Street" in out
    bob = await telnet.open(server.host, server.telnet_port)
    assert "Welcome, Bob." in await bob.connect_as("Bob", "tin-hunter-22")
    # The world resumed: the clock went on from the saved value.
    await server.wait_checkpoints(after=await server.checkpoints(), count=1)
    resumed = await read_persisted(server_db)
    assert resumed.game_time is not None
    assert resumed.game_time >= saved.game_time
    assert await server.terminate() == 0
    assert "Traceback" not in server.stderr()


async def _bump_loop(
    client: TelnetClient, acks: list[tuple[float, int]], stop: asyncio.Event
) -> None:
    """Bump the counter as fast as the server answers; record (time, value) of each ack."""
    while not stop.is_set():
        try:
            out = await client.command("bump", within=5)
        except (ConnectionError, TimeoutError):
            return
        m = re.search(r"Counter: (\d+)", out)
        if m is None:
            return  # the server died mid-answer
        acks.append((time.monotonic(), int(m.group(1))))


async def _create_loop(
    server: ServerProcess, prefix: str, created: list[str], stop: asyncio.Event
) -> None:
    """Create accounts one after another; record the names whose creation was acked."""
    n = 0
    while not stop.is_set():
        n += 1
        name = f"{prefix}{chr(ord('a') + n // 26 % 26)}{chr(ord('a') + n % 26)}"
        try:
            client = await TelnetClient.open(server.host, server.telnet_port, within=5)
        except (OSError, TimeoutError):
            return
        try:
            await client.create(name, "pass-phrase-1")
            created.append(name)
        except (ConnectionError, TimeoutError, LoginFailed):
            return
        finally:
            await client.close()


async def test_kill9_at_a_random_moment_loses_at_most_one_checkpoint(
    tmp_path: Path, server_db: str, maid_server: StartServer, telnet: ClientPool
) -> None:
    rng = random.Random(20261129)
    env = {**ENV, "MAID_COMMANDS_PER_SECOND": "1000", "MAID_COMMAND_BURST": "1000"}
    args = ("--pack", "ironvale", "--pack", "e2e.probe_pack:ProbePack")
    server = await maid_server(tmp_path, database_url=server_db, env=env, args=args)
    acks: list[tuple[float, int]] = []
    created: list[str] = []
    player = await telnet.open(server.host, server.telnet_port)
    await player.create("Walker", "secret-lantern-9")
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(_bump_loop(player, acks, stop)),
        asyncio.create_task(_create_loop(server, "Racer", created, stop)),
        asyncio.create_task(_create_loop(server, "Sprinter", created, stop)),
    ]
    try:
        await asyncio.sleep(rng.uniform(2.0, 2.8))  # the random moment of the crash
        server.kill9()
        killed_at = time.monotonic()
        assert await server.wait() == -9
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 15)
    await telnet.close_all()

    assert len(acks) > 50, "the player barely played; the test proves nothing"
    assert len(created) >= 4, "too few accounts were created before the crash"
    saved = await read_persisted(server_db)
    # Every acknowledged account and character is there (characters() fails on twins).
    chars = saved.characters()
    missing = [n for n in created if n.lower() not in saved.accounts or n not in chars]
    assert not missing, f"acknowledged but lost: {missing}"
    # The counter is no older than the staleness bound...
    counter = saved.component("Walker", "ProbeCounter")
    restored = int(counter["count"]) if counter else 0
    must_have = max((v for t, v in acks if t <= killed_at - STALENESS_BOUND), default=0)
    assert must_have > 0, "the crash came too early to test the bound"
    assert restored >= must_have, (restored, must_have, acks[-1])
    # ...and never newer than what was done (+1: a bump whose answer was cut off).
    assert restored <= acks[-1][1] + 1

    server = await maid_server(tmp_path, database_url=server_db, env=env, args=args)
    player = await telnet.open(server.host, server.telnet_port)
    await player.connect_as("Walker", "secret-lantern-9")
    assert f"Counter: {restored}" in await player.command("probe")
    racer = await telnet.open(server.host, server.telnet_port)
    assert f"Welcome, {created[-1]}." in await racer.connect_as(created[-1], "pass-phrase-1")
    assert await server.terminate() == 0
