"""Every limit of NetLimits, against real connections."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from maid_engine.net import NetLimits, TelnetServer
from maid_engine.net.limits import (
    MSG_IDLE,
    MSG_INBOX_FULL,
    MSG_PER_IP,
    MSG_SERVER_FULL,
    MSG_TOO_FAST,
)

if TYPE_CHECKING:
    from net.conftest import FakeHandler


Connect = Callable[..., Awaitable[Any]]
MakeServer = Callable[..., Awaitable[TelnetServer]]
TOO_LONG = "Line too long (max 4096 characters); ignored."


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_overlong_lines_are_refused_while_others_keep_working(
    make_server: MakeServer, connect: Connect, handler: FakeHandler
) -> None:
    # A megabyte in seconds is a flood to the per-address byte budget (tested on its own
    # in test_netcaps.py); here the line limit alone must cope with it.
    server = await make_server(
        NetLimits(negotiation_timeout=0.3, stop_timeout=2.0, input_bytes_per_second=0)
    )
    flooder = await connect(server)
    flood_session = await handler.session(0)
    other = await connect(server)
    other_session = await handler.session(1)

    flooder.send_raw(b"a" * 100_000)  # no newline at all
    await flooder.wait_text(TOO_LONG)
    other.send_line("still responsive")
    await handler.wait_until(lambda: bool(handler.lines))

    for _ in range(16):  # 1 MB more of the same line, still without a newline
        flooder.send_raw(b"b" * 65536)
    flooder.send_raw(b"\r\nafter\r\n")
    await handler.wait_until(lambda: len(handler.lines) == 2)
    assert flooder.text().count(TOO_LONG) == 1
    assert handler.lines_of(flood_session) == ["after"]
    assert handler.lines_of(other_session) == ["still responsive"]
    # Nothing of the megabyte was kept.
    assert flood_session._lines.buffered == 0  # type: ignore[attr-defined]
    assert server.counters["line_too_long"] == 1


async def test_line_length_boundary(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server)
    session = await handler.session()
    client.send_line("x" * 4096)
    client.send_line("y" * 4097)
    client.send_line("é" * 4096)  # 8 KB of UTF-8, 4096 characters: fine
    client.send_line("end")
    await handler.wait_until(lambda: len(handler.lines) == 3)
    assert [len(line) for line in handler.lines_of(session)] == [4096, 4096, 3]
    await client.wait_text(TOO_LONG)


async def test_rate_limit(make_server: MakeServer, connect: Connect, handler: FakeHandler) -> None:
    clock = FakeClock()
    limits = NetLimits(negotiation_timeout=0.3, rate_burst=5, rate_per_second=1.0)
    hits: list[str] = []
    server = await make_server(limits, clock=clock, on_limit=hits.append)
    client = await connect(server)
    session = await handler.session()
    client.send_raw(b"".join(f"cmd{i}\r\n".encode() for i in range(12)))
    await client.wait_text(MSG_TOO_FAST)
    await handler.wait_until(lambda: len(handler.lines) == 5)
    assert handler.lines_of(session) == [f"cmd{i}" for i in range(5)]
    assert client.text().count(MSG_TOO_FAST) == 1  # one notice, not one per line
    assert server.counters["rate_limited"] == 7
    assert hits.count("rate_limited") == 7

    clock.now += 3.0  # three tokens back
    client.send_raw(b"x1\r\nx2\r\nx3\r\nx4\r\n")
    await handler.wait_until(lambda: len(handler.lines) == 8)
    await client.wait_for(lambda: client.text().count(MSG_TOO_FAST) == 2)
    assert handler.lines_of(session)[5:] == ["x1", "x2", "x3"]


async def test_inbox_bound(make_server: MakeServer, connect: Connect, handler: FakeHandler) -> None:
    server = await make_server(NetLimits(negotiation_timeout=0.3, inbox_size=2))
    release = asyncio.Event()

    async def on_line(session: Any, line: str) -> None:
        if line == "slow":
            await release.wait()

    handler.on_line = on_line
    client = await connect(server)
    session = await handler.session()
    client.send_line("slow")
    await handler.wait_until(lambda: bool(handler.lines))
    client.send_raw(b"q1\r\nq2\r\nq3\r\nq4\r\n")
    await client.wait_text(MSG_INBOX_FULL)
    release.set()
    await handler.wait_until(lambda: len(handler.lines) == 3)
    assert handler.lines_of(session) == ["slow", "q1", "q2"]
    assert server.counters["inbox_full"] == 2


async def test_max_connections_per_ip(
    make_server: MakeServer, connect: Connect, handler: FakeHandler
) -> None:
    server = await make_server(NetLimits(negotiation_timeout=0.3, max_connections_per_ip=2))
    first = await connect(server)
    await connect(server)
    await handler.session(1)
    extra = await connect(server)
    await extra.wait_eof()
    assert extra.text() == MSG_PER_IP + "\r\n"
    assert extra.commands == []  # refused before any negotiation
    assert len(handler.opened) == 2
    assert server.counters["per_ip"] == 1

    await first.close()
    await handler.wait_until(lambda: len(handler.closed) == 1)
    await connect(server)
    await handler.session(2)  # a slot came free


async def test_total_connection_cap(
    make_server: MakeServer, connect: Connect, handler: FakeHandler
) -> None:
    server = await make_server(NetLimits(negotiation_timeout=0.3, max_connections=1))
    await connect(server)
    await handler.session()
    extra = await connect(server)
    await extra.wait_eof()
    assert extra.text() == MSG_SERVER_FULL + "\r\n"
    assert server.counters["max_connections"] == 1
    assert server.connection_count == 1


async def test_idle_timeout(
    make_server: MakeServer, connect: Connect, handler: FakeHandler
) -> None:
    server = await make_server(NetLimits(negotiation_timeout=0.2, idle_timeout=0.3))
    client = await connect(server)
    session = await handler.session()
    await client.wait_eof(within=5)
    assert MSG_IDLE in client.text()
    await handler.wait_until(lambda: bool(handler.closed))
    assert handler.closed == [session]
    assert server.counters["idle_timeout"] == 1


async def test_idle_is_measured_with_the_injected_clock(
    make_server: MakeServer, connect: Connect, handler: FakeHandler
) -> None:
    clock = FakeClock()
    server = await make_server(NetLimits(negotiation_timeout=0.2, idle_timeout=0.2), clock=clock)
    client = await connect(server)
    session = await handler.session()
    # Real time passes but the clock does not: re-checks find no idleness...
    client.send_line("ping")
    await handler.wait_until(lambda: bool(handler.lines))
    assert session.connected
    clock.now += 60  # ...until the clock says a minute went by.
    await client.wait_eof(within=5)
    assert MSG_IDLE in client.text()
