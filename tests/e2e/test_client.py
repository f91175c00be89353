"""The e2e telnet client itself, against an in-process server on a real socket."""

from __future__ import annotations

import pytest
from e2e.client import EOR, ClientPool, ConnectionClosed, LoginFailed, flat, loose
from e2e.fixtures import live, telnet

from maid_engine.app import MaidServer

__all__ = ["live", "telnet"]


def test_loose_matches_across_line_wrapping() -> None:
    assert loose("Saving is delayed; kept.").search("Saving is\ndelayed;  kept.")
    assert flat(" a\n b  c ") == "a b c"


@pytest.mark.parametrize("accept", [(), (EOR,)], ids=["ga", "eor"])
async def test_login_commands_and_prompts(
    live: MaidServer, telnet: ClientPool, accept: tuple[int, ...]
) -> None:
    client = await telnet.open("127.0.0.1", live.telnet_port, accept=accept)
    banner = await client.read_until_prompt()
    assert "Welcome to MAID" in banner
    assert banner.rstrip().endswith("What is your name?")
    out = await client.create("Alice", "secret-lantern-9")
    assert "Account Alice created." in out
    assert "\x1b" not in out
    assert "Watch Street" in await client.command("north")
    assert "Exits:" in await client.command("look")
    assert len(client.prompt_marks) >= 4

    other = await telnet.open("127.0.0.1", live.telnet_port)
    await other.read_until_prompt()
    with pytest.raises(LoginFailed):
        await other.connect_as("Alice", "wrong-password")
    await other.connect_as("Alice", "secret-lantern-9")  # a takeover counts as playing
    await client.expect("taken over")
    with pytest.raises(ConnectionClosed):
        await client.command("look", within=5)
