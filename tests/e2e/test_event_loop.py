"""`maid run` on either event loop: uvloop by default where it is installed,
asyncio's own when MAID_EVENT_LOOP says so; players play the same on both, and
/metrics says which one runs."""

from __future__ import annotations

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
