"""2,000 connections that open a telnet subnegotiation and never close it, against a real
server process: its memory stays under a documented bound.

Before the cap, telnetlib3 buffered up to 1 MiB of an open subnegotiation, one deque
entry per byte (~8.7 MB per connection; 60 connections took a server from 90 to 610 MB).
Now a subnegotiation longer than ``NetLimits.max_subnegotiation`` (4 KiB) drops the
connection before telnetlib3 sees it, so the worst a connection can do is hold one just
under the cap. The figures are in docs/operations.md ("Connection and input limits").
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.client import ClientPool
from e2e.server import ServerProcess

from maid_engine.net import NetLimits
from maid_engine.net.limits import MSG_SUBNEGOTIATION

pytestmark = pytest.mark.slow
StartServer = Callable[..., Awaitable[ServerProcess]]

IAC, SB, GMCP = 255, 250, 201
CONNECTIONS = 2000
OVER_CAP = 200
#: The documented ceiling: what 2,000 connections each holding a subnegotiation just
#: under the cap may add to the server's RSS (connection, session and login state
#: included). Measured: about 120 MB (~60 KiB a connection) on CPython 3.11.
MAX_RSS_GROWTH_KIB = 200 * 1024
CAP = NetLimits().max_subnegotiation


def address(i: int) -> str:
    """Spread the attack over 127.0.0.0/8 like a botnet: five connections an address."""
    k = i // 5
    return f"127.0.{10 + k // 250}.{k % 250 + 1}"


class Hostile:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.received = bytearray()

    async def read_until(self, predicate: Callable[[bytes], bool], within: float) -> None:
        deadline = time.monotonic() + within
        while not predicate(bytes(self.received)):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"got only {bytes(self.received)[-200:]!r}")
            chunk = await asyncio.wait_for(self.reader.read(65536), left)
            if not chunk:
                return
            self.received += chunk

    def close(self) -> None:
        self.writer.close()


async def open_hostile(host: str, port: int, i: int, body: bytes) -> Hostile:
    reader, writer = await asyncio.open_connection(host, port, local_addr=(address(i), 0))
    writer.write(bytes([IAC, SB, GMCP]) + body)  # and never IAC SE
    return Hostile(reader, writer)


async def test_unterminated_subnegotiations_stay_under_the_memory_bound(
    tmp_path: Path, maid_server: StartServer, telnet: ClientPool
) -> None:
    server = await maid_server(
        tmp_path,
        # Room for all of them before login (90% of the slots may be logging in).
        env={"MAID_MAX_CONNECTIONS": "2500"},
    )
    # One ordinary login first, so the baseline includes what any session costs once.
    first = await telnet.open(server.host, server.telnet_port)
    await first.create("Baseline", "baseline1")
    await first.close()
    rss_before = server.rss_kib()

    started = time.monotonic()
    body = b"x" * (CAP - 100)
    hostile: list[Hostile] = []
    try:
        for batch in range(0, CONNECTIONS, 100):
            hostile += await asyncio.gather(
                *(
                    open_hostile(server.host, server.telnet_port, i, body)
                    for i in range(batch, batch + 100)
                )
            )
        # Each is opened (login text after the negotiation) once its subnegotiation has
        # been read: the text ends a line.
        await asyncio.gather(*(h.read_until(lambda b: b"\r\n" in b, 60) for h in hostile))
        rss_held = server.rss_kib()

        # Past the cap: dropped with a reason, whatever they send.
        over = await asyncio.gather(
            *(
                open_hostile(server.host, server.telnet_port, CONNECTIONS + i, b"y" * (CAP + 100))
                for i in range(OVER_CAP)
            )
        )
        await asyncio.gather(*(h.read_until(lambda b: False, 60) for h in over))
        assert all(MSG_SUBNEGOTIATION.encode() in h.received for h in over)
        for h in over:
            h.close()
        elapsed = time.monotonic() - started

        # Still up, still answering, still accepting.
        assert server.proc.returncode is None
        player = await telnet.open(server.host, server.telnet_port)
        await player.create("Latecomer", "latecomer1")
        assert "Exits:" in await player.command("look")
        rss_after = server.rss_kib()
    finally:
        for h in hostile:
            h.close()
    growth = max(rss_held, rss_after) - rss_before
    print(f"\nRSS {rss_before} KiB -> {rss_held} KiB with {CONNECTIONS} held, "
          f"{rss_after} KiB after; {elapsed:.1f}s")  # fmt: skip
    assert growth < MAX_RSS_GROWTH_KIB, (rss_before, rss_held, rss_after)
    assert await server.terminate() == 0
