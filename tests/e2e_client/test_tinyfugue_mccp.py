"""TinyFugue with MCCP2 against `maid run`: tf agrees to compression when offered, and
plays through the compressed stream (the first-ten-minutes script runs in it too)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.server import ServerProcess
from e2e_client.tinyfugue import TinyFugue, require_tinyfugue

pytestmark = pytest.mark.slow


async def test_tinyfugue_plays_through_a_compressed_stream(
    tmp_path: Path, maid_server: Callable[..., Awaitable[ServerProcess]]
) -> None:
    require_tinyfugue()
    server = await maid_server(tmp_path / "data", env={"MAID_SCRYPT_N": "1024"})
    # telopt: tf shows (but does not log) every option it sends and receives.
    async with TinyFugue.connect(server.telnet_port, tmp_path, setup=("/set telopt=on",)) as tf:
        await tf.expect("Type 'quit' to leave.")
        await tf.expect_screen(b"sent: IAC DO COMPRESS2")
        await tf.expect_screen(b"recv: IAC SB COMPRESS2 IAC SE")
        await tf.type("create Tansy tf-compressed-7", "Welcome, Tansy.")
        looked = await tf.type("look", "Exits:")
        assert "Ironvale Village Square" in looked
        await tf.type("north", "Watch Street")
        await tf.type("quit", "Goodbye. Come back soon!")
        await tf.expect("closed by foreign host")
        assert b"unable to start compressed stream" not in bytes(tf.screen)
