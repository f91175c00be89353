"""The load client's timed play: a think before every command, and the burst.

A server in the test answers every line as the echo server does and notes when
each connection's lines arrive: what the load client sends, not what it says it
sent, is what these tests check.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from benchmarks import loadclient

PROMPT = b"> \xff\xf9"  # a prompt and IAC GA, the echo server's marker


class _Echo(asyncio.Protocol):
    def __init__(self, arrivals: list[list[float]]) -> None:
        self.lines: list[float] = []
        arrivals.append(self.lines)
        self.buf = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(PROMPT)

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        self.buf += data
        while b"\r\n" in self.buf:
            line, self.buf = self.buf.split(b"\r\n", 1)
            self.lines.append(time.monotonic())
            self.transport.write(line + b"\r\n" + PROMPT)


async def _play(argv: list[str]) -> tuple[dict[str, Any], list[list[float]]]:
    arrivals: list[list[float]] = []
    server = await asyncio.get_running_loop().create_server(lambda: _Echo(arrivals), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        args = loadclient.parse_args(
            ["--port", str(port), "--mode", "echo", "--stagger-ms", "0", "--settle", "0", *argv]
        )
        result = await loadclient.run(args)
    finally:
        server.close()
    return result, arrivals


async def test_each_player_thinks_before_its_first_command() -> None:
    result, arrivals = await _play(["--clients", "20", "--duration", "0.6", "--think-ms", "100"])
    start = result["phase_monotonic"][0]
    firsts = sorted(lines[0] - start for lines in arrivals if lines)
    assert len(firsts) == 20
    # Uniform over 0-200 ms: all at once (the old start) would put them within a
    # few milliseconds of the phase's start.
    assert firsts[-1] - firsts[0] > 0.05
    assert sum(1 for t in firsts if t < 0.005) < 10
    assert result["burst"] is None


async def test_the_burst_sends_one_command_per_player_at_once_and_apart() -> None:
    result, arrivals = await _play(
        ["--clients", "20", "--duration", "1.2", "--think-ms", "100", "--burst-at", "0.6"]
    )
    burst = result["burst"]
    assert isinstance(burst, dict)
    at = burst["at_monotonic"]
    assert len(burst["rtts"]) == 20
    # Every connection sent a line right after the burst, though each was thinking
    # for up to 200 ms when it came.
    for lines in arrivals:
        assert any(at <= t <= at + 0.1 for t in lines)
    sent = sum(len(lines) for lines in arrivals)
    assert result["answered"] == result["expected"] == sent
    # The burst's answers are not among the mix's.
    assert len(result["rtts"]) == sent - 20
