"""TinTin++ with MCCP2 against `maid run`: tt++ agrees to compression (it always does,
so every tt++ test here plays compressed), and a session played through the compressed
stream works to the end."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.server import ServerProcess
from e2e_client.tintin import TinTin, require_tintin

pytestmark = pytest.mark.slow


async def test_tintin_plays_through_a_compressed_stream(
    tmp_path: Path, maid_server: Callable[..., Awaitable[ServerProcess]]
) -> None:
    require_tintin()
    server = await maid_server(tmp_path / "data", env={"MAID_SCRYPT_N": "1024"})
    # tt++ logs every negotiation step with this on, MCCP2 included.
    async with TinTin.connect(
        server.telnet_port, tmp_path, setup=("#config {debug telnet} {on}",)
    ) as tt:
        started = await tt.expect("INFO MCCP2 INITIALIZED")
        assert "RCVD IAC SB MCCP2" in started
        await tt.expect("Type 'quit' to leave.")
        await tt.type("create Zora zipped-letters-4", "Welcome, Zora.")
        looked = await tt.type("look", "Exits:")
        assert "Ironvale Village Square" in looked
        await tt.type("west", "Forge Lane")
        await tt.type("say the stream holds", "You say")
        # The server ends the stream (Z_FINISH) before it closes: tt++ says so as it
        # inflates the end, ahead of the last line, which it logs once complete.
        await tt.type("quit", "Goodbye. Come back soon!")
        after = tt.text().split("INFO MCCP2 INITIALIZED", 1)[1]
        assert after.count("MCCP2") == 1
        assert "#COMPRESSION END, DISABLING MCCP2." in after
        assert "ERROR" not in after
