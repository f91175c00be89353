"""How the three parts of a telnet connection see each other.

The server builds a protocol per TCP connection and a session per protocol; the
protocol reports negotiation and input to its session and asks the server to admit
it; the session writes through its protocol and reports limits and its end to the
server. Each side is typed against the Protocol here, not the other module, so
``server`` imports ``protocol`` and ``session`` and neither of those imports back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from maid_engine.net.limits import ByteBudget, NetLimits
from maid_engine.net.mtts import Detected
from maid_engine.net.pacing import Flushable
from maid_engine.sessions import ClientCaps, SessionHandler

__all__ = ["Admission", "Connection", "ConnectionEvents", "SessionOwner"]


class ConnectionEvents(Protocol):
    """What the telnet protocol tells its session (``TelnetSession``)."""

    id: str
    caps: ClientCaps

    @property
    def connected(self) -> bool: ...

    def close(self, message: str | None = None) -> None: ...

    def _on_input(self, data: bytes) -> None: ...

    def _on_gmcp(self, package: str, data: Any) -> None: ...

    def _refresh_caps(self) -> None: ...

    def _on_resize(self, cols: int, rows: int) -> None: ...

    def _start(self) -> None: ...

    def _on_disconnect(self) -> None: ...

    def _detach(self) -> None: ...


class Connection(Protocol):
    """What a session uses of its telnet protocol (``MaidTelnetProtocol``)."""

    peer_host: str
    #: Counted among the server's connections that have not logged in.
    prelogin: bool

    @property
    def alive(self) -> bool: ...

    @property
    def gmcp_enabled(self) -> bool: ...

    def detected(self) -> Detected: ...

    def server_echoes(self) -> bool: ...

    def write_bytes(self, data: bytes) -> None: ...

    def will_echo(self) -> bool: ...

    def wont_echo(self) -> None: ...

    def end_of_prompt(self) -> None: ...

    def send_gmcp(self, package: str, data: Any) -> None: ...

    def close_connection(self) -> None: ...

    def detach(self, session: ConnectionEvents) -> None: ...


class Admission(Protocol):
    """What a telnet protocol asks of the server (``TelnetServer``)."""

    #: In-band bytes received from every connection (the protocol adds to it).
    input_bytes: int

    @property
    def limits(self) -> NetLimits: ...

    def _admit(self, host: str) -> str | None: ...

    def _budget(self, host: str) -> ByteBudget | None: ...

    def _release(self, host: str, *, prelogin: bool) -> None: ...

    def _new_session(self, protocol: Connection) -> ConnectionEvents: ...

    def _limit_hit(self, kind: str) -> None: ...

    def _flush_later(self, connection: Flushable) -> None: ...

    def mssp_variables(self, *, tls: bool = False) -> dict[str, str | list[str]]: ...


class SessionOwner(Protocol):
    """What a session asks of the server (``TelnetServer``)."""

    @property
    def limits(self) -> NetLimits: ...

    @property
    def clock(self) -> Callable[[], float]: ...

    @property
    def handler(self) -> SessionHandler: ...

    def _limit_hit(self, kind: str) -> None: ...

    def _logged_in(self, host: str, logged_in: bool) -> None: ...

    def _forget(self, session: ConnectionEvents) -> None: ...
