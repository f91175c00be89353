"""quit, password and @role."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from accounts.account_helpers import PASSWORD, Client

from maid_engine.accounts import AccountService, RoleChangeRefused
from maid_engine.accounts.service import check_role_change
from maid_engine.commands import Role
from maid_engine.engine import GameEngine

MakeClient = Callable[..., Client]


async def play(make: MakeClient, name: str, host: str = "127.0.0.1") -> Client:
    c = make(host)
    await c.open()
    await c.line(f"create {name} {PASSWORD}")
    assert c.session.character_id is not None
    return c


async def test_account_commands_are_registered(engine: GameEngine) -> None:
    for key in ("quit", "password", "@role"):
        assert engine.commands.get(key) is not None
    assert engine.commands.get("@role").permission is Role.ADMIN  # type: ignore[union-attr]


async def test_password_command_changes_the_password(
    accounts: AccountService, make_client: MakeClient
) -> None:
    c = make_client()
    await c.open()
    await c.line("create Aldric oldpass123")
    assert "Usage: password" in await c.line("password onlyone")
    out = await c.line("password wrong-old brand-new-pass")
    # Hashing happens in the background, not under the world lock.
    assert "Changing your password..." in out
    await accounts.drain()
    assert c.session.sent[-1] == "Your current password is not correct; your password is unchanged."
    assert c.last_prompt == "> "
    await c.line("password oldpass123 short")
    await accounts.drain()
    assert "at least 6 characters" in c.session.sent[-1]
    await c.line("password oldpass123 brand-new-pass")
    await accounts.drain()
    assert c.session.sent[-1] == "Your password has been changed."
    await c.line("quit")
    d = make_client()
    await d.open()
    assert "Wrong name or password." in await d.line("connect aldric oldpass123")
    assert "Welcome" in await d.line("connect aldric brand-new-pass")


async def test_role_command_needs_admin(
    engine: GameEngine, accounts: AccountService, make_client: MakeClient
) -> None:
    target = await play(make_client, "Bryn")
    player = await play(make_client, "Cora")
    out = await player.line("@role bryn builder")
    assert "Huh? '@role' is not a command." in out
    admin = await play(make_client, "Dain")
    await accounts.set_role("dain", Role.ADMIN)
    assert admin.session.data["role"] is Role.ADMIN  # applied to the live session
    assert "Bryn is a player." in await admin.line("@role bryn")
    assert "Bryn is now a builder." in await admin.line("@role BRYN builder")
    assert target.session.data["role"] is Role.BUILDER
    assert "Your role is now builder." in target.session.sent
    account = await accounts.get("bryn")
    assert account is not None
    assert account.role is Role.BUILDER
    assert "Unknown role" in await admin.line("@role bryn wizard")
    assert "There is no account or character named Zed" in await admin.line("@role Zed admin")
    assert "cannot change your own role" in await admin.line("@role dain player")
    assert "Usage: @role" in await admin.line("@role")


@pytest.fixture
def make_client(client: MakeClient) -> MakeClient:
    return client


async def test_password_command_refuses_a_common_password(
    accounts: AccountService, make_client: MakeClient
) -> None:
    c = make_client()
    await c.open()
    await c.line("create Aldric oldpass123")
    await c.line("password oldpass123 Password1")
    await accounts.drain()
    assert "one of the most common ones" in c.session.sent[-1]
    await c.line("quit")
    d = make_client()
    await d.open()
    assert "Wrong name or password." in await d.line("connect aldric Password1")
    assert "Welcome" in await d.line("connect aldric oldpass123")


async def test_admins_cannot_change_admins_only_owners_can(
    engine: GameEngine, accounts: AccountService, make_client: MakeClient
) -> None:
    """An admin cannot demote (or make) another admin; an owner can; nobody in the
    game can touch an owner or make one."""
    first = await play(make_client, "Dain")
    second = await play(make_client, "Edda")
    owner = await play(make_client, "Fenn")
    builder = await play(make_client, "Gale")
    await accounts.set_role("dain", Role.ADMIN)
    await accounts.set_role("edda", Role.ADMIN)
    await accounts.set_role("fenn", Role.OWNER)
    await accounts.set_role("gale", Role.BUILDER)

    def live_role(c: Client) -> object:
        return c.session.data["role"]

    async def role_of(name: str) -> Role:
        account = await accounts.get(name)
        assert account is not None
        return account.role

    only_owner = "Only an owner can make somebody an admin or unmake an admin."
    assert only_owner in await first.line("@role edda player")
    assert only_owner in await first.line("@role edda builder")
    assert only_owner in await first.line("@role gale admin")
    assert await role_of("edda") is Role.ADMIN
    assert await role_of("gale") is Role.BUILDER
    assert live_role(second) is Role.ADMIN
    command_line = "only on the server's command line (maid create-admin)"
    assert command_line in await first.line("@role fenn player")
    assert command_line in await first.line("@role gale owner")
    assert "Fenn is an owner." in await first.line("@role fenn")
    # Admins still manage players and builders.
    assert "Gale is now a player." in await first.line("@role gale player")
    assert "Gale is now a builder." in await first.line("@role gale builder")
    # The owner manages admins...
    assert "Edda is now a builder." in await owner.line("@role edda builder")
    assert live_role(second) is Role.BUILDER
    assert "Edda is now an admin." in await owner.line("@role edda admin")
    assert await role_of("edda") is Role.ADMIN
    # ...but neither makes another owner nor changes one.
    other = await play(make_client, "Hale")
    await accounts.set_role("hale", Role.OWNER)
    assert command_line in await owner.line("@role hale admin")
    assert command_line in await owner.line("@role edda owner")
    assert await role_of("hale") is Role.OWNER
    assert live_role(other) is Role.OWNER
    assert "cannot change your own role" in await owner.line("@role fenn admin")
    assert live_role(builder) is Role.BUILDER


@pytest.mark.parametrize("actor", list(Role))
@pytest.mark.parametrize("current", list(Role))
@pytest.mark.parametrize("new", list(Role))
def test_the_role_rule_for_every_combination(actor: Role, current: Role, new: Role) -> None:
    if current < actor and new < actor and Role.OWNER not in (current, new):
        check_role_change(actor, current, new)
        return
    if Role.OWNER in (current, new):
        message = "command line"
    elif actor is Role.ADMIN:
        message = "Only an owner"
    elif actor is Role.BUILDER:
        message = "below it [(]player[)]"
    else:
        message = "below it [(]none[)]"
    with pytest.raises(RoleChangeRefused, match=message):
        check_role_change(actor, current, new)
