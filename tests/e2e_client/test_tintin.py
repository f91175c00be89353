"""A real MUD client, TinTin++, against a real `maid run`: create a character,
look, walk, and quit, all from a headless tt++ script driven by the server's text."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.server import ServerProcess
from e2e_client.tintin import TINTIN, require_tintin

pytestmark = pytest.mark.slow


async def test_tintin_logs_in_looks_moves_and_quits(
    tmp_path: Path, maid_server: Callable[..., Awaitable[ServerProcess]]
) -> None:
    require_tintin()
    server = await maid_server(tmp_path / "data", env={"MAID_SCRYPT_N": "1024"})
    log = tmp_path / "tintin.log"
    # Each step waits for what the server really says before the next command.
    script = ";".join(
        [
            "#config {log mode} {plain}",
            "#event {SESSION DISCONNECTED} {#end}",
            "#action {What is your name?} {#send {create Tintin tin-hunter-22}}",
            # One-shot actions (each removes itself) so a repeated line cannot loop.
            "#action {^Ironvale Village Square$} {#unaction {^Ironvale Village Square$};"
            "#send {look};#action {^Exits:} {#unaction {^Exits:};#send {west}}}",
            "#action {^Forge Lane$} {#unaction {^Forge Lane$};#send {quit}}",
            "#delay {20} {#zap t}",  # safety net: never hang the suite
            f"#session t 127.0.0.1 {server.telnet_port}",
            f"#log overwrite {{{log}}}",
        ]
    )
    env = {**os.environ, "HOME": str(tmp_path), "TERM": "xterm-256color"}
    proc = await asyncio.create_subprocess_exec(
        shutil.which(TINTIN) or TINTIN,
        "-G",
        "-H",
        "-e",
        script,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
        env=env,
    )
    try:
        code = await asyncio.wait_for(proc.wait(), 40)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    text = await asyncio.to_thread(log.read_text, errors="replace")
    assert "Welcome to MAID" in text
    assert "Ironvale Village Square" in text  # logged in, the room shown
    assert "Exits:" in text  # look
    assert "Forge Lane" in text  # moved west
    assert "Goodbye" in text or "goodbye" in text  # quit
    assert "tin-hunter-22" not in text.split("create Tintin", 1)[-1]  # password never echoed back
    assert code == 0
