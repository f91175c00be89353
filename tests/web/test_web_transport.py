"""The WebSocket transport against a fake game: the same session, limits and GMCP as
telnet, JSON on the wire, and the page's files served with a strict policy."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import aiohttp
import pytest
from net.conftest import FakeHandler

from maid_engine.net import NetLimits, TelnetServer
from maid_engine.net.gate import ConnectionGate
from maid_engine.net.limits import (
    MSG_FLOOD,
    MSG_IDLE,
    MSG_LOGIN_TIMEOUT,
    MSG_PER_IP,
    MSG_TOO_FAST,
)
from maid_engine.sessions import ColorMode, Session
from maid_engine.web import WebServer
from maid_engine.web.server import MSG_BAD_FRAME

TIMEOUT = 5.0
BASE = NetLimits(negotiation_timeout=0.2, max_prelogin_per_ip=0)


class WsClient:
    """A WebSocket client that keeps every JSON message the server sent."""

    def __init__(self, http: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.http = http
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.closed = asyncio.Event()
        self._changed = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        try:
            async for msg in self.ws:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    self.messages.append(json.loads(msg.data))
                    self._changed.set()
        finally:
            self.closed.set()
            self._changed.set()

    def text(self) -> str:
        return "".join(m.get("text", "") for m in self.messages)

    async def wait(self, predicate: Callable[[], bool]) -> None:
        async def loop() -> None:
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), TIMEOUT)

    async def wait_text(self, needle: str) -> None:
        await self.wait(lambda: needle in self.text())

    async def send(self, message: Any) -> None:
        await self.ws.send_str(message if isinstance(message, str) else json.dumps(message))

    async def close(self) -> None:
        await self.ws.close()
        await self._task
        await self.http.close()


Connect = Callable[..., Awaitable[WsClient]]


@pytest.fixture
def handler() -> FakeHandler:
    return FakeHandler()


@pytest.fixture
async def web(handler: FakeHandler) -> AsyncIterator[Callable[..., Awaitable[WebServer]]]:
    servers: list[WebServer] = []

    async def make(limits: NetLimits = BASE, **kw: Any) -> WebServer:
        server = WebServer(handler, host="127.0.0.1", port=0, limits=limits, **kw)
        await server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        await server.stop()


@pytest.fixture
async def connect() -> AsyncIterator[Connect]:
    clients: list[WsClient] = []

    async def open_one(server: WebServer, query: str = "") -> WsClient:
        http = aiohttp.ClientSession()
        ws = await http.ws_connect(f"ws://127.0.0.1:{server.port}/ws{query}")
        client = WsClient(http, ws)
        clients.append(client)
        return client

    yield open_one
    for client in clients:
        await client.close()


async def test_a_browser_session_has_the_session_protocol_and_full_colour(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    server = await web()
    client = await connect(server, "?cols=100&rows=30")
    session = await handler.session()
    assert isinstance(session, Session)
    caps = session.caps
    assert (caps.color, caps.utf8, caps.gmcp) == (ColorMode.TRUECOLOR, True, True)
    assert (caps.width, caps.height, caps.terminal) == (100, 30, "web")
    assert server.sessions == [session]
    assert server.url == f"http://127.0.0.1:{server.port}/"

    session.send("|rDanger|n ahead")
    session.prompt("> ")
    await client.wait(lambda: any(m.get("prompt") for m in client.messages))
    texts = [m for m in client.messages if "text" in m]
    # One frame per burst: the line and the prompt after it, marked as a prompt.
    assert texts[-1]["text"].endswith("> ")
    assert "\x1b[" in client.text()
    assert "Danger" in client.text()
    assert "\r" not in client.text()

    session.send_gmcp("Char.Vitals", {"hp": 5, "maxhp": 10})
    session.set_echo(False)
    session.set_echo(True)
    await client.wait(lambda: {"echo": True} in client.messages)
    tail = client.messages[-3:]
    assert tail == [
        {"gmcp": "Char.Vitals", "data": {"hp": 5, "maxhp": 10}},
        {"echo": False},
        {"echo": True},
    ]


async def test_lines_gmcp_and_size_reach_the_game_in_order(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    server = await web()
    client = await connect(server)
    session = await handler.session()
    await client.send({"gmcp": "Core.Hello", "data": {"client": "Tester", "version": "2"}})
    await client.send({"gmcp": "Core.Supports.Set", "data": ["Char 1"]})
    await client.send({"line": "look"})
    await client.send("north\nsouth")  # a bare tool's text: two lines
    await client.send({"gmcp": "Char.Skills.Get", "data": {"group": "all"}})
    await client.send({"size": [120, 40]})
    await handler.wait_until(lambda: len(handler.gmcp) == 1 and len(handler.resized) == 1)
    assert handler.lines_of(session) == ["look", "north", "south"]
    assert handler.gmcp == [(session.id, "Char.Skills.Get", {"group": "all"})]
    assert handler.resized == [(session.id, 120, 40)]
    assert (session.caps.client_name, session.caps.client_version) == ("Tester", "2")
    # Core.Supports.Set filters what is sent, as on telnet.
    session.send_gmcp("Room.Info", {"num": 1})
    session.send_gmcp("Char.Vitals", {"hp": 1})
    await client.wait(lambda: any(m.get("gmcp") == "Char.Vitals" for m in client.messages))
    assert not any(m.get("gmcp") == "Room.Info" for m in client.messages)


@pytest.mark.parametrize(
    "frame",
    [
        "{not json",
        '{"line": 5}',
        '{"gmcp": "Char", "x": 1',
        {"size": [5, 24]},
        {"size": ["wide", 24]},
        {"what": "ever"},
    ],
)
async def test_an_unreadable_frame_is_refused_with_a_notice_and_nothing_lost(
    web: Callable[..., Awaitable[WebServer]],
    connect: Connect,
    handler: FakeHandler,
    frame: Any,
) -> None:
    server = await web()
    client = await connect(server)
    session = await handler.session()
    await client.send(frame)
    await client.send({"line": "still here"})
    await handler.wait_until(lambda: bool(handler.lines))
    await client.wait_text(MSG_BAD_FRAME)
    assert handler.lines_of(session) == ["still here"]
    assert server.counters["bad_frame"] == 1
    assert handler.resized == []


async def test_binary_frames_are_refused(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    server = await web()
    client = await connect(server)
    await handler.session()
    await client.ws.send_bytes(b"\x00\x01")
    await client.wait_text(MSG_BAD_FRAME)


async def test_the_command_rate_and_line_length_limits_are_telnets(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    limits = replace(BASE, rate_burst=3, rate_per_second=0.001, max_line_length=20)
    server = await web(limits)
    client = await connect(server)
    session = await handler.session()
    await client.send({"line": "x" * 21})
    await client.wait_text("Line too long (max 20 characters); ignored.")
    for n in range(5):
        await client.send({"line": f"cmd {n}"})
    await client.wait_text(MSG_TOO_FAST)
    await handler.wait_until(lambda: len(handler.lines) == 3)
    assert handler.lines_of(session) == ["cmd 0", "cmd 1", "cmd 2"]
    assert server.counters["rate_limited"] == 2
    assert server.counters["line_too_long"] == 1


async def test_one_gate_counts_an_address_across_telnet_and_the_web(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    limits = replace(BASE, max_connections_per_ip=1)
    telnet = TelnetServer(handler, port=0, limits=limits)
    await telnet.start()
    try:
        server = await web(limits, gate=telnet.gate)
        reader, writer = await asyncio.open_connection("127.0.0.1", telnet.port)
        await handler.session()
        client = await connect(server)
        await client.wait_text(MSG_PER_IP)
        await asyncio.wait_for(client.closed.wait(), TIMEOUT)
        assert client.messages[-1]["refused"] is True
        assert telnet.counters["per_ip"] == 1
        assert server.gate is telnet.gate
        assert telnet.connection_count == 1
        writer.close()
        await handler.wait_until(lambda: len(handler.closed) == 1)
        # The address's slot is free again: the browser gets in.
        again = await connect(server)
        await handler.session(1)
        assert again.messages == [] or "refused" not in again.messages[-1]
        assert telnet.connection_count == 1
        del reader
    finally:
        await telnet.stop()


async def test_logging_in_frees_the_prelogin_slot(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    gate = ConnectionGate(BASE, asyncio.get_running_loop().time)
    server = await web(gate=gate)
    await connect(server)
    session = await handler.session()
    assert gate.prelogin_count == 1
    session.account_id = "acc-1"
    assert gate.prelogin_count == 0
    session.account_id = None
    assert gate.prelogin_count == 1


async def test_close_and_disconnect_tell_the_game_once(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    server = await web()
    client = await connect(server)
    session = await handler.session()
    session.close("Goodbye!")
    await asyncio.wait_for(client.closed.wait(), TIMEOUT)
    assert "Goodbye!" in client.text()
    await handler.wait_until(lambda: len(handler.closed) == 1)
    assert not session.connected
    session.send("after the end")  # never raises

    other = await connect(server)
    second = await handler.session(1)
    await other.ws.close()
    await handler.wait_until(lambda: len(handler.closed) == 2)
    assert handler.closed == [session, second]
    assert server.sessions == []
    assert server.gate.connection_count == 0


async def test_stopping_tells_everyone_and_closes(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    server = await web()
    client = await connect(server)
    await handler.session()
    await server.stop("The server is going down.")
    await asyncio.wait_for(client.closed.wait(), TIMEOUT)
    assert "The server is going down." in client.text()
    assert len(handler.closed) == 1
    await server.stop()  # twice is harmless


async def test_a_flooding_address_is_cut_off(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    limits = replace(BASE, input_bytes_per_second=100, input_byte_burst=200, input_byte_debt=100)
    server = await web(limits)
    client = await connect(server)
    await handler.session()
    await client.send({"line": "x" * 150})
    await client.send({"line": "y" * 400})
    await client.wait_text(MSG_FLOOD)
    await asyncio.wait_for(client.closed.wait(), TIMEOUT)
    assert server.counters["input_flood"] == 1
    assert server.input_bytes > 400


async def test_a_browser_that_does_not_read_is_dropped(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    server = await web(replace(BASE, max_output_buffer=500))
    client = await connect(server)
    session = await handler.session()
    session.send_gmcp("Big.Data", {"blob": "z" * 1000})
    await asyncio.wait_for(client.closed.wait(), TIMEOUT)
    assert server.counters["output_overflow"] == 1
    await handler.wait_until(lambda: len(handler.closed) == 1)


async def test_the_page_and_its_files_are_served_with_a_strict_policy(
    web: Callable[..., Awaitable[WebServer]],
) -> None:
    server = await web()
    base = f"http://127.0.0.1:{server.port}"
    async with aiohttp.ClientSession() as http:
        async with http.get(base + "/") as page:
            assert page.status == 200
            assert page.content_type == "text/html"
            assert "default-src 'self'" in page.headers["Content-Security-Policy"]
            body = await page.text()
            assert 'role="log"' in body
            assert 'aria-live="polite"' in body
        for name, kind in (
            ("client.js", "text/javascript"),
            ("client.css", "text/css"),
            ("icon.svg", "image/svg+xml"),
        ):
            async with http.get(f"{base}/static/{name}") as res:
                assert (res.status, res.content_type) == (200, kind)
        for path in ("/static/nope.js", "/static/..%2Fserver.py", "/static/.hidden.js", "/x"):
            async with http.get(base + path) as res:
                assert res.status == 404, path


async def test_starting_twice_is_an_error(web: Callable[..., Awaitable[WebServer]]) -> None:
    server = await web()
    with pytest.raises(RuntimeError, match="already started"):
        await server.start()


async def test_a_size_that_is_not_a_number_leaves_the_default(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    server = await web()
    await connect(server, "?cols=wide&rows=5")
    session = await handler.session()
    assert (session.caps.width, session.caps.height) == (80, 24)


async def test_without_a_byte_budget_input_is_never_held(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    server = await web(replace(BASE, input_bytes_per_second=0))
    client = await connect(server)
    session = await handler.session()
    await client.send({"line": "z" * 3000})
    await handler.wait_until(lambda: bool(handler.lines))
    assert handler.lines_of(session) == ["z" * 3000]
    assert server.gate.budget(session.peer_host) is None


async def test_input_over_the_budget_waits_and_is_not_lost(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    # 100 bytes of burst at 2,000 bytes a second: the second frame waits a few
    # hundredths of a second for the address to pay, then is read.
    limits = replace(BASE, input_bytes_per_second=2000, input_byte_burst=100, input_byte_debt=1000)
    server = await web(limits)
    client = await connect(server)
    session = await handler.session()
    await client.send({"line": "a" * 80})
    await client.send({"line": "b" * 80})
    await handler.wait_until(lambda: len(handler.lines) == 2)
    assert handler.lines_of(session) == ["a" * 80, "b" * 80]
    assert server.counters["input_flood"] == 0


async def test_a_connection_arriving_while_stopping_is_refused(
    web: Callable[..., Awaitable[WebServer]], handler: FakeHandler
) -> None:
    server = await web()
    server._accepting = False  # the moment between "stop" and the listener closing
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
            message = await ws.receive_json(timeout=TIMEOUT)
    assert message == {"text": "The server is full; try again later.\n", "refused": True}
    assert handler.opened == []


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_the_login_deadline_and_the_idle_timeout_are_telnets(
    web: Callable[..., Awaitable[WebServer]], connect: Connect, handler: FakeHandler
) -> None:
    clock = FakeClock()
    limits = replace(BASE, login_timeout=0.2, idle_timeout=0.3)
    server = await web(limits, clock=clock)
    lingering = await connect(server)
    await handler.session(0)
    player = await connect(server)
    session = await handler.session(1)
    session.account_id = "acc-1"  # logged in: no login deadline any more
    clock.now += 0.25  # by the server's clock, past the deadline but not idle yet
    await asyncio.wait_for(lingering.closed.wait(), TIMEOUT)
    assert MSG_LOGIN_TIMEOUT in lingering.text()
    assert server.counters["login_timeout"] == 1
    assert session.connected
    clock.now += 1
    await asyncio.wait_for(player.closed.wait(), TIMEOUT)
    assert MSG_IDLE in player.text()
    assert server.counters["idle_timeout"] == 1
