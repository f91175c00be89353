"""Fixtures for the telnet transport tests: a fake SessionHandler and a raw telnet client.

The raw client speaks just enough telnet to play any client we need: it records every
byte and command the server sends, and answers negotiation according to its profile.
"""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

import pytest

from maid_engine.net import NetLimits, TelnetServer
from maid_engine.sessions import Session

IAC, DONT, DO, WONT, WILL, SB, SE, GA, EOR_CMD = 255, 254, 253, 252, 251, 250, 240, 249, 239
ECHO, SGA, TTYPE, NAWS, CHARSET, BINARY, NEW_ENVIRON = 1, 3, 24, 31, 42, 0, 39
EOR, GMCP, MSSP, COMPRESS2, COMPRESS3 = 25, 201, 70, 86, 87
TIMEOUT = 5.0


def decode_mssp(payload: bytes) -> dict[str, list[str]]:
    """An MSSP subnegotiation's table: variable -> its values."""
    table: dict[str, list[str]] = {}
    for chunk in payload.split(b"\x01")[1:]:
        name, *values = chunk.split(b"\x02")
        table[name.decode()] = [v.decode() for v in values]
    return table


class FakeHandler:
    """Records every call; optional hooks make it answer like a tiny game."""

    def __init__(self) -> None:
        self.opened: list[Session] = []
        self.lines: list[tuple[str, str]] = []
        self.closed: list[Session] = []
        self.gmcp: list[tuple[str, str, Any]] = []
        self.resized: list[tuple[str, int, int]] = []
        self.idle_output: list[str] = []
        self.mssp: dict[str, str | list[str]] = {"NAME": "TestMUD", "PLAYERS": "3"}
        self.on_open: Callable[[Session], Awaitable[None]] | None = None
        self.on_line: Callable[[Session, str], Awaitable[None]] | None = None
        self._changed = asyncio.Event()

    def _touch(self) -> None:
        self._changed.set()

    async def session_opened(self, session: Session) -> None:
        self.opened.append(session)
        self._touch()
        if self.on_open is not None:
            await self.on_open(session)

    async def session_line(self, session: Session, line: str) -> None:
        self.lines.append((session.id, line))
        self._touch()
        if self.on_line is not None:
            await self.on_line(session, line)

    async def session_closed(self, session: Session) -> None:
        self.closed.append(session)
        self._touch()

    async def session_gmcp(self, session: Session, package: str, data: Any) -> None:
        self.gmcp.append((session.id, package, data))
        self._touch()

    def session_resized(self, session: Session) -> None:
        self.resized.append((session.id, session.caps.width, session.caps.height))
        self._touch()

    def session_idle_output(self, session: Session) -> None:
        self.idle_output.append(session.id)
        self._touch()

    def mssp_status(self) -> dict[str, str | list[str]]:
        return self.mssp

    async def session(self, index: int = 0) -> Session:
        """The index-th opened session, once the server has opened it."""
        await self.wait_until(lambda: len(self.opened) > index)
        return self.opened[index]

    def lines_of(self, session: Session) -> list[str]:
        return [line for sid, line in self.lines if sid == session.id]

    async def wait_until(self, predicate: Callable[[], bool], within: float = TIMEOUT) -> None:
        async def loop() -> None:
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), within)


