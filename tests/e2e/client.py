"""A small asyncio telnet client for end-to-end tests against a real MAID server.

    client = await TelnetClient.open(host, port)
    await client.read_until_prompt()                 # the banner and "What is your name?"
    await client.create("Alice", "secret-lantern-9")        # or client.connect_as(...)
    out = await client.command("look")               # text up to the next prompt
    await client.expect("Bob arrives")               # wait for unsolicited text
    await client.close()

Telnet is handled minimally: every option the server offers is refused (``DONT`` /
``WONT``) unless named in ``accept`` (then it is agreed to, e.g. ``EOR``). A prompt is
recognised by ``IAC GA`` or ``IAC EOR`` after it, so reading "until the prompt" works
whatever the prompt text is (classic_rpg replaces "> " with a status prompt).

Received text is decoded as UTF-8, ``\\r\\n`` becomes ``\\n`` and ANSI escape sequences are
stripped, so assertions compare plain text. Everything ever received stays in
:attr:`transcript`; the read methods move a cursor through it.

Every wait has a bound (``within`` seconds, default 10; ``TimeoutError`` carries the
text received so far), and a connection closed by the server while waiting raises
:class:`ConnectionClosed`. Long messages are wrapped by the server at 80 columns:
compare with :func:`flat` (``"a long message" in flat(out)``); :meth:`expect` and
:meth:`count` already ignore how whitespace was wrapped.

In tests, use the ``telnet`` fixture (a :class:`ClientPool` that closes every client
afterwards) and ``maid_server`` (a real ``maid run`` process) from :mod:`e2e.fixtures`,
and :mod:`e2e.worlddb` to read what a server has persisted.
"""

from __future__ import annotations

import asyncio
import bisect
import codecs
import contextlib
import re
import socket
import ssl
import zlib
from collections.abc import Callable, Iterable
from typing import Any

IAC, DONT, DO, WONT, WILL, SB, SE, GA, EOR_CMD = 255, 254, 253, 252, 251, 250, 240, 249, 239
ECHO, SGA, TTYPE, NAWS, EOR, GMCP, MSSP, CHARSET = 1, 3, 24, 31, 25, 201, 70, 42
COMPRESS2 = 86

DEFAULT_TIMEOUT = 10.0
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]")

#: What the login flow says once a character is being played.
_PLAYING = re.compile(
    r"Welcome,\s+\w+\.|You\s+take\s+over\s+\w+\s+from\s+your\s+other\s+connection\."
)


class ConnectionClosed(ConnectionError):
    """The server closed the connection while we were waiting for something."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text


class LoginFailed(AssertionError):
    """``create``/``connect`` did not end with a character being played."""


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def loose(text: str) -> re.Pattern[str]:
    """A regex for ``text`` in which each run of whitespace matches any whitespace run,
    so a message still matches after the server wrapped it to the client's width."""
    return re.compile(r"\s+".join(re.escape(word) for word in text.split()))


def flat(text: str) -> str:
    """``text`` with every run of whitespace made one space: compare wrapped output
    with ``"some words" in flat(out)``."""
    return " ".join(text.split())


