"""The login screen, driven through the SessionManager like a transport would."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from uuid import UUID

import pytest
from accounts.account_helpers import PASSWORD, Client, Events, build_engine

from maid_engine.accounts import AccountService, PlayerCharacter
from maid_engine.accounts.passwords import common_passwords, scrypt_kdf
from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent

MakeClient = Callable[..., Client]


async def create(
    make: MakeClient,
    name: str,
    password: str = PASSWORD,
    host: str = "127.0.0.1",
    *,
    stay: bool = True,
) -> Client:
    """Create an account (and its first character) with the one-line form; with
    ``stay=False`` quit right away."""
    c = make(host)
    await c.open()
    out = await c.line(f"create {name} {password}")
    assert c.session.character_id is not None, out
    if not stay:
        await c.line("quit")
    return c


def character_named(engine: GameEngine, name: str) -> UUID:
    found = [
        uid
        for uid, pc in engine.world.each(PlayerCharacter)
        if pc.name.casefold() == name.casefold()
    ]
    assert len(found) == 1
    return found[0]


async def test_banner_explains_create_and_connect(client: MakeClient) -> None:
    c = client()
    out = await c.open()
    assert "MAID" in out
    assert "create <name> <password>" in out
    assert "connect <name> <password>" in out
    assert c.last_prompt == "What is your name? "
    assert not c.last_prompt.endswith("\n")


async def test_interactive_create_hides_the_password(
    engine: GameEngine, client: MakeClient, events: Events
) -> None:
    c = client()
    await c.open()
    out = await c.line("aldric")
    assert "There is no account named Aldric. Create it? (yes/no)" in out
    assert c.session.echo
    await c.line("yes")
    assert c.last_prompt.startswith("Choose a password")
    assert c.session.echo is False
    await c.line(PASSWORD)
    assert c.last_prompt == "Type the password again: "
    assert c.session.echo is False
    out = await c.line(PASSWORD)
    assert c.session.echo is True
    assert "Account Aldric created." in out
    assert "Welcome, Aldric." in out
    assert c.last_prompt == "> "
    # Every password prompt was shown with echo off; everything else with echo on.
    for kind, text, echo in c.session.transcript:
        if kind == "prompt" and "password" in text.lower():
            assert echo is False, text
        else:
            assert echo is True, text
    assert PASSWORD not in c.session.everything()
    assert "login" not in c.session.data
    uid = c.session.character_id
    assert uid is not None
    pc = engine.world.get_component(uid, PlayerCharacter)
    assert (pc.name, pc.account_id) == ("Aldric", "aldric")
    assert c.session.account_id == "aldric"
    assert c.session.data["role"] is Role.PLAYER
    connected = events.of(CharacterConnectedEvent)
    assert connected == [CharacterConnectedEvent(uid, c.session.id, takeover=False)]
    assert events.lock_held == [True]


async def test_confirm_mismatch_asks_again(client: MakeClient) -> None:
    c = client()
    await c.open()
    await c.line("bryn")
    await c.line("y")
    await c.line("first-password")
    out = await c.line("other-password")
    assert "The passwords do not match" in out
    assert c.last_prompt == "Choose a password: "
    assert c.session.echo is False
    await c.line("third-password")
    out = await c.line("third-password")
    assert "Welcome, Bryn." in out
    everything = c.session.everything()
    for secret in ("first-password", "other-password", "third-password"):
        assert secret not in everything


async def test_declining_creation_returns_to_the_name_prompt(client: MakeClient) -> None:
    c = client()
    await c.open()
    await c.line("cora")
    out = await c.line("maybe")
    assert "Please answer yes or no" in out
    await c.line("no")
    assert c.last_prompt == "What is your name? "


async def test_short_new_password_is_refused_with_a_clear_message(client: MakeClient) -> None:
    c = client()
    await c.open()
    await c.line("dara")
    await c.line("yes")
    out = await c.line("abc")
    assert "Passwords must be at least 6 characters long." in out
    assert c.session.echo is False
    assert c.last_prompt == "Choose a password: "
    out = await (client()).open()
    c2 = client()
    await c2.open()
    assert "at least 6 characters" in await c2.line("create Dara abc")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("al", "Names must be at least 3 letters long."),
        ("x1y2z3", "Names cannot contain digits."),
        ("admin", "The name Admin is reserved; please choose another."),
        ("ROOT", "The name Root is reserved"),
        ("two words", "A name is a single word, without spaces."),
    ],
)
async def test_bad_names_at_the_prompt(client: MakeClient, name: str, message: str) -> None:
    c = client()
    await c.open()
    out = await c.line(name)
    assert message in out
    assert c.last_prompt == "What is your name? "


@pytest.mark.parametrize("name", ["al", "admin", "x1"])
async def test_bad_names_in_one_line_create(client: MakeClient, name: str) -> None:
    c = client()
    await c.open()
    out = await c.line(f"create {name} {PASSWORD}")
    assert "Names" in out or "reserved" in out
    assert c.session.character_id is None


async def test_duplicate_names_are_case_insensitive(client: MakeClient) -> None:
    await create(client, "Aldric")
    c = client()
    await c.open()
    assert "The name Aldric is already taken." in await c.line(f"create ALDRIC {PASSWORD}")
    # At the interactive prompt an existing name asks for its password instead.
    await c.line("aLdRiC")
    assert c.last_prompt == "Password: "


async def test_character_names_and_account_names_share_one_namespace(
    engine: GameEngine, accounts: AccountService, client: MakeClient
) -> None:
    await create(client, "Aldric")
    account = await accounts.get("aldric")
    assert account is not None
    await accounts.add_character(account, "Bryn")
    c = client()
    await c.open()
    assert "The name Bryn is already taken." in await c.line(f"create bryn {PASSWORD}")


async def test_a_name_someone_in_the_world_has_is_refused_saying_so(
    engine: GameEngine, client: MakeClient
) -> None:
    from maid_stdlib.world.components import Describable

    engine.world.create_entity(Describable(name="Wenna", description="The miller's daughter."))
    c = client()
    await c.open()
    out = await c.line(f"create WENNA {PASSWORD}")
    assert "The name Wenna belongs to someone or something in this world." in out
    assert c.session.character_id is None


async def test_one_line_create_then_connect(engine: GameEngine, client: MakeClient) -> None:
    first = await create(client, "Elin")
    uid = first.session.character_id
    await first.line("quit")
    c = client()
    await c.open()
    out = await c.line(f"connect elin {PASSWORD}")
    assert "Welcome, Elin." in out
    assert c.session.character_id == uid
    assert c.last_prompt == "> "
    assert PASSWORD not in c.session.everything()


async def test_password_with_spaces_survives_one_line_forms(client: MakeClient) -> None:
    first = await create(client, "Fenna", "a long pass phrase")
    await first.line("quit")
    c = client()
    await c.open()
    assert "Welcome" in await c.line("connect Fenna a long pass phrase")


async def test_one_line_usage(client: MakeClient) -> None:
    c = client()
    await c.open()
    assert "Usage: connect <name> <password>" in await c.line("connect")
    assert "Usage: create <name> <password>" in await c.line("create Gwen")


async def test_interactive_login_of_an_existing_account(client: MakeClient) -> None:
    first = await create(client, "Hale")
    uid = first.session.character_id
    await first.line("quit")
    c = client()
    await c.open()
    await c.line("hale")
    assert c.session.echo is False
    assert c.last_prompt == "Password: "
    out = await c.line(PASSWORD)
    assert c.session.echo is True
    assert "Welcome, Hale." in out
    assert c.session.character_id == uid


async def test_wrong_password_and_unknown_name_look_the_same(client: MakeClient) -> None:
    await create(client, "Ivor")
    c = client()
    await c.open()
    wrong = await c.line("connect ivor not-the-password")
    unknown = await c.line("connect nobodyhere whatever1")
    assert wrong == unknown
    assert "Wrong name or password." in wrong
    assert c.session.character_id is None


async def test_unknown_name_still_runs_one_scrypt(
    accounts: AccountService, client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await create(client, "Jory")
    calls: list[int] = []

    def counting(*args: object) -> bytes:
        calls.append(1)
        return scrypt_kdf(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(accounts.hasher, "kdf", counting)
    c = client()
    await c.open()
    await c.line(f"connect Nosuchname {PASSWORD}")
    assert len(calls) == 1
    await c.line("connect Jory wrong-password")
    assert len(calls) == 2


async def test_three_failures_close_the_connection(client: MakeClient) -> None:
    await create(client, "Kell")
    c = client("10.0.0.9")
    await c.open()
    await c.line("kell")
    await c.line("bad-one")
    assert c.session.connected
    assert c.last_prompt == "What is your name? "
    await c.line("connect kell bad-two")
    assert c.session.connected
    await c.line("connect kell bad-three")
    assert not c.session.connected
    assert c.session.close_message is not None
    assert "Too many failed attempts" in c.session.close_message


async def test_throttle_per_ip(
    engine: GameEngine,
    accounts: AccountService,
    client: MakeClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    free = engine.settings.login_failures_per_address
    base = engine.settings.login_backoff_base
    await create(client, "Lorn", stay=False)
    for i in range(free):
        c = client("10.1.1.1")
        await c.open()
        # Different (unknown) names: only the address ties the attempts together.
        assert "Wrong name or password." in await c.line(f"connect Nobody{'x' * i} bad-pass")
    calls: list[int] = []

    def counting(*args: object) -> bytes:
        calls.append(1)
        return scrypt_kdf(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(accounts.hasher, "kdf", counting)
    c = client("10.1.1.1")
    await c.open()
    out = await c.line(f"connect Lorn {PASSWORD}")
    assert f"Too many failed login attempts; try again in {base:.0f} s." in out
    assert c.session.character_id is None
    assert calls == []  # the password was not even looked at
    # Another address is not affected.
    other = client("10.2.2.2")
    await other.open()
    assert "Welcome" in await other.line(f"connect Lorn {PASSWORD}")
    await other.line("quit")
    # The backoff is over: the address may try again.
    engine.clock.skip(base)  # type: ignore[attr-defined]
    c2 = client("10.1.1.1")
    await c2.open()
    assert "Welcome" in await c2.line(f"connect Lorn {PASSWORD}")


async def test_throttle_per_account_and_address(engine: GameEngine, client: MakeClient) -> None:
    limit = engine.settings.login_attempts_per_minute
    await create(client, "Mira", stay=False)
    await create(client, "Nessa", stay=False)
    # Failures on Mira from many addresses do not lock Mira: the owner, from an
    # address that has not failed, gets in at the first try.
    for i in range(3 * limit):
        c = client(f"10.3.0.{i}")
        await c.open()
        assert "Wrong name or password." in await c.line("connect mira wrong-pass")
    owner = client("10.9.9.9")
    await owner.open()
    assert "Welcome, Mira" in await owner.line(f"connect Mira {PASSWORD}")
    await owner.line("quit")
    # One address failing `limit` times on Mira is refused for Mira, even with the
    # right password, in both login forms...
    attacker = client("10.3.1.1")
    await attacker.open()
    for _ in range(2):
        await attacker.line("connect mira wrong-pass")
    attacker = client("10.3.1.1")
    await attacker.open()
    for _ in range(limit - 2):
        await attacker.line("connect mira wrong-pass")
    attacker = client("10.3.1.1")
    await attacker.open()
    assert "Too many failed login attempts" in await attacker.line(f"connect Mira {PASSWORD}")
    await attacker.line("mira")
    assert "Too many failed login attempts" in await attacker.line(PASSWORD)
    # ...but not for other accounts, and only until the failures are a minute old.
    other = client("10.3.1.1")
    await other.open()
    assert "Welcome, Nessa" in await other.line(f"connect Nessa {PASSWORD}")
    engine.clock.skip(60)  # type: ignore[attr-defined]
    again = client("10.3.1.1")
    await again.open()
    assert "Welcome, Mira" in await again.line(f"connect Mira {PASSWORD}")


async def test_success_clears_the_account_failures(
    engine: GameEngine, accounts: AccountService, client: MakeClient
) -> None:
    limit = engine.settings.login_attempts_per_minute
    await create(client, "Orla", stay=False)
    c = client("10.4.0.1")
    await c.open()
    for _ in range(2):
        await c.line("connect orla wrong-pass")
    assert "Welcome" in await c.line(f"connect orla {PASSWORD}")
    await c.line("quit")
    # The two failures before the success no longer count against Orla here...
    assert accounts.throttle.pair_failures("orla", "10.4.0.1") == 0
    for _ in range(limit - 1):
        d = client("10.4.0.1")
        await d.open()
        await d.line("connect orla wrong-pass")
    d = client("10.4.0.1")
    await d.open()
    assert "Welcome" in await d.line(f"connect orla {PASSWORD}")
    # ...but they still count for the address: logging into an account of one's
    # own does not reset the backoff of an address that guesses at others.
    assert accounts.throttle.address_failures("10.4.0.1") == limit + 1


async def test_character_menu(
    engine: GameEngine, accounts: AccountService, client: MakeClient, events: Events
) -> None:
    first = await create(client, "Aldric")
    await first.line("quit")
    account = await accounts.get("Aldric")
    assert account is not None
    bryn = await accounts.add_character(account, "bryn")
    c = client()
    await c.open()
    await c.line("aldric")
    out = await c.line(PASSWORD)
    assert "1) Aldric  2) Bryn" in out
    assert "new <name>" in out
    assert "2 of 5 used" in out
    assert c.last_prompt == "Choose: "
    assert c.session.character_id is None
    assert "Please type one of the numbers" in await c.line("7")
    out = await c.line("2")
    assert "Welcome, Bryn." in out
    assert c.session.character_id == bryn
    assert c.session.account_id == "aldric"


async def test_new_character_from_the_menu_and_the_limit(
    engine: GameEngine, accounts: AccountService, client: MakeClient
) -> None:
    accounts.max_characters = 3
    first = await create(client, "Aldric")
    await first.line("quit")
    account = await accounts.get("aldric")
    assert account is not None
    await accounts.add_character(account, "Bryn")
    c = client()
    await c.open()
    await c.line(f"connect aldric {PASSWORD}")  # goes straight to Aldric
    await c.line("quit")
    c = client()
    await c.open()
    await c.line("aldric")
    await c.line(PASSWORD)
    assert "already taken" in await c.line("new Bryn")
    assert "reserved" in await c.line("new admin")
    out = await c.line("new cora")
    assert "Welcome, Cora." in out
    cora = character_named(engine, "Cora")
    assert c.session.character_id == cora
    await c.line("quit")
    c = client()
    await c.open()
    await c.line("aldric")
    out = await c.line(PASSWORD)
    assert "1) Aldric  2) Bryn  3) Cora" in out
    assert "An account can have at most 3 characters." in await c.line("new Dain")
    # A character can also be picked by name.
    assert "Welcome, Bryn." in await c.line("bryn")


async def test_connect_picks_the_named_character(
    engine: GameEngine, accounts: AccountService, client: MakeClient
) -> None:
    first = await create(client, "Aldric")
    aldric = first.session.character_id
    await first.line("quit")
    account = await accounts.get("aldric")
    assert account is not None
    bryn = await accounts.add_character(account, "Bryn")
    c = client()
    await c.open()
    await c.line(f"connect bryn {PASSWORD}")
    assert c.session.character_id == bryn
    assert c.session.account_id == "aldric"
    await c.line("quit")
    c = client()
    await c.open()
    await c.line(f"connect aldric {PASSWORD}")
    assert c.session.character_id == aldric


async def test_takeover(engine: GameEngine, client: MakeClient, events: Events) -> None:
    old = await create(client, "Aldric")
    uid = old.session.character_id
    assert uid is not None
    new = client("10.5.5.5")
    new_id = new.session.id
    await new.open()
    out = await new.line(f"connect aldric {PASSWORD}")
    assert "You take over Aldric" in out
    assert new.session.character_id == uid
    assert engine.sessions.session_for(uid) is new.session
    assert not old.session.connected
    assert old.session.close_message == "Your character was taken over by another connection."
    assert old.session.character_id is None
    # The transport reports the old connection closed: the character did not leave.
    await old.report_close()
    assert events.of(CharacterDisconnectedEvent) == []
    connected = events.of(CharacterConnectedEvent)
    assert [e.takeover for e in connected] == [False, True]
    assert connected[1].session_id == new_id
    assert engine.sessions.session_for(uid) is new.session
    assert "You need" not in await new.line("quit")


async def test_quit_says_goodbye_and_publishes_disconnect(
    engine: GameEngine, client: MakeClient, events: Events
) -> None:
    c = await create(client, "Aldric")
    uid = c.session.character_id
    assert uid is not None
    engine.clock.advance_wall(100)  # type: ignore[attr-defined]
    await c.line("quit")
    assert not c.session.connected
    assert c.session.close_message is not None
    assert "Goodbye" in c.session.close_message
    assert engine.sessions.session_for(uid) is None
    gone = events.of(CharacterDisconnectedEvent)
    assert gone == [CharacterDisconnectedEvent(uid, c.session.id, reason="quit")]
    assert events.lock_held == [True, True]
    pc = engine.world.get_component(uid, PlayerCharacter)
    assert pc.last_seen == engine.clock.wall()


async def test_quit_needs_the_full_word(client: MakeClient) -> None:
    c = await create(client, "Aldric")
    await c.line("qui")
    assert c.session.connected


async def test_link_loss_publishes_disconnect(client: MakeClient, events: Events) -> None:
    c = await create(client, "Aldric")
    await c.drop()
    gone = events.of(CharacterDisconnectedEvent)
    assert len(gone) == 1
    assert gone[0].reason == "disconnected"


async def test_leaving_from_the_login_screen_publishes_nothing(
    engine: GameEngine, client: MakeClient, events: Events
) -> None:
    c = client()
    await c.open()
    await c.line("quit")
    assert not c.session.connected
    assert events.seen == []
    assert engine.sessions.all() == []


async def test_disconnect_while_the_password_is_being_checked(
    engine: GameEngine,
    accounts: AccountService,
    client: MakeClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = await create(client, "Aldric")
    await first.line("quit")
    release = threading.Event()

    def slow(*args: object) -> bytes:
        release.wait(5)
        return scrypt_kdf(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(accounts.hasher, "kdf", slow)
    c = client()
    await c.open()
    pending = asyncio.create_task(c.line(f"connect aldric {PASSWORD}"))
    await asyncio.sleep(0.01)
    await c.drop()
    release.set()
    await pending
    assert c.session.character_id is None
    assert engine.sessions.playing() == []


async def test_nothing_logs_the_password(
    client: MakeClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    c = client()
    await c.open()
    await c.line("aldric")
    await c.line("yes")
    await c.line(PASSWORD)
    await c.line(PASSWORD)
    await c.line("quit")
    d = client()
    await d.open()
    await d.line("connect aldric wrong-secret")
    await d.line(f"connect aldric {PASSWORD}")
    assert "Aldric" in caplog.text
    assert PASSWORD not in caplog.text
    assert "wrong-secret" not in caplog.text


async def test_concurrent_creation_of_one_name(accounts: AccountService) -> None:
    results = await asyncio.gather(
        accounts.create_account("Pell", PASSWORD),
        accounts.create_account("PELL", PASSWORD),
        return_exceptions=True,
    )
    errors = [r for r in results if isinstance(r, Exception)]
    assert len(errors) == 1
    assert "already taken" in str(errors[0])


async def test_the_common_password_list_is_read_when_the_server_starts(tmp_path: Path) -> None:
    """Not at the first account created: that login would pay for reading it on the
    event loop, and the evening's memory per player would count the server's list."""
    common_passwords.cache_clear()
    engine = build_engine(tmp_path)
    assert common_passwords.cache_info().currsize == 0
    await engine.start()
    try:
        assert common_passwords.cache_info().currsize == 1
    finally:
        await engine.stop()


async def _a_command_from_a_socket(engine: GameEngine, seen: Callable[[], str]) -> str:
    """What a line read from a socket does: it goes into the session's inbox, and a
    turn later the session's worker asks for the world. Returns what ``seen``
    found once it had the world."""
    await asyncio.sleep(0)
    async with engine.world_lock.command():
        return seen()


async def test_a_command_that_came_in_during_a_logins_step_goes_before_the_next(
    engine: GameEngine, client: MakeClient, accounts: AccountService
) -> None:
    # In a login storm the pieces of the logins' work on the event loop follow each
    # other; a player's command that came in during one is served before the next
    # (making the character, entering the game), not after all of them.
    def where_is_cara() -> str:
        if not any(pc.name == "Cara" for _, pc in engine.world.each(PlayerCharacter)):
            return "not made yet"
        online = engine.sessions.is_online(character_named(engine, "Cara"))
        return "in the game" if online else "made"

    commands: list[asyncio.Task[str]] = []
    hash_password = accounts.hasher.hash

    async def hashed(password: str) -> str:
        digest = await hash_password(password)
        # The hash is back: the step that makes the character comes next.
        commands.append(asyncio.create_task(_a_command_from_a_socket(engine, where_is_cara)))
        return digest

    accounts.hasher.hash = hashed  # type: ignore[method-assign]
    c = client()
    await c.open()
    send = c.session.send

    def sent(text: str) -> None:
        send(text)
        if text.startswith("Account Cara created."):
            # Written: the step that puts her into the game comes next.
            commands.append(asyncio.create_task(_a_command_from_a_socket(engine, where_is_cara)))

    c.session.send = sent  # type: ignore[method-assign]
    out = await c.line(f"create cara {PASSWORD}")
    assert "Welcome, Cara." in out
    assert [await task for task in commands] == ["not made yet", "made"]
