"""TinTin++ as a player's client in tests: typed into through a terminal, read back
from its own log.

    async with TinTin.connect(port, tmp_path) as tt:
        await tt.expect("Type 'quit' to leave.")
        out = await tt.type("create Piper pipe-dream-42", "Welcome, Piper.")

tt++ runs headless (``-G``) on a pseudo-terminal with a window size (without one it
crashes), so it negotiates with the server exactly as it does for a player (NAWS,
TTYPE, MCCP2...). What the server sent reaches :attr:`log` as plain text (``#log`` in
plain mode). tt++ logs a line once it is complete, so a prompt shows up together
with what follows it ("<30/30hp 15/15mp> south"): wait for whole lines. Lines are
typed as a player types them: tt++ may act on them first (its own ``#`` commands).
The waiting and typing are :class:`~e2e_client.ptyclient.PtyClient`'s.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

from e2e_client.ptyclient import PtyClient, require_client, spawn

TINTIN = "/usr/games/tt++"


def require_tintin() -> None:
    """Skip a tintin++ test on a developer's machine without it; fail it where
    tintin++ is required (CI exports MAID_REQUIRE_TINTIN=1), so that the real-client
    tests can never quietly stop running there."""
    require_client(TINTIN, "tintin++", "MAID_REQUIRE_TINTIN")


class TinTin(PtyClient):
    leave = "#end"

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
        proc, master = await spawn([shutil.which(TINTIN) or TINTIN, "-G", "-e", script], folder)
        client = cls(proc, master, log)
        try:
            yield client
        finally:
            await client.close()
