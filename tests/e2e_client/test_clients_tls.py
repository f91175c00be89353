"""TinTin++ (``#ssl``) and TinyFugue (``/connect -x``) over TLS against
`maid run --tls-port`: log in and play."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.server import ServerProcess
from e2e_client.tintin import TinTin, require_tintin
from e2e_client.tinyfugue import TinyFugue, require_tinyfugue
from tlspair import cert_pair

pytestmark = pytest.mark.slow


async def test_tintin_plays_over_ssl(
    tmp_path: Path, maid_server: Callable[..., Awaitable[ServerProcess]]
) -> None:
    require_tintin()
    cert, key = cert_pair(tmp_path)
    server = await maid_server(
        tmp_path / "data",
        env={"MAID_SCRYPT_N": "1024"},
        args=("--tls-port", "0", "--tls-cert", str(cert), "--tls-key", str(key)),
    )
    async with TinTin.connect(server.tls_port, tmp_path, tls=True) as tt:
        await tt.expect("Type 'quit' to leave.")
        await tt.type("create Vesna secure-lantern-8", "Welcome, Vesna.")
        looked = await tt.type("look", "Exits:")
        assert "Ironvale Village Square" in looked
        await tt.type("south", "South Street")
        await tt.type("quit", "oodbye")


async def test_tinyfugue_plays_over_ssl(
    tmp_path: Path, maid_server: Callable[..., Awaitable[ServerProcess]]
) -> None:
    require_tinyfugue()
    cert, key = cert_pair(tmp_path)
    server = await maid_server(
        tmp_path / "data",
        env={"MAID_SCRYPT_N": "1024"},
        args=("--tls-port", "0", "--tls-cert", str(cert), "--tls-key", str(key)),
    )
    async with TinyFugue.connect(server.tls_port, tmp_path, tls=True) as tf:
        await tf.expect("Type 'quit' to leave.")
        await tf.type("create Fennick fugue-sealed-3", "Welcome, Fennick.")
        looked = await tf.type("look", "Exits:")
        assert "Ironvale Village Square" in looked
        await tf.type("quit", "Goodbye. Come back soon!")
