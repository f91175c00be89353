"""Shops over real sockets, two players on the shipped game: a new player buys a
weapon at Gundrik's smithy and wields it while a second player watches, then one
buys ale and a pie at the Rusty Tankard and sells the pie back."""

from __future__ import annotations

from e2e.client import ClientPool, flat
from e2e.fixtures import live, telnet

from maid_engine.app import MaidServer

__all__ = ["live", "telnet"]


async def test_two_players_trade_at_the_smithy_and_the_tavern(
    live: MaidServer, telnet: ClientPool
) -> None:
    alice = await telnet.open("127.0.0.1", live.telnet_port)
    await alice.read_until_prompt()
    await alice.create("Alice", "secret-lantern-9")
    bob = await telnet.open("127.0.0.1", live.telnet_port)
    await bob.read_until_prompt()
    await bob.create("Bobby", "secret-lantern-8")
    for client in (alice, bob):
        await client.command("west")
        await client.command("west")

    listing = flat(await alice.command("list"))
    assert "Gundrik sells:" in listing
    assert "A scrap-iron knife" in listing
    assert (
        "Gundrik buys weapons, armour, a lump of iron ore, a lump of seam ore and anything "
        "on this list."
    ) in listing
    assert "You have 10 gold." in listing
    assert "Short of iron: bandits at the Broken Wagon on the Old Trade Road" in listing
    bob.skip()
    out = flat(await alice.command("buy knife"))
    assert "You buy a scrap-iron knife from Gundrik for 5 gold." in out
    await bob.expect("Alice buys a scrap-iron knife from Gundrik.")
    assert "You wield a scrap-iron knife" in await alice.command("wield knife")
    assert "You can't afford that" in flat(await alice.command("buy shortsword"))
    assert "Gundrik doesn't buy that." not in await bob.command("list")

    for client in (alice, bob):
        for step in ("east", "east", "south", "east"):
            await client.command(step)
    assert "Bram Holloway sells:" in flat(await bob.command("list"))
    out = flat(await bob.command("buy ale 2"))
    assert "You buy a mug of ale (x2) from Bram Holloway for 2 gold." in out
    await alice.expect("Bobby buys a mug of ale (x2) from Bram Holloway.")
    assert "You are not carrying 'knife'." in await bob.command("value knife")
    assert "would not give you anything for a mug of ale" in flat(await bob.command("value ale"))
    assert "You buy a meat pie from Bram Holloway" in flat(await bob.command("buy pie"))
    assert "Bram Holloway would give you 1 gold" in flat(await bob.command("value pie"))
    assert "You sell a meat pie to Bram Holloway for 1 gold" in flat(await bob.command("sell pie"))
    assert "You are using a scrap-iron knife; remove it first." in flat(
        await alice.command("sell knife")
    )
    await alice.command("remove knife")
    assert "Bram Holloway doesn't buy that." in flat(await alice.command("sell knife"))
