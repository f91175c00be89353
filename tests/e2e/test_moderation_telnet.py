"""Admin moderation over real sockets on the shipped game: @announce, @mute and
@unmute (say, tell, shout, emote, socials and channels refused; listening kept),
@kick, @ban of an account and of an address with a reason and an end (kept in the
database, refused at login and at connect), @unban, and a player's "Huh?" for
them all."""

from __future__ import annotations

from e2e.client import ClientPool, flat
from e2e.fixtures import live, telnet

from maid_engine.accounts.bans import MODERATION_COLLECTION
from maid_engine.accounts.service import AccountService
from maid_engine.app import MaidServer

__all__ = ["live", "telnet"]


async def test_an_admin_moderates(live: MaidServer, telnet: ClientPool) -> None:
    warden = await telnet.open("127.0.0.1", live.telnet_port)
    await warden.create("Warden", "iron-warden-77")
    await live.engine.services.get(AccountService).set_role("Warden", "admin")
    bryn = await telnet.open("127.0.0.1", live.telnet_port)
    await bryn.create("Bryn", "loud-bryn-12")

    # Players are not told the staff commands exist.
    assert "Huh? '@kick' is not a command." in flat(await bryn.command("@kick warden"))
    assert "Huh? '@ban' is not a command." in flat(await bryn.command("@ban warden spite"))

    bryn.skip()
    assert "Announced to 2 player(s)." in flat(
        await warden.command("@announce The bridge opens at dusk. a|b")
    )
    await bryn.expect("[Announcement] The bridge opens at dusk. a|b")

    # A mute by a word of the name, with an end and a reason.
    out = flat(await warden.command("@mute bry 2h shouting in capitals"))
    assert "Muted Bryn for 2 hours: shouting in capitals." in out
    await bryn.expect("An admin has muted you for 2 hours: shouting in capitals")
    for line in ("say HELLO", "shout HELLO", "tell warden HELLO", "emote waves", "smile", "ooc HI"):
        said = flat(await bryn.command(line))
        assert "You are muted for another 2 hours: shouting in capitals" in said, (line, said)
    # Listening is not talking.
    assert "Muted" not in flat(await bryn.command("ooc history"))
    assert "muted" not in flat(await bryn.command("channels"))
    assert "Bryn: shouting in capitals (by warden, 2 hours left)" in flat(
        await warden.command("@mute")
    )
    assert "Bryn may talk again." in flat(await warden.command("@unmute Bryn"))
    assert 'You say, "hello"' in flat(await bryn.command("say hello"))

    # @kick: the connection closes with the reason; the player may come back.
    warden.skip()
    assert "Kicked Bryn (cool off)." in flat(await warden.command("@kick bryn cool off"))
    assert "You have been kicked off the server by an admin: cool off" in flat(
        await bryn.wait_closed()
    )
    bryn = await telnet.open("127.0.0.1", live.telnet_port)
    await bryn.connect_as("Bryn", "loud-bryn-12")

    # @ban of the account: thrown out now, refused after the password, kept in the
    # database; @unban lets them in again.
    out = flat(await warden.command("@ban Bryn 3d griefing at the well"))
    assert "Banned account bryn for another 3 days: griefing at the well." in out
    assert "1 connection(s) closed." in out
    assert "You have been banned for another 3 days: griefing at the well" in flat(
        await bryn.wait_closed()
    )
    doc = await live.engine.store.documents.get(MODERATION_COLLECTION, "bans")
    assert doc is not None
    assert doc["bans"][0]["reason"] == "griefing at the well"
    again = await telnet.open("127.0.0.1", live.telnet_port)
    refused = flat(await again.try_login("connect", "Bryn", "loud-bryn-12"))
    assert "The account Bryn is banned for another 3 days: griefing at the well" in refused
    listing = flat(await warden.command("@ban"))
    assert "account bryn: griefing at the well (by warden, for another 3 days)" in listing
    assert "Lifted the ban of account bryn" in flat(await warden.command("@unban bryn"))
    bryn = await telnet.open("127.0.0.1", live.telnet_port)
    await bryn.connect_as("Bryn", "loud-bryn-12")

    # An address ban refuses the connection before any login; not one's own.
    assert "That would ban your own address." in flat(
        await warden.command("@ban 127.0.0.1 everyone")
    )
    assert "Give a reason" in flat(await warden.command("@ban 10.1.2.0/24"))
    out = flat(await warden.command("@ban 10.1.2.0/24 1w bot farm"))
    assert "Banned address 10.1.2.0/24 for another 1 week: bot farm." in out
    bans = live.engine.services.get(AccountService).bans
    now = live.engine.clock.wall()
    assert (await bans.of_address("10.1.2.9", now)) is not None
    assert (await bans.of_address("10.1.3.9", now)) is None
    assert "Lifted the ban of address 10.1.2.0/24" in flat(
        await warden.command("@unban 10.1.2.0/24")
    )
    assert "is not banned" in flat(await warden.command("@unban 10.1.2.0/24"))
