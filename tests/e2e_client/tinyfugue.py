"""TinyFugue (Debian's ``tf5``) as a player's client in tests, the second real client
next to TinTin++ and driven the same way (:class:`~e2e_client.ptyclient.PtyClient`).

    async with TinyFugue.connect(port, tmp_path) as tf:
        await tf.expect("Type 'quit' to leave.")

tf runs without visual mode (``-v``) and without the user's ``.tfrc`` (``-f`` names
our own), logging everything it shows (``/log -g``) to ``folder/tf.log``. TF puts a
prompt (text ending in IAC GA or IAC EOR) in its prompt area, which is not logged: a
PROMPT hook echoes it, so prompts reach the log as lines of their own. TF agrees to
MCCP2 and NAWS; lines starting with ``/`` are TF's own commands.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

from e2e_client.ptyclient import PtyClient, require_client, spawn

TINYFUGUE = "tf5"


def require_tinyfugue() -> None:
    """Skip without tf5 on a developer's machine; fail where it is required (CI
    exports MAID_REQUIRE_TF=1)."""
    require_client(TINYFUGUE, "tf5", "MAID_REQUIRE_TF")


class TinyFugue(PtyClient):
    leave = "/quit"

    @classmethod
    @contextlib.asynccontextmanager
    async def connect(
        cls, port: int, folder: Path, *, tls: bool = False, setup: tuple[str, ...] = ()
    ) -> AsyncIterator[TinyFugue]:
        """tf connected to 127.0.0.1:``port``; ``tls``: over TLS (``/connect -x``, to a
        server's TLS port); ``setup``: TF commands run first."""
        log = folder / "tf.log"
        config = folder / "maid-test.tf"
        config.write_text(
            "\n".join(
                [
                    # Lines as the server sent them, not rewrapped to the terminal.
                    "/set wrap=off",
                    f"/log -g {log}",
                    # -q: TF still shows the prompt; the echo puts it in the log.
                    '/def -q -p1 -h"PROMPT *" maid_log_prompt = /echo -- %{*}',
                    *setup,
                    *([f"/connect -x 127.0.0.1 {port}"] if tls else []),
                ]
            )
            + "\n"
        )
        argv = [shutil.which(TINYFUGUE) or TINYFUGUE, f"-f{config}", "-v"]
        if not tls:
            argv += ["127.0.0.1", str(port)]
        proc, master = await spawn(argv, folder)
        client = cls(proc, master, log)
        try:
            yield client
        finally:
            await client.close()
