"""Graceful shutdown of a real server: SIGTERM, and ``@shutdown`` by an admin.

Players are told, a final checkpoint saves what the periodic ones have not yet (the
checkpoint interval is set far beyond the test, so only the final one can), and the
process exits with code 0.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.client import ClientPool, flat
from e2e.server import ServerProcess, run_cli
from e2e.worlddb import read_persisted, sqlite_url

pytestmark = pytest.mark.slow
StartServer = Callable[..., Awaitable[ServerProcess]]

NO_PERIODIC_CHECKPOINT = {"MAID_CHECKPOINT_INTERVAL": "3600"}


async def test_sigterm_tells_players_saves_the_world_and_exits_0(
    tmp_path: Path, server_db: str, maid_server: StartServer, telnet: ClientPool
) -> None:
    server = await maid_server(tmp_path, database_url=server_db, env=NO_PERIODIC_CHECKPOINT)
    alice = await telnet.open(server.host, server.telnet_port)
    await alice.create("Alice", "secret-lantern-9")
    bob = await telnet.open(server.host, server.telnet_port)
    await bob.create("Bob", "tin-hunter-22")
    assert "Watch Street" in await alice.command("north")

    assert await server.terminate() == 0
    for client in (alice, bob):
        assert "The server is shutting down. Goodbye!" in flat(await client.wait_closed())
    assert "MAID stopped" in server.stdout()
    assert "Traceback" not in server.stderr()
    saved = await read_persisted(server_db)
    assert saved.room_of("Alice") == "ironvale:watch_street"
    assert {"Alice", "Bob"} <= set(saved.characters())


async def test_at_shutdown_by_an_admin_stops_gracefully_and_players_cannot(
    tmp_path: Path, maid_server: StartServer, telnet: ClientPool
) -> None:
    code, out, err = await run_cli(
        "create-admin", "Warden", "--data-dir", str(tmp_path),
        env={"MAID_ADMIN_PASSWORD": "wardenpw1"},
    )  # fmt: skip
    assert code == 0, err
    assert "Admin account Warden created" in out
    server = await maid_server(tmp_path, env=NO_PERIODIC_CHECKPOINT)
    bob = await telnet.open(server.host, server.telnet_port)
    await bob.create("Bob", "tin-hunter-22")
    refused = await bob.command("@shutdown now")
    assert "Huh? '@shutdown' is not a command." in flat(refused)
    assert "Exits:" in await bob.command("look")  # still up

    warden = await telnet.open(server.host, server.telnet_port)
    await warden.connect_as("Warden", "wardenpw1")
    assert "Watch Street" in await warden.command("north")
    warden.send_line("@shutdown maintenance")
    goodbye = "The server is shutting down (maintenance). Goodbye!"
    assert "Shutdown requested: maintenance." in flat(await warden.wait_closed())
    assert goodbye in flat(warden.transcript)
    assert goodbye in flat(await bob.wait_closed())
    assert await server.wait() == 0
    assert "Traceback" not in server.stderr()
    saved = await read_persisted(sqlite_url(tmp_path))
    assert saved.room_of("Warden") == "ironvale:watch_street"
    assert saved.accounts["warden"]["role"] == "admin"
