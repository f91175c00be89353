"""A minimal telnet client over raw sockets: a terminal type and GMCP, nothing else.

(telnetlib3 starts offering GMCP only to a client that answers the terminal-type
question, as every MUD client does.)"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from typing import Any

_ANSI = re.compile(r"\x1b\[[0-9;]*m")

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
TTYPE, GMCP = 24, 201


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.data = bytearray()
        self.gmcp: list[tuple[str, Any]] = []
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

    def send_line(self, text: str) -> None:
        self._send(text.encode() + b"\r\n")

    def text(self) -> str:
        """What was shown, colour codes and carriage returns removed."""
        return _ANSI.sub("", self.data.decode("utf-8", errors="replace")).replace("\r", "")

    def flat(self) -> str:
        """The text with the server's line wrapping undone (runs of blanks as one space)."""
        return " ".join(self.text().split())

    async def wait_for(self, needle: str, within: float = 15.0) -> None:
        wanted = " ".join(needle.split())

        async def loop() -> None:
            while wanted not in self.flat():
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
