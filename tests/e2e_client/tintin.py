"""TinTin++ as a player's client in tests: typed into through a terminal, read back
from its own log.

    async with TinTin.connect(port, tmp_path) as tt:
        await tt.expect("Type 'quit' to leave.")
        out = await tt.type("create Piper pipe-dream-42", "Welcome, Piper.")

tt++ runs headless (``-G``) on a pseudo-terminal with a window size (without one it
crashes), so it negotiates with the server exactly as it does for a player (NAWS,
TTYPE, ...). What the server sent reaches :attr:`log` as plain text (``#log`` in
plain mode). tt++ logs a line once it is complete, so a prompt shows up together
with what follows it ("<30/30hp 15/15mp> south"): wait for whole lines. The read
methods wait on the log with a bound and never sleep for a fixed time. Lines are
typed as a player types them: tt++ may act on them first (its own ``#`` commands),
which is the point of testing through it.
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
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

TINTIN = "/usr/games/tt++"


def require_tintin() -> None:
    """Skip a tintin++ test on a developer's machine without it; fail it where
    tintin++ is required (CI exports MAID_REQUIRE_TINTIN=1), so that the real-client
    tests can never quietly stop running there."""
    if shutil.which(TINTIN) is not None:
        return
    if os.environ.get("MAID_REQUIRE_TINTIN") == "1" or os.environ.get("CI"):
        pytest.fail("tintin++ must be installed here (apt-get install tintin++)")
    pytest.skip("tintin++ not installed (apt-get install tintin++)")


#: The terminal tt++ draws on (and reports to the server by NAWS).
COLUMNS, ROWS = 100, 50
DEFAULT_WITHIN = 15.0


class TinTin:
    def __init__(self, proc: asyncio.subprocess.Process, master: int, log: Path) -> None:
        self.proc = proc
        self.master = master
        self.log = log
        #: Where in the log the next wait starts looking.
        self.cursor = 0
        self._reader = asyncio.get_running_loop().run_in_executor(None, self._drain)

    @classmethod
    @contextlib.asynccontextmanager
    async def connect(
        cls, port: int, folder: Path, *, tls: bool = False, setup: tuple[str, ...] = ()
    ) -> AsyncIterator[TinTin]:
        """tt++ connected to 127.0.0.1:``port``, logging to ``folder/tintin.log``;
        ``tls``: over TLS (``#ssl``, to a server's TLS port); ``setup``: tt++ commands
        run before it connects (events, config)."""
        log = folder / "tintin.log"
        opener = "#ssl" if tls else "#session"
        script = ";".join(
            [
                "#config {log mode} {plain}",
                *setup,
                f"{opener} t 127.0.0.1 {port}",
                f"#log overwrite {{{log}}}",
            ]
        )
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        env = {**os.environ, "HOME": str(folder), "TERM": "xterm-256color"}
        proc = await asyncio.create_subprocess_exec(
            shutil.which(TINTIN) or TINTIN, "-G", "-e", script,
            stdin=slave, stdout=slave, stderr=slave, cwd=folder, env=env,
            start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        client = cls(proc, master, log)
        try:
            yield client
        finally:
            await client.close()

    def _drain(self) -> None:
        # The terminal must be read, or tt++ blocks once its buffer is full.
        while True:
            try:
                if not os.read(self.master, 65536):
                    return
            except OSError:
                return

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
                raise AssertionError(f"tt++ exited ({self.proc.returncode}) before {pattern!r}")
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
                self.send("#end")
            try:
                await asyncio.wait_for(self.proc.wait(), 5)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        with contextlib.suppress(OSError):
            os.close(self.master)
        await asyncio.gather(self._reader, return_exceptions=True)
