"""TinTin++ (``#ssl``) and TinyFugue (``/connect -x``) over TLS against
`maid run --tls-port`: log in and play."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.server import ServerProcess
from e2e_client.ptyclient import PtyClient
from e2e_client.tintin import TinTin, require_tintin
from e2e_client.tinyfugue import TinyFugue, require_tinyfugue
from tlspair import cert_pair

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("client", "require", "name"),
    [(TinTin, require_tintin, "Vesna"), (TinyFugue, require_tinyfugue, "Fennick")],
    ids=["tintin", "tinyfugue"],
)
async def test_a_real_client_plays_over_tls(
    tmp_path: Path,
    maid_server: Callable[..., Awaitable[ServerProcess]],
    client: type[TinTin] | type[TinyFugue],
    require: Callable[[], None],
    name: str,
) -> None:
    require()
    cert, key = cert_pair(tmp_path)
    server = await maid_server(
        tmp_path / "data",
        env={"MAID_SCRYPT_N": "1024"},
        args=("--tls-port", "0", "--tls-cert", str(cert), "--tls-key", str(key)),
    )
    async with client.connect(server.tls_port, tmp_path, tls=True) as player:
        assert isinstance(player, PtyClient)
        await player.expect("Type 'quit' to leave.")
        await player.type(f"create {name} secure-lantern-8", f"Welcome, {name}.")
        looked = await player.type("look", "Exits:")
        assert "Ironvale Village Square" in looked
        await player.type("south", "South Street")
        await player.type("quit", "oodbye")
