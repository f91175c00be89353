"""Every privileged command is permission-checked, table-driven.

The table is not written by hand: it is every command registered in a server with
the default packs and every installed pack loaded, so a command added later by any
pack is covered automatically. For each command a player (or builder, where it needs
admin) may not use, several spellings are tried; the session must get a permission
message and nothing else may happen: no world change, no event, no account change,
no shutdown, no message to anybody else.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from maid_engine.accounts import AccountService
from maid_engine.app import MaidServer
from maid_engine.commands import Command, Role
from maid_engine.config import Settings
from maid_engine.content.loader import available_packs
from maid_engine.testing import FakeSession

ARGUMENTS = ("", " Victim", " Victim admin", " ironvale:watchtower", " now please", " *")


def all_packs() -> list[str]:
    return sorted(set(Settings(_env_file=None).packs) | set(available_packs()))  # type: ignore[call-arg]


class World:
    """A quiet server: started like `maid run` but with a tick only every 1000 s, so
    nothing changes unless a command changes it."""

    def __init__(self, server: MaidServer) -> None:
        self.server = server
        self.engine = server.engine
        self.events: list[Any] = []
        self.watching = False
        emit, publish = self.engine.events.emit, self.engine.events.publish

        def recording_emit(event: Any) -> None:
            if self.watching:
                self.events.append(event)
            emit(event)

        async def recording_publish(event: Any) -> None:
            if self.watching:
                self.events.append(event)
            await publish(event)

        self.engine.events.emit = recording_emit  # type: ignore[method-assign]
        self.engine.events.publish = recording_publish  # type: ignore[method-assign]

    async def player(self, name: str, role: Role) -> FakeSession:
        service = self.engine.services.get(AccountService)
        account = await service.create_account(name, "pass-phrase-1", role=role)
        uid = await service.add_character(account, name)
        session = FakeSession(role=role)
        session.account_id = account.key
        self.engine.sessions.attach(session, uid)
        return session

    async def accounts(self) -> dict[str, Any]:
        docs = self.engine.store.documents
        return {k: await docs.get("accounts", k) for k in await docs.keys("accounts")}


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path,
        packs=all_packs(),
        telnet_enabled=False,
        metrics_enabled=False,
        scrypt_n=1024,
        tick_rate=0.001,
        checkpoint_interval=3600.0,
    )
    server = MaidServer(settings, announce=lambda _line: None)
    await server.start()
    try:
        yield World(server)
    finally:
        await server.stop()


def privileged(world: World) -> list[Command]:
    return sorted(
        (c for c in world.engine.commands.all() if c.permission > Role.PLAYER),
        key=lambda c: c.key,
    )


async def test_every_at_command_needs_a_privileged_role(world: World) -> None:
    commands = world.engine.commands.all()
    at_commands = [c for c in commands if any(n.startswith("@") for n in c.names)]
    assert {"@shutdown", "@role", "@goto", "@who"} <= {c.key for c in at_commands}
    loose = [c.key for c in at_commands if c.permission < Role.BUILDER]
    assert not loose, f"@-commands a player may use: {loose}"


@pytest.mark.parametrize("role", [Role.PLAYER, Role.BUILDER], ids=["player", "builder"])
async def test_privileged_commands_refuse_lower_roles_and_do_nothing(
    world: World, role: Role
) -> None:
    engine = world.engine
    actor = await world.player("Tester", role)
    victim = await world.player("Victim", Role.PLAYER)
    admin = await world.player("Boss", Role.ADMIN)
    table = [c for c in privileged(world) if c.permission > role]
    if role is Role.PLAYER:
        assert any(c.key.startswith("@") for c in table)
    assert table, "nothing to test"
    engine.world.take_changes()
    accounts_before = await world.accounts()
    entities_before = engine.world.entity_count
    victim.sent.clear()
    admin.sent.clear()
    checked = 0

    for cmd in table:
        for name in cmd.names:
            for args in ARGUMENTS:
                line = f"{name}{args}"
                actor.sent.clear()
                world.watching = True
                try:
                    await engine.sessions.session_line(actor, line)
                finally:
                    world.watching = False
                said = "\n".join(actor.sent)
                if role < Role.BUILDER:
                    # A player is not told staff commands exist.
                    assert f"Huh? '{name}' is not a command." in said, (line, said)
                else:
                    assert f"You do not have permission to use {name}" in said, (line, said)
                assert world.events == [], (line, world.events)
                assert engine.world.take_changes() == (set(), [], []), line
                assert not engine.shutdown_requested.is_set(), line
                assert actor.connected, line
                assert actor.data["role"] == role, line
                checked += 1
    assert engine.world.entity_count == entities_before
    assert await world.accounts() == accounts_before
    assert victim.sent == []
    assert admin.sent == []
    assert checked >= len(table) * len(ARGUMENTS)


async def test_prefixes_of_privileged_commands_do_not_reach_them(world: World) -> None:
    """A player typing the start of an @-command (which prefix matching would
    complete for an admin) gets no privileged command either."""
    engine = world.engine
    actor = await world.player("Tester", Role.PLAYER)
    engine.world.take_changes()
    for cmd in privileged(world):
        for size in range(1, len(cmd.key)):
            prefix = cmd.key[:size]
            if engine.commands.get(prefix) is not None or prefix in ("@",):
                continue
            actor.sent.clear()
            world.watching = True
            try:
                await engine.sessions.session_line(actor, f"{prefix} Victim")
            finally:
                world.watching = False
            chosen = engine.commands.match(prefix, Role.PLAYER)
            assert all(c.permission <= Role.PLAYER for c in chosen), prefix
            assert not engine.shutdown_requested.is_set(), prefix
            assert not any(type(e).__name__ == "ShutdownRequestedEvent" for e in world.events)
            world.events.clear()


async def test_an_admin_is_not_refused(world: World) -> None:
    """The table above is meaningful: the same commands do run for an admin."""
    engine = world.engine
    admin = await world.player("Boss", Role.ADMIN)
    await engine.sessions.session_line(admin, "@who")
    assert "connection" in "\n".join(admin.sent)
    assert "permission" not in "\n".join(admin.sent)
