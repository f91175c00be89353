"""The game side of sessions: who is connected, as whom, and routing their input.

:class:`SessionManager` implements :class:`maid_engine.sessions.SessionHandler`.
A session is in one of two states: at the login screen (its lines go to the
``LoginFlow`` service) or puppeting a character (its lines go to the command
registry, through the ``run_line`` callable the engine gives it). Messaging
helpers (``send_to``) let systems reach characters without knowing anything about
transports. Others see it through :class:`maid_engine.ports.Sessions`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from uuid import UUID

from maid_engine.commands import Role
from maid_engine.ports import LineRunner, LoginFlow
from maid_engine.sessions import Session

log = logging.getLogger("maid.sessions")


class SessionManager:
    """``run_line`` runs a command line for a puppeting session (the engine builds
    the command context and holds the world lock); ``started_at`` gives the server's
    start time for MSSP's UPTIME."""

    def __init__(self, run_line: LineRunner, started_at: Callable[[], float]) -> None:
        self._run_line = run_line
        self._started_at = started_at
        self._sessions: dict[str, Session] = {}
        self._by_character: dict[UUID, Session] = {}
        self.login: LoginFlow | None = None
        #: Extra MSSP variables packs contribute (AREAS, ROOMS, ...): name -> callable.
        self.mssp_providers: dict[str, Callable[[], str | list[str]]] = {}
        self.prompt_provider: Callable[[Session], str] | None = None
        self.commands_total = 0
        #: Bumped whenever a character comes online or goes offline, or a session
        #: changes character (attach/detach): the ``who`` listing keys on it.
        self.presence_version = 0
        self._presence_hooks: list[Callable[[UUID], None]] = []

    # -- registry -------------------------------------------------------------------
    def all(self) -> list[Session]:
        return list(self._sessions.values())

    def playing(self) -> list[Session]:
        return [s for s in self._sessions.values() if s.character_id is not None]

    def session_for(self, character_id: UUID) -> Session | None:
        return self._by_character.get(character_id)

    def is_online(self, character_id: UUID) -> bool:
        return character_id in self._by_character

    def characters_online(self) -> list[UUID]:
        return list(self._by_character)

    @property
    def connected_count(self) -> int:
        """Sessions that came through a server (at the login screen or playing):
        those that can send a command line at any moment."""
        return len(self._sessions)

    @property
    def online_count(self) -> int:
        """Characters online (a cheap test before looking for them anywhere)."""
        return len(self._by_character)

    def watch_presence(self, hook: Callable[[UUID], None]) -> None:
        """Run ``hook(character)`` right after a character comes online or goes
        offline (before anyone is told): for caches of what the players in a place
        see, which a login elsewhere must not empty."""
        if hook not in self._presence_hooks:
            self._presence_hooks.append(hook)

    def _presence_changed(self, character_id: UUID) -> None:
        self.presence_version += 1
        for hook in self._presence_hooks:
            hook(character_id)

    def attach(self, session: Session, character_id: UUID) -> Session | None:
        """Bind ``session`` to a character. Returns the session it took over, if any."""
        old = self._by_character.get(character_id)
        if old is session:
            return None
        previous = session.character_id
        if previous is not None and self._by_character.pop(previous, None) is not None:
            self._presence_changed(previous)
        session.character_id = character_id
        self._by_character[character_id] = session
        if old is not None:
            old.character_id = None  # a takeover: the character stays online
            self.presence_version += 1
        else:
            self._presence_changed(character_id)
        return old

    def detach(self, session: Session) -> UUID | None:
        char = session.character_id
        session.character_id = None
        if char is not None and self._by_character.get(char) is session:
            del self._by_character[char]
            self._presence_changed(char)
        else:
            self.presence_version += 1  # who is playing changed all the same
        return char

    # -- messaging ------------------------------------------------------------------
    def send_to(self, character_id: UUID, text: str) -> bool:
        session = self._by_character.get(character_id)
        if session is None:
            return False
        session.send(text)
        return True

    def send_many(
        self, character_ids: Iterable[UUID], text: str, exclude: Iterable[UUID] = ()
    ) -> None:
        skip = set(exclude)
        for cid in character_ids:
            if cid not in skip:
                self.send_to(cid, text)

    def gmcp_to(self, character_id: UUID, package: str, data: Any) -> None:
        session = self._by_character.get(character_id)
        if session is not None:
            session.send_gmcp(package, data)

    def broadcast(self, text: str) -> None:
        for session in self._sessions.values():
            session.send(text)

    def role_of(self, session: Session) -> Role:
        role = session.data.get("role", Role.PLAYER)
        # Asked for every command: a Role as stored needs no parsing.
        return role if type(role) is Role else Role.parse(role)

    def prompt(self, session: Session) -> None:
        if self.prompt_provider is not None and session.character_id is not None:
            session.prompt(self.prompt_provider(session))
        else:
            session.prompt("> ")

    # -- SessionHandler ----------------------------------------------------------------
    async def session_opened(self, session: Session) -> None:
        self._sessions[session.id] = session
        session.data.setdefault("connected_at", time.time())
        if self.login is not None:
            await self.login.greet(session)
        else:
            session.send("Welcome to MAID. (No login flow is installed.)")

    async def session_line(self, session: Session, line: str) -> None:
        session.data["last_input"] = time.time()
        if session.character_id is None:
            if self.login is not None:
                await self.login.handle_line(session, line)
            return
        await self.execute(session, line)
        if session.connected:
            self.prompt(session)

    async def execute(self, session: Session, line: str) -> None:
        """Run a command line for a puppeting session."""
        self.commands_total += 1
        await self._run_line(session, line)

    async def session_closed(self, session: Session) -> None:
        self._sessions.pop(session.id, None)
        if self.login is not None:
            try:
                await self.login.closed(session)
            except Exception:
                log.exception("login flow failed to close session %s", session.id)
        self.detach(session)

    async def session_gmcp(self, session: Session, package: str, data: Any) -> None:
        log.debug("unhandled GMCP %s from %s", package, session.id)

    def session_resized(self, session: Session) -> None:
        pass

    def session_idle_output(self, session: Session) -> None:
        # Like Aardwolf: whatever arrives on its own is followed by the prompt, so the
        # player sees their state and where to type. The login screen prompts itself.
        if session.character_id is not None and session.connected:
            self.prompt(session)

    def mssp_status(self) -> Mapping[str, str | list[str]]:
        status: dict[str, str | list[str]] = {
            "NAME": "MAID",
            "PLAYERS": str(len(self._by_character)),
            "UPTIME": str(int(self._started_at())),
            "CODEBASE": "MAID 0.1",
        }
        for key, provider in self.mssp_providers.items():
            try:
                status[key] = provider()
            except Exception:
                log.exception("MSSP provider %s failed", key)
        return status