class RawClient:
    """A minimal telnet client over asyncio streams.

    ``will``: options this client agrees to perform when the server says DO.
    ``do``: options it lets the server perform when the server says WILL.
    Everything else is refused (WONT / DONT).
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        will: Iterable[int] = (),
        do: Iterable[int] = (),
        ttypes: list[str] | None = None,
        naws: tuple[int, int] | None = None,
        charset: str | None = None,
        silent: bool = False,
    ) -> None:
        self.reader, self.writer = reader, writer
        self.silent = silent  # a non-telnet client (netcat): never answers negotiation
        self.will, self.do = set(will), set(do)
        self.ttypes = ttypes or []
        self._ttype_i = 0
        self.naws = naws
        self.charset = charset
        self.local: dict[int, bool] = {}
        self.remote: dict[int, bool] = {}
        self.wire = bytearray()  # everything received, raw
        #: MCCP2: the inflater while the server's stream is compressed, and how many
        #: compressed streams started and ended cleanly (Z_FINISH) so far.
        self.inflate: Any = None
        self.streams_started = 0
        self.streams_ended = 0
        self.inflated = 0  # bytes the compressed streams inflated to
        self.data = bytearray()  # in-band data only (IAC IAC -> 0xFF)
        self.commands: list[tuple[int, int]] = []  # (verb, option) received
        self.subneg: list[tuple[int, bytes]] = []
        self.ga_count = 0
        self.eor_count = 0
        self.eof = False
        self._state = "data"
        self._cmd = 0
        self._sb = bytearray()
        self._changed = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._pump())

    # -- receiving ------------------------------------------------------------------------

    async def _pump(self) -> None:
        try:
            while True:
                chunk = await self.reader.read(65536)
                if not chunk:
                    break
                self.wire += chunk
                self._feed(chunk)
                self._changed.set()
        except (ConnectionError, OSError):
            pass
        finally:
            self.eof = True
            self._changed.set()

    def _feed(self, chunk: bytes) -> None:
        """Parse ``chunk``, inflating what follows an MCCP2 start marker."""
        while chunk:
            if self.inflate is None:
                used = self._parse(chunk)
                chunk = chunk[used:]
                continue
            plain = self.inflate.decompress(chunk)
            self.inflated += len(plain)
            chunk = b""
            if self.inflate.eof:
                # The server ended the stream: what follows it is plain again.
                chunk = self.inflate.unused_data
                self.inflate = None
                self.streams_ended += 1
            self._parse(plain)

    def _parse(self, chunk: bytes) -> int:
        """Parse ``chunk``; returns how much of it was plain telnet (all of it, unless
        an MCCP2 start marker ends the plain part)."""
        for i, b in enumerate(chunk):
            st = self._state
            if st == "data":
                if b == IAC:
                    self._state = "iac"
                else:
                    self.data.append(b)
            elif st == "iac":
                if b == IAC:
                    self.data.append(IAC)
                    self._state = "data"
                elif b in (DO, DONT, WILL, WONT):
                    self._cmd, self._state = b, "opt"
                elif b == SB:
                    self._sb.clear()
                    self._state = "sb"
                else:
                    if b == GA:
                        self.ga_count += 1
                    elif b == EOR_CMD:
                        self.eor_count += 1
                    self.commands.append((b, -1))
                    self._state = "data"
            elif st == "opt":
                self.commands.append((self._cmd, b))
                self._negotiate(self._cmd, b)
                self._state = "data"
            elif st == "sb":
                if b == IAC:
                    self._state = "sb_iac"
                else:
                    self._sb.append(b)
            elif st == "sb_iac":
                if b == SE:
                    self._subnegotiation(bytes(self._sb))
                    self._state = "data"
                    if bytes(self._sb) == bytes([COMPRESS2]):
                        self.inflate = zlib.decompressobj()
                        self.streams_started += 1
                        return i + 1
                else:
                    self._sb.append(b)  # IAC IAC inside SB
                    self._state = "sb"
        return len(chunk)

    def _negotiate(self, verb: int, opt: int) -> None:
        if self.silent:
            return
        if verb == DO:
            agree = opt in self.will
            if self.local.get(opt) == agree:
                return
            self.local[opt] = agree
            self.send_raw(bytes([IAC, WILL if agree else WONT, opt]))
            if agree and opt == NAWS and self.naws:
                self.send_naws(*self.naws)
        elif verb == WILL:
            agree = opt in self.do
            if self.remote.get(opt) == agree:
                return
            self.remote[opt] = agree
            self.send_raw(bytes([IAC, DO if agree else DONT, opt]))
        elif verb == DONT:
            if self.local.get(opt):
                self.local[opt] = False
                self.send_raw(bytes([IAC, WONT, opt]))
        elif verb == WONT:
            if self.remote.get(opt):
                self.remote[opt] = False
                self.send_raw(bytes([IAC, DONT, opt]))

    def _subnegotiation(self, buf: bytes) -> None:
        if not buf:
            return
        opt, payload = buf[0], buf[1:]
        self.subneg.append((opt, payload))
        if self.silent:
            return
        if opt == TTYPE and payload[:1] == b"\x01" and self.ttypes:
            name = self.ttypes[min(self._ttype_i, len(self.ttypes) - 1)]
            self._ttype_i += 1
            self.send_raw(bytes([IAC, SB, TTYPE, 0]) + name.encode() + bytes([IAC, SE]))
        elif opt == CHARSET and payload[:1] == b"\x01":
            if self.charset:
                reply = bytes([IAC, SB, CHARSET, 2]) + self.charset.encode() + bytes([IAC, SE])
            else:
                reply = bytes([IAC, SB, CHARSET, 3, IAC, SE])
            self.send_raw(reply)
        elif opt == NEW_ENVIRON and payload[:1] == b"\x01":
            self.send_raw(bytes([IAC, SB, NEW_ENVIRON, 0, IAC, SE]))

    async def wait_for(self, predicate: Callable[[], bool], within: float = TIMEOUT) -> None:
        async def loop() -> None:
            while not predicate():
                if self.eof:
                    raise AssertionError(f"connection closed; data so far: {self.text()!r}")
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), within)

    async def wait_text(self, needle: str, within: float = TIMEOUT) -> None:
        await self.wait_for(lambda: needle in self.text(), within)

    async def wait_eof(self, within: float = TIMEOUT) -> None:
        async def loop() -> None:
            while not self.eof:
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), within)

    def saw(self, verb: int | bytes, opt: int | bytes) -> bool:
        """Whether the server sent ``IAC verb opt`` (telnetlib3.telopt bytes or ints)."""
        v = verb[0] if isinstance(verb, bytes) else verb
        o = opt[0] if isinstance(opt, bytes) else opt
        return (v, o) in self.commands

    def subnegotiations(self, opt: int | bytes) -> list[bytes]:
        o = opt[0] if isinstance(opt, bytes) else opt
        return [payload for code, payload in self.subneg if code == o]

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")

    def gmcp_messages(self) -> list[tuple[str, Any]]:
        out = []
        for opt, payload in self.subneg:
            if opt == GMCP:
                pkg, _, body = payload.decode().partition(" ")
                out.append((pkg, json.loads(body) if body else None))
        return out

    # -- sending --------------------------------------------------------------------------

    def wake(self) -> None:
        """Start answering negotiation, beginning with what was asked while silent (a
        client whose answers arrive late: a slow link, or a server that stalled)."""
        self.silent = False
        for verb, opt in list(self.commands):
            if verb in (DO, DONT, WILL, WONT):
                self._negotiate(verb, opt)

    def send_raw(self, data: bytes) -> None:
        if not self.writer.is_closing():
            self.writer.write(data)

    def send_line(self, text: str) -> None:
        self.send_raw(text.encode().replace(b"\xff", b"\xff\xff") + b"\r\n")

    def send_naws(self, cols: int, rows: int) -> None:
        size = cols.to_bytes(2, "big") + rows.to_bytes(2, "big")
        self.send_raw(
            bytes([IAC, SB, NAWS]) + size.replace(b"\xff", b"\xff\xff") + bytes([IAC, SE])
        )

    def send_gmcp(self, package: str, data: Any = None) -> None:
        body = package if data is None else f"{package} {json.dumps(data)}"
        self.send_raw(bytes([IAC, SB, GMCP]) + body.encode() + bytes([IAC, SE]))

    async def close(self) -> None:
        self.writer.close()
        try:
            await asyncio.wait_for(self.writer.wait_closed(), TIMEOUT)
        except (ConnectionError, OSError):
            pass
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


#: Profiles: what a typical client of each kind agrees to.
MUD_CLIENT = {
    "will": {TTYPE, NAWS, CHARSET, BINARY},
    "do": {SGA, BINARY, EOR, GMCP, MSSP, CHARSET},
    "ttypes": ["MUDLET", "XTERM-256COLOR", "MTTS 271"],
    "naws": (100, 40),
    "charset": "UTF-8",
}
REFUSE_ALL: dict[str, Any] = {}  # answers every DO with WONT and every WILL with DONT
SILENT: dict[str, Any] = {"silent": True}  # netcat: no telnet at all
PROFILES: dict[str, dict[str, Any]] = {"mud": MUD_CLIENT, "refuse": REFUSE_ALL, "silent": SILENT}


@pytest.fixture
def handler() -> FakeHandler:
    return FakeHandler()


TEST_LIMITS = NetLimits(negotiation_timeout=0.3, stop_timeout=2.0)


@pytest.fixture
async def make_server(
    handler: FakeHandler,
) -> AsyncIterator[Callable[..., Awaitable[TelnetServer]]]:
    servers: list[TelnetServer] = []

    async def make(limits: NetLimits = TEST_LIMITS, **kwargs: Any) -> TelnetServer:
        server = TelnetServer(handler, host="127.0.0.1", port=0, limits=limits, **kwargs)
        await asyncio.wait_for(server.start(), TIMEOUT)
        servers.append(server)
        return server

    yield make
    for server in servers:
        await asyncio.wait_for(server.stop(), TIMEOUT)


@pytest.fixture
async def server(make_server: Callable[..., Awaitable[TelnetServer]]) -> TelnetServer:
    return await make_server()


@pytest.fixture
async def connect() -> AsyncIterator[Callable[..., Awaitable[RawClient]]]:
    clients: list[RawClient] = []

    async def open_client(srv: TelnetServer, profile: str = "mud", **overrides: Any) -> RawClient:
        """Connect a RawClient behaving like ``profile`` (mud/refuse/silent) + overrides."""
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(srv.host, srv.port), TIMEOUT
        )
        client = RawClient(reader, writer, **{**PROFILES[profile], **overrides})
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        await client.close()
