"""End to end with real clients: telnetlib3's own client and TinTin++."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import telnetlib3
from telnetlib3.telopt import GMCP

from maid_engine.net import TelnetServer
from maid_engine.sessions import ColorMode

TINTIN = "/usr/games/tt++"


async def _echo_game(handler: Any) -> None:
    async def on_open(session: Any) -> None:
        session.send("Welcome to |gMAID|n!")
        session.prompt("> ")

    async def on_line(session: Any, line: str) -> None:
        session.send(f"You said: {line}")
        session.prompt("> ")

    handler.on_open = on_open
    handler.on_line = on_line


async def _read_until(reader: Any, needle: str, within: float = 5.0) -> str:
    seen = ""

    async def loop() -> None:
        nonlocal seen
        while needle not in seen:
            chunk = await reader.read(4096)
            if not chunk:
                raise AssertionError(f"EOF before {needle!r}; got {seen!r}")
            seen += chunk

    await asyncio.wait_for(loop(), within)
    return seen


async def test_telnetlib3_client(
    server: TelnetServer, handler: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLORTERM", raising=False)  # the client forwards it via NEW-ENVIRON
    await _echo_game(handler)
    reader, writer = await asyncio.wait_for(
        telnetlib3.open_connection(
            server.host,
            server.port,
            term="xterm-256color",
            cols=40,
            rows=20,
            connect_maxwait=1.0,
        ),
        5,
    )
    try:
        session = await handler.session()
        text = await _read_until(reader, "> ")
        assert "Welcome to \x1b[32mMAID\x1b[0m!\r\n" in text
        assert (session.caps.width, session.caps.height) == (40, 20)
        assert session.caps.color is ColorMode.XTERM256
        assert session.caps.utf8  # LANG=en_US.utf8 via NEW-ENVIRON
        # telnetlib3 agrees to GMCP and says hello with Core.Hello + Core.Supports.Set
        await handler.wait_until(lambda: session.caps.client_name == "telnetlib3")
        assert session.caps.gmcp
        assert session.caps.gmcp_supports

        assert isinstance(writer, telnetlib3.TelnetWriterUnicode)  # text mode: str in
        writer.write("look around\r\n")
        await _read_until(reader, "You said: look around")
        assert handler.lines_of(session) == ["look around"]

        arrived: asyncio.Future[tuple[str, Any]] = asyncio.get_running_loop().create_future()

        def on_gmcp(package: str, data: Any) -> None:
            if not arrived.done():
                arrived.set_result((package, data))

        writer.set_ext_callback(GMCP, on_gmcp)
        session.send_gmcp("Char.Vitals", {"hp": 5})
        assert await asyncio.wait_for(arrived, 5) == ("Char.Vitals", {"hp": 5})
    finally:
        writer.close()
    await handler.wait_until(lambda: bool(handler.closed))


@pytest.mark.skipif(
    not Path(TINTIN).exists() and not os.environ.get("CI"),
    reason="tintin++ not installed (apt-get install tintin++); required in CI",
)
async def test_tintin_smoke(server: TelnetServer, handler: Any, tmp_path: Path) -> None:
    assert shutil.which(TINTIN), "tintin++ must be installed in CI"
    await _echo_game(handler)
    log = tmp_path / "tintin.log"
    script = ";".join(
        [
            "#config {log mode} {plain}",
            "#event {SESSION DISCONNECTED} {#end}",
            "#action {Welcome to MAID} {#send {look}}",
            "#action {You said: look} {#delay {0.2} {#zap t}}",
            "#delay {10} {#zap t}",  # safety net: never hang the suite
            f"#session t {server.host} {server.port}",
            f"#log overwrite {{{log}}}",
        ]
    )
    env = {**os.environ, "HOME": str(tmp_path), "TERM": "xterm-256color"}
    proc = await asyncio.create_subprocess_exec(
        TINTIN, "-G", "-H", "-e", script,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        cwd=tmp_path, env=env,
    )  # fmt: skip
    try:
        code = await asyncio.wait_for(proc.wait(), 20)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    text = log.read_text(errors="replace")
    assert "Welcome to MAID!" in text
    assert "You said: look" in text
    assert code == 0
    session = handler.opened[0]
    assert handler.lines_of(session) == ["look"]
    # What TinTin++ negotiated (see the report): MTTS, UTF-8 and the window size.
    assert session.caps.client_name.upper() == "TINTIN++"
    assert session.caps.color is ColorMode.TRUECOLOR
    assert session.caps.utf8
    assert session.caps.mtts & 271 == 271
    assert (session.caps.width, session.caps.height) == (80, 24)
    await handler.wait_until(lambda: bool(handler.closed))
