"""A real MUD client in tests, typed into through a pseudo-terminal and read back from
its own log: the part TinTin++ and TinyFugue share (see tintin.py, tinyfugue.py).

The client runs on a pseudo-terminal with a window size (tt++ crashes without one), so
it negotiates with the server exactly as it does for a player (NAWS, TTYPE, MCCP2...).
What the server sent reaches :attr:`PtyClient.log` as plain text. A client logs a line
once it is complete, so wait for whole lines. The read methods wait on the log with a
bound and never sleep for a fixed time. Lines are typed as a player types them: the
client may act on them first (its own commands), which is the point of testing
through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import re
import shutil
import struct
import termios
from pathlib import Path

import pytest

#: The terminal the client draws on (and reports to the server by NAWS).
COLUMNS, ROWS = 100, 50
DEFAULT_WITHIN = 15.0
SCREEN_KEPT = 1 << 20


def require_client(binary: str, package: str, flag: str) -> None:
    """Skip a real-client test on a developer's machine without ``binary``; fail it
    where the client is required (CI exports ``flag``=1, or CI is set), so that the
    real-client tests can never quietly stop running there."""
    if shutil.which(binary) is not None:
        return
    if os.environ.get(flag) == "1" or os.environ.get("CI"):
        pytest.fail(f"{package} must be installed here (apt-get install {package})")
    pytest.skip(f"{package} not installed (apt-get install {package})")


async def spawn(argv: list[str], folder: Path) -> tuple[asyncio.subprocess.Process, int]:
    """Start ``argv`` in ``folder`` on a new pseudo-terminal: (process, master fd)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = {**os.environ, "HOME": str(folder), "TERM": "xterm-256color"}
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=slave, stdout=slave, stderr=slave, cwd=folder, env=env,
        start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    return proc, master


class PtyClient:
    """A running client: type into it, wait for what it logged."""

    #: What the client is told to leave with when the test ends.
    leave = ""

    def __init__(self, proc: asyncio.subprocess.Process, master: int, log: Path) -> None:
        self.proc = proc
        self.master = master
        self.log = log
        #: Where in the log the next wait starts looking.
        self.cursor = 0
        #: What the client drew on its terminal, kept up to SCREEN_KEPT bytes: messages
        #: some clients show but do not log (TinyFugue's option negotiation).
        self.screen = bytearray()
        self._reader = asyncio.get_running_loop().run_in_executor(None, self._drain)

    def _drain(self) -> None:
        # The terminal must be read, or the client blocks once its buffer is full.
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            if len(self.screen) < SCREEN_KEPT:
                self.screen += chunk

    async def expect_screen(self, needle: bytes, within: float = DEFAULT_WITHIN) -> None:
        """Wait until ``needle`` has been drawn on the terminal."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while needle not in self.screen:
            if loop.time() > deadline:
                raise TimeoutError(f"never drew {needle!r}")
            # Polling: the terminal is read by a thread; there is nothing to await on.
            await asyncio.sleep(0.02)

    def text(self) -> str:
        """Everything logged so far."""
        try:
            return self.log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    async def expect_re(
        self, pattern: re.Pattern[str], within: float = DEFAULT_WITHIN
    ) -> tuple[str, re.Match[str]]:
        """Wait until ``pattern`` matches after the cursor: the text from the cursor to
        the end of the match, and the match. The cursor moves past it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while True:
            text = self.text()
            found = pattern.search(text, self.cursor)
            if found is not None:
                out = text[self.cursor : found.end()]
                self.cursor = found.end()
                return out, found
            if self.proc.returncode is not None:
                raise AssertionError(f"{self.proc.returncode=} before {pattern!r}")
            if loop.time() > deadline:
                rest = text[self.cursor :]
                raise TimeoutError(f"never saw {pattern.pattern!r}; since the cursor:\n{rest}")
            # Polling: tt++ writes its log file; there is nothing to await on.
            await asyncio.sleep(0.02)

    async def expect(self, needle: str, within: float = DEFAULT_WITHIN) -> str:
        """Wait until ``needle`` appears after the cursor: the text up to its end."""
        out, _ = await self.expect_re(re.compile(re.escape(needle)), within)
        return out

    def send(self, line: str) -> None:
        """Type ``line`` and Enter, without waiting for anything."""
        os.write(self.master, line.encode() + b"\r")

    async def type(self, line: str, needle: str, within: float = DEFAULT_WITHIN) -> str:
        """Type ``line``, then :meth:`expect` ``needle``."""
        self.send(line)
        return await self.expect(needle, within)

    async def close(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(OSError):
                self.send(self.leave)
            try:
                await asyncio.wait_for(self.proc.wait(), 5)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        with contextlib.suppress(OSError):
            os.close(self.master)
        await asyncio.gather(self._reader, return_exceptions=True)
