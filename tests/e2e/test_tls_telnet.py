"""Telnet over TLS against the real game: a Python ssl client creates a character and
plays, and `maid run --tls-port` announces the listener (or refuses a bad certificate
before loading the world)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.client import ClientPool, flat
from e2e.fixtures import maid_server, served, telnet
from e2e.server import REPO, ServerProcess
from tlspair import cert_pair, client_context

__all__ = ["maid_server", "telnet"]


async def test_a_tls_client_creates_a_character_and_plays(
    tmp_path: Path, telnet: ClientPool
) -> None:
    cert, key = cert_pair(tmp_path)
    async with served(
        tmp_path / "data", tls_port=0, tls_cert_file=cert, tls_key_file=key
    ) as server:
        assert server.tls_port not in (0, server.telnet_port)
        player = await telnet.open("127.0.0.1", server.tls_port, tls=client_context(cert))
        await player.read_until_prompt()
        await player.create("Sabine", "sealed-letter-51")
        here = await player.command("look")
        assert "Exits:" in here
        moved = await player.command("south")
        assert "South Street" in flat(moved)
        # A plain telnet player sees the TLS player: one game, two doors.
        plain = await telnet.open("127.0.0.1", server.telnet_port)
        await plain.read_until_prompt()
        await plain.create("Plainer", "open-door-23")
        assert "Sabine" in flat(await plain.command("who"))
        await player.quit()


@pytest.mark.slow
async def test_maid_run_announces_the_tls_listener(
    tmp_path: Path, maid_server: Callable[..., Awaitable[ServerProcess]], telnet: ClientPool
) -> None:
    cert, key = cert_pair(tmp_path)
    server = await maid_server(
        tmp_path / "data",
        args=("--tls-port", "0", "--tls-cert", str(cert), "--tls-key", str(key)),
    )
    assert f"MAID telnet+tls listening on 127.0.0.1:{server.tls_port}" in server.stdout()
    player = await telnet.open("127.0.0.1", server.tls_port, tls=client_context(cert))
    assert "What is your name?" in await player.read_until_prompt()


async def test_maid_run_refuses_an_unusable_certificate_at_once(tmp_path: Path) -> None:
    junk = tmp_path / "junk.pem"
    junk.write_text("-----BEGIN CERTIFICATE-----\nnope\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAID_")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "maid_engine.cli", "run", "--telnet-port", "0",
        "--metrics-port", "0", "--data-dir", str(tmp_path / "data"),
        "--tls-port", "0", "--tls-cert", str(junk), "--tls-key", str(junk),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env, cwd=REPO,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2, err
    assert "are not a PEM certificate and its key" in err.decode()
    assert b"listening" not in out
