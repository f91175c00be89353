"""The telnetlib3 protocol subclass: option negotiation and raw bytes, nothing about the game.

telnetlib3 interprets IAC commands and negotiates NAWS, TTYPE, CHARSET, SGA, BINARY and
(for non-MUD clients) ECHO. This subclass adds what a MUD server offers (EOR, GMCP, MSSP),
diverts in-band bytes to our own bounded line assembler instead of telnetlib3's reader
buffer, and forwards every capability change to the session (a
:class:`~maid_engine.net.links.ConnectionEvents`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from contextlib import suppress
from typing import TYPE_CHECKING, Any, ClassVar, cast

import telnetlib3
from telnetlib3 import slc
from telnetlib3.stream_reader import TelnetReaderUnicode
from telnetlib3.stream_writer import TelnetWriterUnicode
from telnetlib3.telopt import (
    CHARSET,
    CMD_EOR,
    ECHO,
    EOR,
    GA,
    GMCP,
    IAC,
    MCCP3_COMPRESS,
    MSSP,
    SGA,
    WILL,
    WONT,
)

from maid_engine.net.limits import MSG_FLOOD, MSG_SUBNEGOTIATION
from maid_engine.net.links import Admission, ConnectionEvents
from maid_engine.net.mccp import COMPRESS2, WireTransport
from maid_engine.net.mtts import MAX_TTYPE_LENGTH, MAX_TTYPES, Detected, TerminalDetector
from maid_engine.net.subneg import SubnegotiationGuard

if TYPE_CHECKING:
    from collections.abc import Callable

    from maid_engine.net.limits import ByteBudget

log = logging.getLogger("maid.net")

# NEW-ENVIRON values we read: terminal hints, plus MNES (CLIENT_NAME, MTTS, ...) which
# MUD clients such as TinTin++ volunteer.
_ENVIRON_KEYS = (
    "COLORTERM", "LANG", "LC_ALL", "CHARSET", "CLIENT_NAME", "CLIENT_VERSION", "MTTS",
    "TERMINAL_TYPE",
)  # fmt: skip


# Input is interpreted at most this many bytes per event-loop turn: telnetlib3 parses
# option data byte by byte in Python, so one client flooding us with a large read
# would otherwise hold the loop (and every other player's command) for a long time.
_INPUT_SLICE = 512

# Output is queued and written once per event-loop turn (or at once at the end of a
# prompt), as MUD servers flush a descriptor's output queue once per pass: a command's
# text, its prompt and the GA go out in one write instead of three. The server's
# OutputPacer writes the connections that have output a batch per turn. Past this many
# queued bytes it is written at once.
_OUTPUT_FLUSH_AT = 65536


class _InputSink(TelnetReaderUnicode):
    """Stands in for telnetlib3's reader: in-band bytes go straight to a callback.

    telnetlib3's reader buffers everything until someone reads it; we want the bytes at
    once, in our own bounded structures, so nothing can pile up here.
    """

    sink: Callable[[bytes], None] | None = None

    def feed_data(self, data: bytes) -> None:
        if data and self.sink is not None:
            try:
                self.sink(data)
            except Exception:
                # An exception here would escape data_received and kill the connection
                # with a fatal-error log; one bad line must not do that.
                log.exception("input handling failed")


class _Writer(TelnetWriterUnicode):
    """telnetlib3's writer, deaf to compression markers a client sends.

    ``IAC SB COMPRESS3 IAC SE`` would make telnetlib3 inflate all further input, asked
    for or not: a zlib bomb past every input limit (they count bytes before inflating).
    ``IAC SB COMPRESS2 IAC SE`` is what a server sends; from a client it would make
    telnetlib3 set the rest of that read aside unread. Both are ignored: we refuse
    MCCP3, and MCCP2 only ever compresses what we send.
    """

    # The SLC table and buffer serve LINEMODE, which we never ask for, and input
    # editing, which our LineAssembler does: telnetlib3 builds both for every
    # connection (about 2.9 KiB a player: thirty SLC entries and a deque). They are
    # built on first use instead; telnetlib3's own assignments in its __init__ are
    # the defaults, dropped here and made again if a client ever needs them.
    _slc_ready = False
    _lazy_slctab: dict[bytes, slc.SLC] | None = None
    _lazy_slc_buffer: deque[bytes] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slc_ready = True

    @property
    def slctab(self) -> dict[bytes, slc.SLC]:
        if self._lazy_slctab is None:
            self._lazy_slctab = slc.generate_slctab(self.default_slc_tab)
        return self._lazy_slctab

    @slctab.setter
    def slctab(self, value: dict[bytes, slc.SLC]) -> None:
        self._lazy_slctab = value if self._slc_ready else None

    @property
    def _slc_buffer(self) -> deque[bytes]:
        if self._lazy_slc_buffer is None:
            self._lazy_slc_buffer = deque()
        return self._lazy_slc_buffer

    @_slc_buffer.setter
    def _slc_buffer(self, value: deque[bytes]) -> None:
        self._lazy_slc_buffer = value if self._slc_ready else None

    def _handle_sb_mccp3(self, buf: Any) -> None:
        log.info("ignoring an MCCP3 start marker that was never negotiated")

    def _handle_sb_mccp2(self, buf: Any) -> None:
        log.info("ignoring an MCCP2 start marker sent by a client")


class MaidTelnetProtocol(telnetlib3.TelnetServer):
    """One TCP connection. ``maid_server`` is bound by :meth:`TelnetServer.start`."""

    maid_server: ClassVar[Admission]

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("reader_factory_encoding", _InputSink)
        kwargs.setdefault("writer_factory_encoding", _Writer)
        super().__init__(**kwargs)
        self.session: ConnectionEvents | None = None
        self.peer_host = "unknown"
        self.charset_agreed: str | None = None
        self._rejected = False
        self._torn_down = False
        self._mssp_sent = False
        #: Counted among the connections that have not logged in (see TelnetServer).
        self.prelogin = False
        self.detector = TerminalDetector()
        self._ttype_replies = 0
        self.wire: WireTransport | None = None
        self._raw: asyncio.BaseTransport | None = None  # the socket's, under the wire
        self._sb_guard = SubnegotiationGuard()
        self._budget: ByteBudget | None = None
        # Received bytes not interpreted yet (see data_received) and where they resume.
        self._pending = b""
        self._pending_at = 0
        self._slice_handle: asyncio.Handle | None = None
        self._settled = False  # negotiation is over and the session started
        # In-band output not written yet (see write_bytes) and its flush callback.
        self._out: list[bytes] = []
        self._out_size = 0
        self._flush_asked = False  # the server's pacer will write this connection

    # -- connection lifecycle -------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.peer_host = str(peer[0]) if peer else "unknown"
        refusal = self.maid_server._admit(self.peer_host)
        if refusal is not None:
            # Refused before telnetlib3 sets anything up: no negotiation, no session.
            self._rejected = True
            self._closing = True
            with suppress(Exception):
                transport.write(refusal.encode("utf-8") + b"\r\n")  # type: ignore[attr-defined]
            transport.close()
            return
        self.prelogin = True
        self._budget = self.maid_server._budget(self.peer_host)
        # Everything this connection writes, telnetlib3's negotiation included, passes
        # the one place where MCCP2 compresses it.
        self.wire = WireTransport(cast(asyncio.Transport, transport))
        super().connection_made(self.wire)
        self._raw = transport
        assert isinstance(self.reader, _InputSink)
        assert self.writer is not None
        # MCCP3 (the client compressing its input) is refused: input is small, and a
        # client-controlled zlib stream is one more thing to bound.
        self.writer.always_dont.add(MCCP3_COMPRESS)
        # Our LineAssembler does the line editing; telnetlib3's simulated SLC would
        # otherwise inspect every input byte in Python (slow for floods, see _INPUT_SLICE).
        self.writer.slc_simulated = False
        self.writer.set_ext_callback(GMCP, self._on_gmcp)
        self.writer.set_ext_send_callback(CHARSET, self._choose_charset)
        self.session = self.maid_server._new_session(self)
        self.reader.sink = self.session._on_input

    def data_received(self, data: bytes) -> None:
        if self._rejected or self._torn_down:
            return
        limits = self.maid_server.limits
        # Both checks look at the whole read before any of it is interpreted, so neither
        # an endless subnegotiation nor a flood is ever buffered by telnetlib3.
        if limits.max_subnegotiation and self._sb_guard.feed(data) > limits.max_subnegotiation:
            self._drop("subnegotiation_too_long", MSG_SUBNEGOTIATION)
            return
        wait = 0.0
        if self._budget is not None:
            charged = self._budget.charge(len(data))
            if charged is None:
                self._drop("input_flood", MSG_FLOOD)
                return
            wait = charged
        if self._pending:
            # Reading is paused while a backlog is worked off; keep the order.
            self._pending = self._pending[self._pending_at :] + data
            self._pending_at = 0
            return
        if wait <= 0 and len(data) <= _INPUT_SLICE:
            self._interpret(data)
            return
        # Work the read off a slice per event-loop turn, after the address's budget has
        # paid for it; no more is read from this connection meanwhile.
        self._pending, self._pending_at = data, 0
        with suppress(Exception):
            self._transport.pause_reading()
        loop = asyncio.get_running_loop()
        if wait > 0:
            self._slice_handle = loop.call_later(wait, self._next_slice)
        else:
            self._next_slice()

    def _next_slice(self) -> None:
        """Interpret the next slice of a large read, one slice per event-loop turn."""
        self._slice_handle = None
        if self._torn_down or not self._pending:
            self._pending, self._pending_at = b"", 0
            return
        data, start = self._pending, self._pending_at
        end = start + _INPUT_SLICE
        if end < len(data):
            self._pending_at = end
            self._slice_handle = asyncio.get_running_loop().call_soon(self._next_slice)
        else:
            self._pending, self._pending_at = b"", 0
            with suppress(Exception):
                self._transport.resume_reading()
        self._interpret(data[start:end])

    def _interpret(self, data: bytes) -> None:
        self.maid_server.input_bytes += len(data)
        writer = self.writer
        if (
            self._settled
            and self._tls_checked
            and IAC[0] not in data
            and writer is not None
            and not writer.is_oob
            and getattr(self, "_mccp3_decompressor", None) is None
        ):
            # Plain text outside any telnet command (a typed line, the usual read):
            # all telnetlib3 would do is scan it for IAC and hand it to the reader,
            # after timestamping it and re-arming a timeout we do not use; and no
            # option can have changed. Straight to the session.
            self._rx_bytes += len(data)
            assert isinstance(self.reader, _InputSink)
            self.reader.feed_data(data)
            return
        try:
            super().data_received(data)
        except Exception:
            log.exception("telnet data handling failed for %s", self.peer_host)
        limit = self.maid_server.limits.max_subnegotiation
        writer = self.writer
        if limit and writer is not None and len(getattr(writer, "_sb_buffer", ())) > limit:
            # Our guard and telnetlib3 disagree about where a subnegotiation is (only a
            # failing telnetlib3 callback could cause that): trust what it buffered.
            self._drop("subnegotiation_too_long", MSG_SUBNEGOTIATION)
            return
        if self._waiter_connected.done() and not self._advanced:
            self._advance_late()
        self._sync_options()

    def _advance_late(self) -> None:
        # telnetlib3 looks for the client's first agreement only while negotiating. One
        # that arrives after the timeout (a slow link, a loop that stalled) would leave
        # the connection without EOR, GMCP, MSSP, NAWS or compression for good.
        if self.writer is not None and self.negotiation_should_advance():
            self._advanced = True
            self.begin_advanced_negotiation()

    def _drop(self, kind: str, message: str) -> None:
        """Refuse this connection's input for good: tell the client why and close."""
        self.maid_server._limit_hit(kind)
        log.info("dropping %s: %s", self.peer_host, kind.replace("_", " "))
        self._pending, self._pending_at = b"", 0
        if self._slice_handle is not None:
            self._slice_handle.cancel()
            self._slice_handle = None
        if self.session is not None and self.session.connected:
            self.session.close(message)
            return
        if self._transport is not None:
            with suppress(Exception):
                self.flush_output()
                self._transport.write(message.encode("utf-8") + b"\r\n")
        self.close_connection()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._rejected:
            return
        first = not self._torn_down
        self._torn_down = True
        self._drop_output()
        try:
            super().connection_lost(exc)
        except Exception:
            log.debug("telnetlib3 connection_lost failed", exc_info=True)
        if self._slice_handle is not None:
            self._slice_handle.cancel()
            self._slice_handle = None
        self._pending, self._pending_at = b"", 0
        if first:
            self.maid_server._release(self.peer_host, prelogin=self.prelogin)
            self.prelogin = False
            if self.session is not None:
                self.session._on_disconnect()

    def begin_shell(self, future: asyncio.Future[None]) -> None:
        # Negotiation is settled (or timed out): the session may now meet the game.
        if future.cancelled() or future.exception() is not None:
            return
        if self.session is not None and not self._torn_down:
            self._settled = True
            self.session._start()

    # -- negotiation hooks ----------------------------------------------------------------

    def begin_negotiation(self) -> None:
        # telnetlib3 schedules this from connection_made. asyncio's loop starts
        # reading a socket only after that, but uvloop reads it at once: a client
        # that connects and hangs up is lost before negotiation begins, and
        # negotiating then would settle the future connection_lost cancelled.
        if self._torn_down:
            return
        super().begin_negotiation()

    def _check_negotiation_timer(self) -> None:
        # uvloop can hand a client's first bytes over before begin_negotiation runs; if
        # they hold telnet commands, telnetlib3 checks (and may settle) the negotiation
        # then and arms its timer, and begin_negotiation schedules another check
        # without disarming that one. Whichever check comes after the settling would
        # settle it again (InvalidStateError): a settled negotiation needs no check.
        if self._waiter_connected.done():
            return
        super()._check_negotiation_timer()

    def begin_advanced_negotiation(self) -> None:
        if self._torn_down:
            return
        super().begin_advanced_negotiation()
        assert self.writer is not None
        # telnetlib3 agrees to these when asked but never offers them itself.
        self.writer.iac(WILL, EOR)
        self.writer.iac(WILL, GMCP)
        self.writer.iac(WILL, MSSP)
        if not self.secure:
            # Not inside TLS: compressing text others can make appear next to private
            # text would let a watcher of the encrypted lengths guess it (CRIME).
            # telnetlib3 refuses DO COMPRESS2 over TLS as well.
            self.writer.iac(WILL, COMPRESS2)

    def on_naws(self, rows: int, cols: int) -> None:
        super().on_naws(rows, cols)
        if self.session is not None:
            self.session._on_resize(cols, rows)

    def on_ttype(self, ttype: str) -> None:
        # A reply is cut to a terminal name's length before anything (telnetlib3
        # included) keeps it, and past MAX_TTYPES replies they are ignored altogether.
        if self._ttype_replies >= MAX_TTYPES:
            return
        self._ttype_replies += 1
        ttype = ttype[:MAX_TTYPE_LENGTH]
        super().on_ttype(ttype)
        if self.detector.add_ttype(ttype):
            self._refresh()

    def on_environ(self, mapping: dict[str, str]) -> None:
        super().on_environ(mapping)
        self._refresh()

    def on_charset(self, charset: str) -> None:
        super().on_charset(charset)
        self.charset_agreed = charset
        self._refresh()

    def on_request_charset(self) -> list[str]:
        # We only ever speak UTF-8; offering anything else would oblige us to encode it.
        return ["UTF-8"]

    def _choose_charset(self, offered: list[str]) -> str | None:
        """Answer a client-initiated CHARSET REQUEST: UTF-8 or nothing (REJECTED)."""
        for name in offered:
            if name.strip().lower().replace("-", "").replace("_", "") == "utf8":
                self.charset_agreed = name.strip()
                self._refresh()
                return name.strip()
        return None

    def _refresh(self) -> None:
        if self.session is not None:
            self.session._refresh_caps()

    def _on_gmcp(self, package: str, data: Any) -> None:
        if self.session is not None:
            self.session._on_gmcp(package, data)

    def _sync_options(self) -> None:
        """Mirror option state into the session once per received chunk."""
        writer = self.writer
        if writer is None or self.session is None or self._torn_down:
            return
        self.session.caps.gmcp = self.gmcp_enabled
        wire = self.wire
        if wire is not None and writer.local_option.enabled(COMPRESS2) != wire.compressing:
            # DO COMPRESS2 starts the stream, DONT ends it; what is queued goes first, so
            # the client reads it in the form it expects at that point.
            self.flush_output()
            if wire.compressing:
                wire.end_compression()
            else:
                wire.start_compression()
        if writer.local_option.enabled(MSSP) and not self._mssp_sent:
            self._mssp_sent = True
            try:
                self.flush_output()
                writer.send_mssp(self.maid_server.mssp_variables(tls=self.secure))
            except Exception:
                log.exception("MSSP status failed")

    # -- what the session uses ------------------------------------------------------------

    def detected(self) -> Detected:
        """What the client's TTYPE, NEW-ENVIRON and CHARSET replies say it can display."""
        return self.detector.result(self.environ(), self.charset_agreed)

    def environ(self) -> dict[str, str]:
        return {
            key: str(self.get_extra_info(key)) for key in _ENVIRON_KEYS if self.get_extra_info(key)
        }

    @property
    def secure(self) -> bool:
        """Whether this connection came in on the TLS listener."""
        return self.wire is not None and self.wire.get_extra_info("ssl_object") is not None

    @property
    def alive(self) -> bool:
        # Asked several times for every line written: the socket's own transport
        # rather than telnetlib3's writer and our wire, which ask it in turn. Closing
        # either of those closes it, and telnetlib3's close tears this down.
        raw = self._raw
        return raw is not None and not self._torn_down and not raw.is_closing()

    @property
    def gmcp_enabled(self) -> bool:
        w = self.writer
        return w is not None and (w.local_option.enabled(GMCP) or w.remote_option.enabled(GMCP))

    def server_echoes(self) -> bool:
        """True when the client agreed that we echo its input (it will not echo itself)."""
        # Asked for every line read: what Option.enabled answers, without its call.
        writer = self.writer
        return writer is not None and writer.local_option.get(ECHO) is True

    def write_bytes(self, data: bytes) -> None:
        """Queue in-band data (every IAC byte is doubled when it is written): written
        at the end of this event-loop turn, with the prompt's end, or before any
        command byte (negotiation, GMCP, closing), so the order on the wire is kept."""
        if not self.alive or not data:
            return
        self._out.append(data)
        self._out_size += len(data)
        if self._out_size >= _OUTPUT_FLUSH_AT:
            self.flush_output()
        elif not self._flush_asked:
            self._flush_asked = True
            self.maid_server._flush_later(self)

    def flush_queued(self) -> None:
        """The pacer's turn for this connection: write what is still queued."""
        if self._flush_asked:
            self.flush_output()

    def flush_output(self, marker: bytes = b"") -> None:
        """Write the queued data, then ``marker`` (IAC commands, not escaped), in one write."""
        self._flush_asked = False
        if not self._out and not marker:
            return
        data = b"".join(self._out).replace(IAC, IAC + IAC) + marker
        self._out.clear()
        self._out_size = 0
        transport = self._transport
        if not self.alive or transport is None:
            return
        transport.write(data)
        limit = self.maid_server.limits.max_output_buffer
        if limit and transport.get_write_buffer_size() > limit:
            # The client stopped reading; drop it rather than buffer without bound.
            self.maid_server._limit_hit("output_overflow")
            log.info("dropping %s: output buffer over %d bytes", self.peer_host, limit)
            transport.abort()
            self.close_connection()

    def _drop_output(self) -> None:
        self._flush_asked = False
        self._out.clear()
        self._out_size = 0

    def negotiate(self, command: bytes, option: bytes) -> bool:
        if not self.alive:
            return False
        assert self.writer is not None
        self.flush_output()
        return self.writer.iac(command, option)

    def will_echo(self) -> bool:
        return self.negotiate(WILL, ECHO)

    def wont_echo(self) -> None:
        w = self.writer
        if w is not None and (
            w.local_option.enabled(ECHO) or w.pending_option.enabled(WILL + ECHO)
        ):
            self.negotiate(WONT, ECHO)

    def end_of_prompt(self) -> None:
        """IAC EOR when the client asked for it, else IAC GA (telnetlib3 skips GA under SGA)."""
        if not self.alive:
            return
        assert self.writer is not None
        # After every answer: what Option.enabled answers, without its calls.
        options = self.writer.local_option
        if options.get(EOR) is True:
            self.flush_output(IAC + CMD_EOR)
        elif options.get(SGA) is not True:
            self.flush_output(IAC + GA)
        else:
            self.flush_output()

    def send_gmcp(self, package: str, data: Any) -> None:
        if self.alive and self.gmcp_enabled:
            assert self.writer is not None
            self.flush_output()
            self.writer.send_gmcp(package, data)

    def detach(self, session: ConnectionEvents) -> None:
        """Forget a finished session so neither keeps the other alive longer than needed."""
        if self.session is session:
            self.session = None
            if isinstance(self.reader, _InputSink):
                self.reader.sink = None

    def close_connection(self) -> None:
        """Flush what is queued and close; connection_lost runs synchronously from here."""
        if self._torn_down:
            return
        if self.writer is not None:
            self.flush_output()
            if self.wire is not None:
                # Before telnetlib3 tears the connection down (which stops all writing):
                # the client's inflater sees the stream end, not a cut.
                self.wire.end_compression()
            self.writer.close()
        else:
            self.connection_lost(None)
