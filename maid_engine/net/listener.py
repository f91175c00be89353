"""What every door into the game keeps, whatever its transport.

The telnet server (plain and TLS) and the web server differ in how bytes arrive;
what sessions and connections ask of them does not: the handler, the limits and the
clock, the connection gate they share, and their registry of sessions. A
:class:`Listener` holds that once; each server subclasses it for its transport.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from maid_engine.net.gate import ConnectionGate
from maid_engine.net.limits import MSG_SERVER_FULL, ByteBudget, NetLimits
from maid_engine.net.links import ConnectionEvents
from maid_engine.net.session import TelnetSession
from maid_engine.sessions import SessionHandler

__all__ = ["Listener"]


class Listener:
    """The handler, limits, gate and sessions of one listening server."""

    def __init__(
        self,
        handler: SessionHandler,
        host: str,
        port: int,
        limits: NetLimits = NetLimits(),  # noqa: B008 - frozen dataclass, safe to share
        clock: Callable[[], float] = time.monotonic,
        on_limit: Callable[[str], None] | None = None,
        gate: ConnectionGate | None = None,
    ) -> None:
        self.handler = handler
        self.limits = limits
        self.clock = clock
        #: Connection counts and input budgets, shared with other listeners given it.
        self.gate = gate if gate is not None else ConnectionGate(limits, clock, on_limit)
        #: Refusals by kind (the gate's: shared by every listener with the same gate).
        self.counters = self.gate.counters
        #: Bytes received from every connection of this listener.
        self.input_bytes = 0
        self._host = host
        self._port = port
        self._sessions: dict[str, TelnetSession] = {}
        self._accepting = False

    @property
    def host(self) -> str:
        return self._host

    @property
    def port(self) -> int:
        return self._port

    @property
    def sessions(self) -> list[TelnetSession]:
        """Sessions the handler knows about (opened) that are still connected."""
        return [s for s in self._sessions.values() if s.opened and s.connected]

    @property
    def connection_count(self) -> int:
        return self.gate.connection_count

    @property
    def prelogin_count(self) -> int:
        """Connections accepted that have not logged in (yet)."""
        return self.gate.prelogin_count

    # -- what connections and sessions ask of the server ----------------------------------

    def _admit(self, host: str) -> str | None:
        """Count a new connection in, or return the message it is refused with."""
        if not self._accepting:
            return MSG_SERVER_FULL
        return self.gate.admit(host)

    def _release(self, host: str, *, prelogin: bool) -> None:
        self.gate.release(host, prelogin=prelogin)

    def _logged_in(self, host: str, logged_in: bool) -> None:
        """A connection of ``host`` logged in (or, ``False``, is back at the login)."""
        self.gate.logged_in(host, logged_in)

    def _budget(self, host: str) -> ByteBudget | None:
        """The input byte budget shared by every connection of ``host`` (None: no limit)."""
        return self.gate.budget(host)

    def _forget(self, session: ConnectionEvents) -> None:
        self._sessions.pop(session.id, None)
        # Cut the connection's link to a finished session: a connection can outlive it
        # (asyncio holds a protocol until the socket is gone), its game data need not.
        session._detach()

    def _limit_hit(self, kind: str) -> None:
        self.gate.limit_hit(kind)
