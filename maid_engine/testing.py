"""Helpers for tests of MAID and of content packs.

``FakeSession`` records what the game sends; ``cmd()`` runs one command line as a
character and returns what it printed, so a command test is one line::

    out = await cmd(engine, hero, "look")
"""

from __future__ import annotations

import itertools
from typing import Any
from uuid import UUID

from maid_engine.commands import CommandContext, Role, run_line
from maid_engine.commands.command import CommandHost
from maid_engine.ports import SessionsPort
from maid_engine.sessions import ClientCaps

_ids = itertools.count(1)


class FakeSession:
    """An in-memory Session: collects output instead of sending it."""

    def __init__(self, role: Role = Role.PLAYER, width: int = 80) -> None:
        self.id = f"fake-{next(_ids)}"
        self.peer_host = "127.0.0.1"
        # A client that takes GMCP: the fake records every package sent to it.
        self.caps = ClientCaps(width=width, gmcp=True)
        self.account_id: str | None = None
        self.character_id: UUID | None = None
        self.data: dict[str, Any] = {"role": role}
        self.sent: list[str] = []
        self.prompts: list[str] = []
        self.gmcp: list[tuple[str, Any]] = []
        self.echo = True
        self._connected = True
        self.close_message: str | None = None

    def send(self, text: str) -> None:
        self.sent.append(text)

    def prompt(self, text: str) -> None:
        self.prompts.append(text)

    def send_gmcp(self, package: str, data: Any) -> None:
        self.gmcp.append((package, data))

    def set_echo(self, echo: bool) -> None:
        self.echo = echo

    def close(self, message: str | None = None) -> None:
        self.close_message = message
        self._connected = False

    @property
    def connected(self) -> bool:
        return self._connected

    def text(self) -> str:
        return "\n".join(self.sent)

    def take(self) -> str:
        out = "\n".join(self.sent)
        self.sent.clear()
        return out


def session_for(engine: SessionsPort, actor: UUID, role: Role = Role.PLAYER) -> FakeSession:
    """The FakeSession puppeting ``actor``, attached on first use."""
    existing = engine.sessions.session_for(actor)
    if isinstance(existing, FakeSession):
        return existing
    session = FakeSession(role=role)
    engine.sessions.attach(session, actor)
    return session


async def cmd(engine: CommandHost, actor: UUID | None, line: str, role: Role = Role.PLAYER) -> str:
    """Run ``line`` as ``actor`` and return everything it sent to that actor."""
    if actor is None:
        ctx = CommandContext(engine=engine, session=None, actor=None, role=role)
        async with engine.world_lock:
            await run_line(engine, ctx, line)
        return "\n".join(ctx.output)
    session = session_for(engine, actor, role)
    session.data["role"] = role
    before = len(session.sent)
    ctx = CommandContext(engine=engine, session=session, actor=actor, role=role)
    async with engine.world_lock:
        await run_line(engine, ctx, line)
    return "\n".join(session.sent[before:])
