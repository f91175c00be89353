"""`maid run` on either event loop: uvloop by default where it is installed,
asyncio's own when MAID_EVENT_LOOP says so; players play the same on both, and
/metrics says which one runs."""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.client import ClientPool, flat
from e2e.fixtures import maid_server, telnet
from e2e.server import ServerProcess

__all__ = ["maid_server", "telnet"]


@pytest.mark.parametrize(("setting", "running"), [(None, "uvloop"), ("asyncio", "asyncio")])
async def test_two_players_play_on_the_chosen_loop(
    tmp_path: Path,
    maid_server: Callable[..., Awaitable[ServerProcess]],
    telnet: ClientPool,
    setting: str | None,
    running: str,
) -> None:
    env = {"MAID_EVENT_LOOP": setting} if setting else {}
    server = await maid_server(tmp_path, env=env)
    samples = await server.metrics()
    assert samples[f'maid_event_loop{{loop="{running}"}}'] == 1.0
    assert [k for k in samples if k.startswith("maid_event_loop{")] == [
        f'maid_event_loop{{loop="{running}"}}'
    ]
    assert f"event loop: {running}" in server.stderr() + server.stdout()

    ada = await telnet.open(server.host, server.telnet_port)
    await ada.read_until_prompt()
    await ada.create("Adalind", "lantern-oak-41")
    bo = await telnet.open(server.host, server.telnet_port)
    await bo.read_until_prompt()
    await bo.create("Borovic", "cellar-key-77")
    assert "Exits:" in await ada.command("look")
    await bo.command("say the well is dry")
    await ada.expect("Borovic says")
    assert "Adalind" in flat(await bo.command("who"))
    await ada.quit()
    await bo.quit()
    assert await server.terminate() == 0


async def test_clients_that_hang_up_at_once_leave_no_error_on_uvloop(
    tmp_path: Path, maid_server: Callable[..., Awaitable[ServerProcess]], telnet: ClientPool
) -> None:
    # uvloop reads a new socket at once, before telnetlib3's negotiation (scheduled
    # when the connection is made) begins: a client gone by then must not be
    # negotiated with.
    server = await maid_server(tmp_path, env={"MAID_MAX_PRELOGIN_PER_IP": "100"})

    async def flap(n: int) -> None:
        for i in range(n):
            _, writer = await asyncio.open_connection(server.host, server.telnet_port)
            if i % 3 == 0:
                writer.write(b"hello?\r\n")
            if i % 2:
                # A reset rather than a goodbye.
                sock = writer.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()
            else:
                writer.close()

    await asyncio.gather(*(flap(50) for _ in range(4)))
    player = await telnet.open(server.host, server.telnet_port)
    await player.read_until_prompt()
    await player.create("Quillon", "quiet-door-62")
    assert "Exits:" in await player.command("look")
    await player.quit()
    assert await server.terminate() == 0
    assert "Traceback" not in server.stderr() + server.stdout()
    assert "InvalidStateError" not in server.stderr() + server.stdout()