class TelnetClient:
    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        accept: Iterable[int] = (),
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.reader, self.writer = reader, writer
        self.accept = set(accept)
        self.timeout = timeout
        #: Everything received, as plain text.
        self.transcript = ""
        #: Positions in :attr:`transcript` where a prompt ended (IAC GA / IAC EOR).
        self.prompt_marks: list[int] = []
        #: (verb, option) of every negotiation the server sent.
        self.negotiations: list[tuple[int, int]] = []
        self.cursor = 0
        self.eof = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending_cr = False
        self._answered: dict[tuple[int, int], bool] = {}
        self._state = "data"
        self._verb = 0
        self._sb = bytearray()
        #: MCCP2: the inflater while the server's output is compressed, and the bytes
        #: read off the socket (:attr:`wire_bytes`) and after inflating (:attr:`plain_bytes`).
        self.inflate: Any = None
        self.wire_bytes = 0
        self.plain_bytes = 0
        self._changed = asyncio.Event()
        self._pump_task = asyncio.get_running_loop().create_task(self._pump())

    @classmethod
    async def open(
        cls,
        host: str,
        port: int,
        *,
        source: str | None = None,
        accept: Iterable[int] = (),
        within: float = DEFAULT_TIMEOUT,
        tls: ssl.SSLContext | None = None,
        mccp: bool = False,
    ) -> TelnetClient:
        """Connect within ``within`` seconds, which is also the default bound of every
        wait of the client. ``source`` binds a local address (e.g. "127.0.0.5" to look
        like another machine to per-IP limits); ``accept`` lists the telnet options to
        agree to (everything else is refused); ``tls`` speaks TLS with that context
        (to a server's ``--tls-port``); ``mccp`` asks for MCCP2 compression at once
        (``IAC DO COMPRESS2``) and inflates what follows the server's start marker."""
        local_addr = (source, 0) if source else None
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(
                host,
                port,
                local_addr=local_addr,
                ssl=tls,
                server_hostname="localhost" if tls is not None else None,
            ),
            within,
        )
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        agree = {*accept, COMPRESS2} if mccp else set(accept)
        client = cls(reader, writer, accept=agree, timeout=within)
        if mccp:
            client._answered[(1, COMPRESS2)] = True
            client.send_raw(bytes([IAC, DO, COMPRESS2]))
        return client

    # -- receiving ----------------------------------------------------------------------

    async def _pump(self) -> None:
        try:
            while True:
                chunk = await self.reader.read(65536)
                if not chunk:
                    break
                self.wire_bytes += len(chunk)
                self._feed(chunk)
                self._changed.set()
        except (ConnectionError, OSError):
            pass
        finally:
            self._flush_text(b"", final=True)
            self.eof = True
            self._changed.set()

    def _feed(self, chunk: bytes) -> None:
        while chunk:
            if self.inflate is None:
                chunk = self._parse(chunk)
                continue
            plain = self.inflate.decompress(chunk)
            chunk = b""
            if self.inflate.eof:  # the server ended the stream: plain bytes follow
                chunk, self.inflate = self.inflate.unused_data, None
            self._parse(plain)

    def _parse(self, chunk: bytes) -> bytes:
        """Parse ``chunk`` up to an MCCP2 start marker; returns what follows it."""
        self.plain_bytes += len(chunk)
        data = bytearray()
        for i, b in enumerate(chunk):
            st = self._state
            if st == "data":
                if b == IAC:
                    self._state = "iac"
                else:
                    data.append(b)
            elif st == "iac":
                if b == IAC:
                    data.append(IAC)
                    self._state = "data"
                elif b in (DO, DONT, WILL, WONT):
                    self._verb, self._state = b, "opt"
                elif b == SB:
                    self._sb.clear()
                    self._state = "sb"
                else:
                    if b in (GA, EOR_CMD):
                        self._flush_text(bytes(data))
                        data.clear()
                        self.prompt_marks.append(len(self.transcript))
                    self._state = "data"
            elif st == "opt":
                self.negotiations.append((self._verb, b))
                self._answer(self._verb, b)
                self._state = "data"
            elif st == "sb":  # subnegotiations are ignored, but for MCCP2's start marker
                if b == IAC:
                    self._state = "sb_iac"
                else:
                    self._sb.append(b)
            elif st == "sb_iac":
                self._state = "data" if b == SE else "sb"
                if b == SE and bytes(self._sb) == bytes([COMPRESS2]):
                    self._flush_text(bytes(data))
                    self.inflate = zlib.decompressobj()
                    self.plain_bytes -= len(chunk) - i - 1
                    return chunk[i + 1 :]
                if b == SE:
                    self._sb.clear()
        self._flush_text(bytes(data))
        return b""

    def _flush_text(self, data: bytes, final: bool = False) -> None:
        text = self._decoder.decode(data, final=final)
        if not text:
            return
        if self._pending_cr:
            text = "\r" + text
            self._pending_cr = False
        if text.endswith("\r") and not final:
            text, self._pending_cr = text[:-1], True
        text = text.replace("\r\n", "\n").replace("\r\x00", "\n").replace("\r", "\n")
        self.transcript += strip_ansi(text)

    def _answer(self, verb: int, opt: int) -> None:
        if verb in (DO, DONT):
            agree = verb == DO and opt in self.accept
            key, reply = (0, opt), (WILL if agree else WONT)
        else:
            agree = verb == WILL and opt in self.accept
            key, reply = (1, opt), (DO if agree else DONT)
        if self._answered.get(key) == agree:
            return  # already in that state: answering again would start a loop
        self._answered[key] = agree
        self.send_raw(bytes([IAC, reply, opt]))

    async def _wait(self, predicate: Callable[[], bool], within: float | None, what: str) -> None:
        async def loop() -> None:
            while not predicate():
                if self.eof:
                    raise ConnectionClosed(
                        f"connection closed while waiting for {what}",
                        self.transcript[self.cursor :],
                    )
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(loop(), self.timeout if within is None else within)
        except TimeoutError:
            raise TimeoutError(
                f"timed out waiting for {what}; unread text: {self.transcript[self.cursor :]!r}"
            ) from None

    def _next_prompt(self) -> int | None:
        """The first prompt mark after the cursor."""
        i = bisect.bisect_right(self.prompt_marks, self.cursor)
        return self.prompt_marks[i] if i < len(self.prompt_marks) else None

    async def read_until_prompt(self, within: float | None = None) -> str:
        """The text from the cursor up to (and including) the next prompt."""
        await self._wait(lambda: self._next_prompt() is not None, within, "a prompt")
        mark = self._next_prompt()
        assert mark is not None
        out, self.cursor = self.transcript[self.cursor : mark], mark
        return out

    async def expect(self, pattern: str | re.Pattern[str], within: float | None = None) -> str:
        """Wait until ``pattern`` appears after the cursor; return the text up to the end
        of the match and move the cursor there.

        A string matches whatever the whitespace between its words (see :func:`loose`);
        pass a compiled regex for anything else.
        """
        regex = pattern if isinstance(pattern, re.Pattern) else loose(pattern)
        found: list[re.Match[str]] = []

        def seen() -> bool:
            m = regex.search(self.transcript, self.cursor)
            if m:
                found.append(m)
            return m is not None

        await self._wait(seen, within, repr(regex.pattern))
        end = found[-1].end()
        out, self.cursor = self.transcript[self.cursor : end], end
        return out

    async def wait_until(
        self, condition: Callable[[], bool], within: float | None = None, what: str = "it"
    ) -> None:
        """Wait until ``condition()`` holds, checked whenever text arrives."""
        await self._wait(condition, within, what)

    async def wait_closed(self, within: float | None = None) -> str:
        """Wait for the server to close the connection; return the unread text."""

        async def loop() -> None:
            while not self.eof:
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(loop(), self.timeout if within is None else within)
        except TimeoutError:
            raise TimeoutError(
                f"connection still open; unread text: {self.transcript[self.cursor :]!r}"
            ) from None
        out, self.cursor = self.transcript[self.cursor :], len(self.transcript)
        return out

    def unread(self) -> str:
        return self.transcript[self.cursor :]

    def skip(self) -> str:
        """Move the cursor to the end of what has arrived; return what was skipped."""
        out, self.cursor = self.transcript[self.cursor :], len(self.transcript)
        return out

    def count(self, text: str) -> int:
        """How often ``text`` occurs in everything received (any whitespace matches any
        whitespace, so the server's line wrapping does not matter)."""
        return len(loose(text).findall(self.transcript))

    # -- sending ------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        if not self.writer.is_closing():
            self.writer.write(data)

    def send_line(self, line: str) -> None:
        self.send_raw(line.encode("utf-8").replace(b"\xff", b"\xff\xff") + b"\r\n")

    async def command(self, line: str, within: float | None = None) -> str:
        """Send ``line`` and return what came back up to the next prompt.

        Unread text from before (messages that arrived between commands) is discarded
        first, so the answer is only what followed the command.
        """
        # One turn of the loop first: bytes already in the socket are read (and
        # skipped) rather than taken for the answer.
        await asyncio.sleep(0)
        self.skip()
        self.send_line(line)
        return await self.read_until_prompt(within)

    # -- logging in -----------------------------------------------------------------------

    async def _login(self, verb: str, name: str, password: str, within: float | None) -> str:
        if self.cursor == 0 and not self.prompt_marks:
            await self.read_until_prompt(within)  # the banner
        out = await self.command(f"{verb} {name} {password}", within)
        if not _PLAYING.search(out):
            raise LoginFailed(f"{verb} {name} failed: {out!r}")
        return out

    async def create(self, name: str, password: str, within: float | None = None) -> str:
        """``create name password``; returns the output (LoginFailed unless playing)."""
        return await self._login("create", name, password, within)

    async def connect_as(self, name: str, password: str, within: float | None = None) -> str:
        """``connect name password``; returns the output (LoginFailed unless playing)."""
        return await self._login("connect", name, password, within)

    async def try_login(
        self, verb: str, name: str, password: str, within: float | None = None
    ) -> str:
        """Send ``verb name password`` at the login screen and return the answer up to the
        next prompt (or up to the close), without judging it."""
        if self.cursor == 0 and not self.prompt_marks:
            await self.read_until_prompt(within)
        self.skip()
        self.send_line(f"{verb} {name} {password}")
        try:
            return await self.read_until_prompt(within)
        except ConnectionClosed as exc:
            self.cursor = len(self.transcript)
            return exc.text

    async def quit(self, within: float | None = None) -> str:
        """Type ``quit`` and wait until the server has closed the connection."""
        self.skip()
        self.send_line("quit")
        return await self.wait_closed(within)

    # -- closing --------------------------------------------------------------------------

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer.wait_closed(), 5)
        self._pump_task.cancel()
        await asyncio.gather(self._pump_task, return_exceptions=True)

    async def __aenter__(self) -> TelnetClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class ClientPool:
    """Opens clients and closes them all at once (the ``telnet`` fixture is one)::

    pool = ClientPool()
    alice = await pool.open(host, port)
    ...
    await pool.close_all()
    """

    def __init__(self) -> None:
        self.clients: list[TelnetClient] = []

    async def open(self, host: str, port: int, **options: Any) -> TelnetClient:
        client = await TelnetClient.open(host, port, **options)
        self.clients.append(client)
        return client

    async def close_all(self) -> None:
        clients, self.clients = self.clients, []
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
