"""The contract between a transport (telnet, the web client's WebSocket) and the game.

The telnet layer knows protocols, not the game: it implements :class:`Session` for
each connection and hands every complete input line to a :class:`SessionHandler`
(one at a time per session, in order). The game side (login, commands) only ever
talks to sessions through this protocol, so the WebSocket transport
(``maid_engine.web``) or a test transport stands in without the game noticing.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable
from uuid import UUID


class ColorMode(enum.IntEnum):
    """How much colour a client can show, from what it told us (TTYPE/MTTS)."""

    NONE = 0
    ANSI16 = 1
    XTERM256 = 2
    TRUECOLOR = 3


@dataclass
class ClientCaps:
    """What the client told us about itself during negotiation."""

    width: int = 80
    height: int = 24
    color: ColorMode = ColorMode.NONE
    terminal: str = "unknown"
    client_name: str = ""
    client_version: str = ""
    utf8: bool = False
    gmcp: bool = False
    gmcp_supports: set[str] = field(default_factory=set)
    #: The client declared its modules (Core.Supports.Set/Add): only those are sent.
    gmcp_declared: bool = False
    mtts: int = 0


def gmcp_wanted(caps: ClientCaps, package: str) -> bool:
    """Whether the client asked for ``package``'s module.

    The IRE convention Mudlet follows: a client names modules in Core.Supports.Set
    (``"Char 1"``, ``"Room 1"``) and gets the messages of those modules and their
    sub-modules (``Char`` covers ``Char.Vitals`` and ``Char.Quests``; ``Room`` covers
    ``Room.Narration.Changes``). ``Core.*`` always goes; a client that never declared
    its modules gets everything (simple clients and scripts never send the list).
    """
    if not caps.gmcp_declared or package.lower().startswith("core."):
        return True
    parts = package.split(".")
    supported = {m.lower() for m in caps.gmcp_supports}
    return any(".".join(parts[:i]).lower() in supported for i in range(1, len(parts)))


@runtime_checkable
class Session(Protocol):
    """One connected client, as the game sees it."""

    id: str
    peer_host: str
    caps: ClientCaps
    #: Set by the login layer once the client has authenticated.
    account_id: str | None
    #: The character this session is puppeting, if any.
    character_id: UUID | None
    #: Free slot for the game side (login state machine, pager, ...).
    data: dict[str, Any]

    def send(self, text: str) -> None:
        """Queue game text (colour markup allowed) for the client.

        The transport renders markup for the client's colour mode, wraps to its
        width, normalises newlines and makes sure nothing in ``text`` can emit raw
        control sequences or protocol bytes.
        """

    def prompt(self, text: str) -> None:
        """Send a prompt (no trailing newline) followed by EOR or GA."""

    def send_gmcp(self, package: str, data: Any) -> None:
        """Send a GMCP message if the client negotiated GMCP; otherwise a no-op."""

    def set_echo(self, echo: bool) -> None:
        """Turn local echo of what the user types on or off (off for passwords)."""

    def close(self, message: str | None = None) -> None:
        """Send ``message`` (if any), flush, and disconnect."""

    @property
    def connected(self) -> bool: ...


class SessionHandler(Protocol):
    """What the transport calls. Implemented by the game's session manager."""

    async def session_opened(self, session: Session) -> None:
        """A client connected and negotiation settled: greet it."""

    async def session_line(self, session: Session, line: str) -> None:
        """One complete line of input (already decoded and stripped of control chars)."""

    async def session_closed(self, session: Session) -> None:
        """The client went away (or was closed). Called exactly once."""

    async def session_gmcp(self, session: Session, package: str, data: Any) -> None:
        """A GMCP message other than Core.Hello / Core.Supports.* arrived."""

    def session_resized(self, session: Session) -> None:
        """The client's window size changed (NAWS)."""

    def session_idle_output(self, session: Session) -> None:
        """Text reached the client while none of its input was being handled (someone
        else's words, a fight's round, a notice of the transport) and no prompt
        followed it: the game may send its prompt again."""

    def mssp_status(self) -> Mapping[str, str | list[str]]:
        """Current MSSP variables of the game (NAME, PLAYERS, UPTIME, counts...)."""
