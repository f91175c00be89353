"""A minimal telnet client over raw sockets: a terminal type and GMCP, nothing else.

(telnetlib3 starts offering GMCP only to a client that answers the terminal-type
question, as every MUD client does.)"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Callable
from typing import Any

_ANSI = re.compile(r"\x1b\[[0-9;]*m")

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
TTYPE, GMCP = 24, 201


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.data = bytearray()
        self.gmcp: list[tuple[str, Any]] = []
        #: Set once GMCP is agreed (the server offered it and we said yes).
        self.gmcp_agreed = asyncio.Event()
        self._changed = asyncio.Event()
        self._state, self._verb, self._sb = "data", 0, bytearray()
        self._task = asyncio.create_task(self._pump())

    @classmethod
    async def connect(cls, port: int) -> Client:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def _pump(self) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while chunk := await self.reader.read(65536):
                for byte in chunk:
                    self._feed(byte)
                self._changed.set()

    def _feed(self, b: int) -> None:
        state = self._state
        if state == "data":
            if b == IAC:
                self._state = "iac"
            else:
                self.data.append(b)
        elif state == "iac":
            if b in (DO, DONT, WILL, WONT):
                self._verb, self._state = b, "opt"
            elif b == SB:
                self._sb.clear()
                self._state = "sb"
            else:
                if b == IAC:
                    self.data.append(IAC)
                self._state = "data"
        elif state == "opt":
            self._answer(self._verb, b)
            self._state = "data"
        elif state == "sb":
            if b == IAC:
                self._state = "sb_iac"
            else:
                self._sb.append(b)
        elif state == "sb_iac":
            if b == SE:
                self._subneg(bytes(self._sb))
                self._state = "data"
            else:
                self._sb.append(b)
                self._state = "sb"

    def _answer(self, verb: int, opt: int) -> None:
        if verb == WILL:
            self._send(bytes([IAC, DO if opt == GMCP else DONT, opt]))
            if opt == GMCP:
                self.gmcp_agreed.set()
        elif verb == DO:
            self._send(bytes([IAC, WILL if opt == TTYPE else WONT, opt]))

    def _subneg(self, payload: bytes) -> None:
        if payload[:2] == bytes([TTYPE, 1]):  # SEND: we are a MUD client
            self._send(bytes([IAC, SB, TTYPE, 0]) + b"MUDLET" + bytes([IAC, SE]))
        elif payload[:1] == bytes([GMCP]):
            package, _, body = payload[1:].decode().partition(" ")
            self.gmcp.append((package, json.loads(body) if body else None))

    def _send(self, raw: bytes) -> None:
        if not self.writer.is_closing():
            self.writer.write(raw)

    def send_gmcp(self, package: str, data: Any = None) -> None:
        body = package if data is None else f"{package} {json.dumps(data)}"
        self._send(bytes([IAC, SB, GMCP]) + body.encode() + bytes([IAC, SE]))

    async def declare(self, *modules: str, within: float = 5.0) -> None:
        """Say hello as Mudlet does once GMCP is agreed, declaring ``modules``
        ("Char 1", "Room 1", ...) with Core.Supports.Set."""
        await asyncio.wait_for(self.gmcp_agreed.wait(), within)
        self.send_gmcp("Core.Hello", {"client": "Mudlet", "version": "4.17"})
        self.send_gmcp("Core.Supports.Set", list(modules))

    def received(self, package: str) -> list[Any]:
        """The data of every GMCP message ``package`` so far, oldest first."""
        return [data for name, data in self.gmcp if name == package]

    async def wait_gmcp_where(
        self, package: str, check: Callable[[Any], bool], within: float = 5.0
    ) -> Any:
        """The data of the first ``package`` message (old or new) ``check`` accepts."""

        async def loop() -> Any:
            while True:
                for data in self.received(package):
                    if check(data):
                        return data
                self._changed.clear()
                await self._changed.wait()

        try:
            return await asyncio.wait_for(loop(), within)
        except TimeoutError:
            raise AssertionError(
                f"no {package} as wanted; got {self.received(package)!r}"
            ) from None

    def send_line(self, text: str) -> None:
        self._send(text.encode() + b"\r\n")

    def text(self) -> str:
        """What was shown, colour codes and carriage returns removed."""
        return _ANSI.sub("", self.data.decode("utf-8", errors="replace")).replace("\r", "")

    def flat(self) -> str:
        """The text with the server's line wrapping undone (runs of blanks as one space)."""
        return " ".join(self.text().split())

    def mark(self) -> int:
        """Where the flattened text ends now (``wait_for(..., since=mark)``)."""
        return len(self.flat())

    async def wait_for(self, needle: str, within: float = 15.0, since: int = 0) -> None:
        """Wait until ``needle`` shows, after position ``since`` of the flattened text."""
        wanted = " ".join(needle.split())

        async def loop() -> None:
            while wanted not in self.flat()[since:]:
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(loop(), within)
        except TimeoutError:
            raise AssertionError(f"{needle!r} never arrived; got {self.text()!r}") from None

    async def wait_gmcp(self, package: str, within: float = 5.0) -> Any:
        """The data of the first GMCP message ``package`` (waiting for it if needed)."""

        async def loop() -> Any:
            while True:
                for name, data in self.gmcp:
                    if name == package:
                        return data
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(loop(), within)

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
