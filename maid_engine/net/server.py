"""The listening telnet server: connection limits, session registry, start and stop."""

from __future__ import annotations

import asyncio
import logging
import re
import ssl
import time
from collections.abc import Callable
from typing import Any

from maid_engine.net.gate import ConnectionGate
from maid_engine.net.limits import NetLimits
from maid_engine.net.links import Connection
from maid_engine.net.listener import Listener
from maid_engine.net.pacing import Flushable, OutputPacer
from maid_engine.net.protocol import MaidTelnetProtocol
from maid_engine.net.session import TelnetSession
from maid_engine.sessions import SessionHandler

log = logging.getLogger("maid.net")

_MSSP_JUNK = re.compile(r"[\x00-\x1f\x7f-\x9f\xff]")


def _mssp_value(value: Any) -> str:
    # MSSP_VAR (1) / MSSP_VAL (2) bytes inside a value would corrupt the whole table.
    return _MSSP_JUNK.sub("", str(value))


class TelnetServer(Listener):
    """Accepts telnet connections and hands each one to ``handler`` as a Session.

    ``on_limit(kind)`` is called whenever a limit refuses something; the same counts are
    kept in :attr:`counters`. Kinds: ``line_too_long``, ``rate_limited``, ``inbox_full``,
    ``gmcp_rate_limited``, ``idle_timeout``, ``output_overflow``, ``per_ip``,
    ``max_connections``, ``prelogin_per_ip``, ``login_busy``, ``login_timeout``,
    ``input_flood``, ``flood_wait``, ``subnegotiation_too_long``.

    A connection counts as *logging in* from its acceptance until its session's
    ``account_id`` is set (and again if it is cleared): those are the connections the
    per-address and total pre-login caps and the login deadline apply to.
    """

    def __init__(
        self,
        handler: SessionHandler,
        host: str = "127.0.0.1",
        port: int = 4000,
        limits: NetLimits = NetLimits(),  # noqa: B008 - frozen dataclass, safe to share
        clock: Callable[[], float] = time.monotonic,
        on_limit: Callable[[str], None] | None = None,
        tls_port: int | None = None,
        tls_context: ssl.SSLContext | None = None,
        gate: ConnectionGate | None = None,
    ) -> None:
        if (tls_port is None) != (tls_context is None):
            raise ValueError("a TLS listener needs both tls_port and tls_context")
        super().__init__(handler, host, port, limits, clock, on_limit, gate)
        self._tls_port = tls_port
        self._tls_context = tls_context
        self._listeners: list[asyncio.Server] = []
        #: Writes the connections with queued output, a batch per loop turn.
        self.output = OutputPacer()

    # -- public ---------------------------------------------------------------------------

    @property
    def tls_port(self) -> int:
        """The TLS listener's port; 0 when there is none."""
        return (self._tls_port or 0) if self._tls_context is not None else 0

    async def start(self) -> None:
        if self._listeners:
            raise RuntimeError("TelnetServer already started")
        server = self

        class _BoundProtocol(MaidTelnetProtocol):
            maid_server = server

        limits = self.limits

        def protocol() -> MaidTelnetProtocol:
            return _BoundProtocol(
                shell=None,
                encoding="utf8",
                encoding_errors="replace",
                # We encode and decode ourselves; this only stops telnetlib3 from holding
                # the session back until BINARY is agreed in both directions.
                force_binary=True,
                connect_maxwait=limits.negotiation_timeout,
                # Accept DO COMPRESS2 (the protocol offers it and runs the stream
                # itself); telnetlib3's own MCCP2/MCCP3 code stays off.
                compression=None,
                timeout=0,  # idle handling is ours (it counts typed input, not chatter)
            )

        # Our own asyncio listeners rather than telnetlib3.create_server: it cannot bound
        # the TLS handshake (asyncio's default waits a minute per silent connection,
        # before any of our limits see it), and its Server keeps protocols we never use.
        loop = asyncio.get_running_loop()
        try:
            plain = await loop.create_server(protocol, self._host, self._port)
            self._listeners.append(plain)
            self._host, self._port = _address(plain)
            if self._tls_context is not None:
                secure = await loop.create_server(
                    protocol,
                    self._host,
                    self._tls_port,
                    ssl=self._tls_context,
                    ssl_handshake_timeout=limits.tls_handshake_timeout,
                )
                self._listeners.append(secure)
                self._tls_port = _address(secure)[1]
        except BaseException:
            for listener in self._listeners:
                listener.close()
            self._listeners.clear()
            raise
        self._accepting = True
        log.info("telnet listening on %s:%d", self._host, self._port)
        if self._tls_context is not None:
            log.info("telnet+tls listening on %s:%d", self._host, self.tls_port)

    async def stop(self, message: str | None = None) -> None:
        """Tell every session ``message``, close them all and stop listening.

        Commands already running get ``limits.stop_timeout`` seconds to finish; every
        opened session sees ``session_closed`` before this returns.
        """
        if not self._listeners:
            return
        self._accepting = False
        listeners, self._listeners = self._listeners, []
        live = list(self._sessions.values())
        workers = [s.worker for s in live if s.worker is not None]
        for session in live:
            session.close(message)
        for listener in listeners:
            listener.close()
        for listener in listeners:
            try:
                await listener.wait_closed()
            except Exception:
                log.debug("wait_closed failed", exc_info=True)
        workers = [w for w in workers if not w.done()]
        if workers:
            _, pending = await asyncio.wait(workers, timeout=self.limits.stop_timeout)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
        log.info("telnet server stopped")

    def mssp_variables(self, *, tls: bool = False) -> dict[str, str | list[str]]:
        """MSSP table: what the transport knows, overridden by the game's own values.

        ``tls``: the table for a connection on the TLS listener, where MCCP is not
        offered."""
        table: dict[str, str | list[str]] = {
            "PORT": str(self._port),
            "CODEBASE": "MAID",
            "ANSI": "1",
            "UTF-8": "1",
            "VT100": "0",
            "XTERM 256 COLORS": "1",
            "XTERM TRUE COLORS": "1",
            "GMCP": "1",
            "MSSP": "1",
            "MCCP": "0" if tls else "1",
            "MCP": "0",
            "MSDP": "0",
            "MSP": "0",
            "MXP": "0",
            "PUEBLO": "0",
            # The TLS port, or 0: MSSP's way of saying whether there is one.
            "SSL": str(self.tls_port),
        }
        try:
            game = self.handler.mssp_status()
        except Exception:
            log.exception("mssp_status failed")
            game = {}
        for key, value in game.items():
            clean_key = _mssp_value(key)
            if not clean_key:
                continue
            if isinstance(value, list | tuple):
                table[clean_key] = [_mssp_value(v) for v in value]
            else:
                table[clean_key] = _mssp_value(value)
        return table

    # -- called by the protocol / sessions ------------------------------------------------

    def _flush_later(self, connection: Flushable) -> None:
        self.output.add(connection)

    def _new_session(self, protocol: Connection) -> TelnetSession:
        session = TelnetSession(protocol, self)
        self._sessions[session.id] = session
        return session


def _address(listener: asyncio.Server) -> tuple[str, int]:
    """Where a listener is bound (the real port when 0 was asked for)."""
    name = listener.sockets[0].getsockname()
    return str(name[0]), int(name[1])
