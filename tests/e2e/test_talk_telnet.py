"""Talking over real sockets, two players on the shipped game: a channel with its
history and on/off, shout, whisper and reply, a social aimed at the other player,
and afk seen in who and answered to a tell, cleared by typing."""

from __future__ import annotations

from e2e.client import ClientPool, flat
from e2e.fixtures import live, telnet

from maid_engine.app import MaidServer

__all__ = ["live", "telnet"]


async def test_two_players_talk(live: MaidServer, telnet: ClientPool) -> None:
    alice = await telnet.open("127.0.0.1", live.telnet_port)
    await alice.read_until_prompt()
    await alice.create("Alice", "secret-lantern-9")
    bob = await telnet.open("127.0.0.1", live.telnet_port)
    await bob.read_until_prompt()
    await bob.create("Bobby", "secret-lantern-8")

    alice.skip()
    await bob.command("newbie how do I buy a weapon?")
    await alice.expect("[Newbie] Bobby: how do I buy a weapon?")
    assert "Bobby: how do I buy a weapon?" in flat(await alice.command("newbie history"))
    assert "Bobby: how do I buy a weapon?" in flat(await bob.command("history newbie"))
    assert "newbie" in flat(await alice.command("channels"))
    assert "Socials (" in flat(await bob.command("socials"))
    await alice.command("gossip off")
    bob.skip()
    await bob.command("gossip anyone there?")
    assert "anyone there" not in flat(await alice.command("look"))

    bob.skip()
    await alice.command("smile bobby")
    await bob.expect("Alice smiles at you.")
    await alice.command("whisper bobby west twice, then list")
    await bob.expect('Alice whispers to you, "west twice, then list"')
    out = flat(await bob.command("reply thanks!"))
    assert 'You tell Alice, "thanks!"' in out
    await alice.expect('Bobby tells you, "thanks!"')

    await bob.command("afk brb")
    assert "Bobby [AFK]" in flat(await alice.command("who"))
    assert "Bobby is away (AFK): brb" in flat(await alice.command("tell bobby hello?"))
    assert "You are back (no longer AFK)." in flat(await bob.command("look"))

    await bob.command("south")
    alice.skip()
    await bob.command("shout Is anyone at the gate?")
    await alice.expect('Bobby shouts, "Is anyone at the gate?"')
