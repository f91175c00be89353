"""Sessions cannot act as another character (real sockets, in-process server).

Commands always run as the session's own character; another account's character can
only be taken over with its account's password; the character menu offers only the
account's own characters.
"""

from __future__ import annotations

from uuid import UUID

from e2e.client import ClientPool, flat

from maid_engine.accounts import AccountService
from maid_engine.accounts.login import TAKEOVER_MESSAGE
from maid_engine.app import MaidServer
from maid_stdlib.world import WorldService


def _room(live: MaidServer, name: str) -> str | None:
    service = live.engine.services.get(AccountService)
    found = service.character_named(name)
    assert found is not None, name
    ws = live.engine.services.get(WorldService)
    return ws.room_key_of(found[0])


def _character_id(live: MaidServer, name: str) -> UUID:
    found = live.engine.services.get(AccountService).character_named(name)
    assert found is not None
    return found[0]


async def test_commands_act_only_as_the_sessions_own_character(
    live: MaidServer, telnet: ClientPool
) -> None:
    port = live.telnet_port
    alice = await telnet.open("127.0.0.1", port)
    await alice.create("Alice", "alicepass1")
    mallory = await telnet.open("127.0.0.1", port, source="127.0.4.1")
    await mallory.create("Mallory", "mallorypw1")

    # Moving moves the mover.
    assert "Watch Street" in await mallory.command("north")
    assert _room(live, "Mallory") == "ironvale:watch_street"
    assert _room(live, "Alice") == "ironvale:square"

    # A tell is signed by the teller's own character, whatever the text claims.
    alice.skip()
    await mallory.command('tell Alice Bob tells you, "give me your password"')
    heard = flat(await alice.expect("give me your password"))
    assert heard.startswith("Mallory tells you,"), heard
    # Markup in player text is shown literally, it cannot fake colours or lines.
    await mallory.command("tell Alice |rSYSTEM|n: reboot")
    assert "||rSYSTEM||n" not in alice.unread()
    assert "|rSYSTEM|n: reboot" in flat(await alice.expect("reboot"))

    # A builder's @goto to a character moves the builder to them, never them.
    await live.engine.services.get(AccountService).set_role("Mallory", "builder")
    out = await mallory.command("@goto Alice")
    assert "Ironvale Village Square" in out
    assert _room(live, "Mallory") == "ironvale:square"
    assert "Watch Street" in await alice.command("north")
    assert _room(live, "Alice") == "ironvale:watch_street"
    # Login words typed while playing are just (unknown) commands.
    answer = flat(await mallory.command("connect Alice alicepass1"))
    assert "Huh?" in answer
    assert "Welcome" not in answer
    assert live.engine.sessions.session_for(_character_id(live, "Alice")) is not None
    assert "Exits:" in await alice.command("look")


async def test_taking_over_a_character_needs_its_accounts_password(
    live: MaidServer, telnet: ClientPool
) -> None:
    port = live.telnet_port
    alice = await telnet.open("127.0.0.1", port)
    await alice.create("Alice", "alicepass1")
    mallory = await telnet.open("127.0.0.1", port, source="127.0.4.2")
    await mallory.create("Mallory", "mallorypw1")
    await mallory.quit()

    # Mallory's own password does not open Alice, by account or by character name.
    intruder = await telnet.open("127.0.0.1", port, source="127.0.4.2")
    for name in ("Alice", "alice", "ALICE"):
        answer = flat(await intruder.try_login("connect", name, "mallorypw1"))
        assert "Wrong name or password." in answer
        assert "Welcome" not in answer
        if intruder.eof:
            intruder = await telnet.open("127.0.0.1", port, source="127.0.4.3")
    assert "Exits:" in await alice.command("look")  # untouched, not taken over
    assert TAKEOVER_MESSAGE not in flat(alice.transcript)

    # With the right password, a second connection takes over (and the first is told).
    again = await telnet.open("127.0.0.1", port)
    out = await again.connect_as("Alice", "alicepass1")
    assert "You take over Alice from your other connection." in flat(out)
    assert TAKEOVER_MESSAGE in flat(await alice.wait_closed())
    assert "Exits:" in await again.command("look")


async def test_the_character_menu_offers_only_the_accounts_own_characters(
    live: MaidServer, telnet: ClientPool
) -> None:
    port = live.telnet_port
    service = live.engine.services.get(AccountService)
    await (await telnet.open("127.0.0.1", port)).create("Alice", "alicepass1")
    eve = await telnet.open("127.0.0.1", port)
    await eve.create("Eve", "evepass123")
    await eve.quit()
    account = await service.get("Eve")
    assert account is not None
    await service.add_character(account, "Evelyn")

    client = await telnet.open("127.0.0.1", port)
    await client.read_until_prompt()
    assert "Password" in await client.command("Eve")
    menu = flat(await client.command("evepass123"))
    assert "1) Eve" in menu
    assert "2) Evelyn" in menu
    assert "Alice" not in menu
    for choice in ("Alice", "3", "0", "-1", str(_character_id(live, "Alice"))):
        answer = flat(await client.command(choice))
        assert "Please type one of the numbers" in answer, (choice, answer)
    assert "Welcome, Evelyn." in await client.command("2")
