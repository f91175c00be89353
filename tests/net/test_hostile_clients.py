"""Caps against hostile clients: TTYPE floods, endless subnegotiations, connections that
never log in, and floods of bytes from one address. Real sockets throughout."""

from __future__ import annotations

import asyncio
import logging
import random
import socket
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

import pytest
from telnetlib3._base import _process_data_chunk
from telnetlib3.stream_writer import TelnetWriter

from maid_engine.app import net_limits
from maid_engine.config import load_settings
from maid_engine.net import NetLimits, TelnetServer, TelnetSession, mtts
from maid_engine.net.limits import (
    MSG_FLOOD,
    MSG_FLOOD_WAIT,
    MSG_LOGIN_BUSY,
    MSG_LOGIN_TIMEOUT,
    MSG_PRELOGIN_PER_IP,
    MSG_SERVER_FULL,
    MSG_SUBNEGOTIATION,
    ByteBudget,
)
from maid_engine.net.protocol import MaidTelnetProtocol
from maid_engine.net.subneg import SubnegotiationGuard
from maid_engine.sessions import ColorMode, Session

if TYPE_CHECKING:
    from net.conftest import FakeHandler, RawClient

Connect = Callable[..., Awaitable[Any]]
MakeServer = Callable[..., Awaitable[TelnetServer]]

IAC, SB, SE, TTYPE, GMCP = 255, 250, 240, 24, 201
WONT, NEW_ENVIRON = 252, 39
BASE = NetLimits(negotiation_timeout=0.3, stop_timeout=2.0)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def connect_from(server: TelnetServer, address: str, **overrides: Any) -> RawClient:
    """A RawClient (refusing every option) whose socket is bound to ``address``."""
    from net.conftest import RawClient

    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(server.host, server.port, local_addr=(address, 0)), 5
    )
    return RawClient(reader, writer, **overrides)


def protocol_of(session: Session) -> MaidTelnetProtocol:
    proto = session._proto  # type: ignore[attr-defined]
    assert isinstance(proto, MaidTelnetProtocol)
    return proto


# -- TTYPE amplification ------------------------------------------------------------------


async def test_huge_ttype_replies_are_cut_and_each_examined_once(
    make_server: MakeServer,
    connect: Connect,
    handler: FakeHandler,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    examined: list[str] = []
    real = mtts.color_from_terminal

    def counting(name: str) -> ColorMode:
        examined.append(name)
        return real(name)

    monkeypatch.setattr(mtts, "color_from_terminal", counting)
    # The subnegotiation cap would drop this client at once; switch it off to see the
    # TTYPE caps on their own.
    server = await make_server(replace(BASE, max_subnegotiation=0, input_bytes_per_second=0))
    client = await connect(server, "refuse")
    session = await handler.session()
    proto = protocol_of(session)
    before = len(examined)

    replies = [f"term{i}-" + "x" * 200_000 for i in range(5)]
    for reply in replies:
        client.send_raw(bytes([IAC, SB, TTYPE, 0]) + reply.encode() + bytes([IAC, SE]))
    # Then the first one again (shorter, the same once cut): nothing new, nothing examined.
    for _ in range(3):
        repeat = replies[0][:1000].encode()
        client.send_raw(bytes([IAC, SB, TTYPE, 0]) + repeat + bytes([IAC, SE]))
    client.send_line("done")
    await handler.wait_until(lambda: bool(handler.lines), within=60)

    names = examined[before:]
    assert len(names) == 5  # one detection per new value, none over all stored strings
    assert all(len(name) <= mtts.MAX_TTYPE_LENGTH for name in names)
    assert proto.detector.examined == 5
    assert proto.detector.ttypes == [reply[: mtts.MAX_TTYPE_LENGTH] for reply in replies]
    # telnetlib3 keeps only the cut values, and no more than MAX_TTYPES of them.
    stored = [proto.get_extra_info(f"ttype{i}") for i in range(1, 20)]
    kept = [value for value in stored if value]
    assert 0 < len(kept) <= mtts.MAX_TTYPES
    assert all(len(value) <= mtts.MAX_TTYPE_LENGTH for value in kept)
    assert session.connected


async def test_ttype_replies_beyond_the_count_are_ignored(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, "refuse")
    session = await handler.session()
    proto = protocol_of(session)
    for i in range(40):
        client.send_raw(bytes([IAC, SB, TTYPE, 0]) + f"t{i}".encode() + bytes([IAC, SE]))
    client.send_line("done")
    await handler.wait_until(lambda: bool(handler.lines))
    assert proto.detector.examined == mtts.MAX_TTYPES
    assert proto.detector.ttypes == [f"t{i}" for i in range(mtts.MAX_TTYPES)]


def test_detection_is_incremental_and_matches_the_one_shot_answer() -> None:
    replies = ["MUDLET 4.17", "XTERM-256COLOR", "MTTS 271"]
    detector = mtts.TerminalDetector()
    assert [detector.add_ttype(r) for r in replies] == [True, True, True]
    assert detector.add_ttype("MUDLET 4.17") is False  # a repeat changes nothing
    assert detector.result({}, "UTF-8") == mtts.detect(replies, {}, "UTF-8")
    found = detector.result()
    assert (found.client_name, found.terminal, found.color) == (
        "MUDLET",
        "XTERM-256COLOR",
        ColorMode.TRUECOLOR,
    )
    assert found.utf8
    # NEW-ENVIRON values are cut like TTYPE replies before they are looked at.
    long_term = {"TERM": "xterm" + "-" * 10_000 + "256color"}
    assert detector.result(long_term).color is ColorMode.TRUECOLOR  # from MTTS, not TERM
    assert mtts.detect([], long_term).color is ColorMode.ANSI16


# -- subnegotiation length ----------------------------------------------------------------


async def test_unterminated_subnegotiation_drops_the_connection(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    limit = server.limits.max_subnegotiation
    client = await connect(server, "refuse")
    await handler.session()
    other = await connect(server)
    other_session = await handler.session(1)

    # Past the cap in small pieces: each read alone is harmless, the sum is not.
    client.send_raw(bytes([IAC, SB, GMCP]))
    for _ in range(limit // 512 + 2):
        client.send_raw(b"x" * 512)
        await asyncio.sleep(0)
    await client.wait_eof()
    assert MSG_SUBNEGOTIATION in client.text()
    assert server.counters["subnegotiation_too_long"] == 1

    other.send_line("still here")
    await handler.wait_until(lambda: bool(handler.lines))
    assert handler.lines_of(other_session) == ["still here"]


async def test_subnegotiations_up_to_the_cap_work(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    limit = server.limits.max_subnegotiation
    client = await connect(server)
    await handler.session()
    await client.wait_for(lambda: client.remote.get(GMCP) is True)
    body = "x" * (limit - len("Big.Message ") - 1 - 4)  # option byte + the JSON quotes
    # Escaped 255s count once each, as telnetlib3 buffers them.
    client.send_raw(
        bytes([IAC, SB, GMCP])
        + f'Big.Message "{body}"'.encode()
        + bytes([IAC, SE, IAC, SB, GMCP])
        + b'Small.One "\xff\xff"'
        + bytes([IAC, SE])
    )
    await handler.wait_until(lambda: len(handler.gmcp) == 2)
    assert handler.gmcp[0][1:] == ("Big.Message", body)
    assert server.counters["subnegotiation_too_long"] == 0
    client.send_raw(bytes([IAC, SB, GMCP]) + b"y" * limit + bytes([IAC, SE]))
    await client.wait_eof()
    assert MSG_SUBNEGOTIATION in client.text()


class _Transport:
    def write(self, data: bytes) -> None:
        pass

    def is_closing(self) -> bool:
        return False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


class _Reader:
    def feed_data(self, data: bytes) -> None:
        pass


def test_guard_tracks_telnetlib3s_own_buffer_exactly() -> None:
    """On random IAC-heavy input the guard always knows what telnetlib3 has buffered."""
    rng = random.Random(22)
    alphabet = [IAC] * 6 + [SB] * 3 + [SE] * 2 + [251, 252, 253, 254, 24, 201, 31, 0, 65, 241]
    logging.getLogger("telnetlib3").disabled = True
    try:
        for _ in range(200):
            writer = TelnetWriter(_Transport(), object(), server=True)  # type: ignore[arg-type]
            guard = SubnegotiationGuard()
            for _ in range(40):
                data = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
                longest = guard.feed(data)
                _process_data_chunk(data, writer, _Reader(), None, lambda *a: None)
                assert guard.length == len(writer._sb_buffer), data
                assert longest >= guard.length
                assert guard.open == (writer.cmd_received == bytes([SB]))
    finally:
        logging.getLogger("telnetlib3").disabled = False


# -- before login ---------------------------------------------------------------------------


def log_in_on(handler: FakeHandler, word: str = "login") -> None:
    """The fake game logs a session in (sets account_id) when it types ``word``."""

    async def on_line(session: Session, line: str) -> None:
        if line == word:
            session.account_id = f"account-{session.id[:6]}"
        elif line == "logout":
            session.account_id = None

    handler.on_line = on_line


async def test_login_deadline_closes_only_connections_that_did_not_log_in(
    make_server: MakeServer,
    connect: Connect,
    handler: FakeHandler,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked = asyncio.Event()
    check = TelnetSession._check_login

    def spy(session: TelnetSession) -> None:
        check(session)
        checked.set()

    monkeypatch.setattr(TelnetSession, "_check_login", spy)
    clock = FakeClock()
    log_in_on(handler)
    server = await make_server(replace(BASE, login_timeout=0.2), clock=clock)
    idle = await connect(server)
    idle_session = await handler.session(0)
    player = await connect(server)
    player_session = await handler.session(1)
    player.send_line("login")
    await handler.wait_until(lambda: player_session.account_id is not None)
    assert server.prelogin_count == 1

    checked.clear()
    await asyncio.wait_for(checked.wait(), 5)  # the deadline's timer fired...
    assert idle_session.connected  # ...but by the server's clock no time has passed
    clock.now += 61
    await idle.wait_eof()
    assert MSG_LOGIN_TIMEOUT in idle.text()
    assert server.counters["login_timeout"] == 1
    assert player_session.connected
    assert not player.eof
    await handler.wait_until(lambda: len(handler.closed) == 1)
    assert server.prelogin_count == 0

    # Back at the login screen: counted again, and the deadline runs again.
    player.send_line("logout")
    await handler.wait_until(lambda: server.prelogin_count == 1)
    clock.now += 61
    await player.wait_eof()
    assert MSG_LOGIN_TIMEOUT in player.text()


async def test_prelogin_cap_per_address(
    make_server: MakeServer, connect: Connect, handler: FakeHandler
) -> None:
    log_in_on(handler)
    server = await make_server(replace(BASE, max_prelogin_per_ip=2))
    first = await connect(server)
    await connect(server)
    await handler.session(1)
    extra = await connect(server)
    await extra.wait_eof()
    assert extra.text() == MSG_PRELOGIN_PER_IP + "\r\n"
    assert extra.commands == []  # refused before any negotiation
    assert server.counters["prelogin_per_ip"] == 1

    # Another address is not affected.
    elsewhere = await connect_from(server, "127.0.0.9")
    await handler.session(2)
    assert not elsewhere.eof
    await elsewhere.close()

    # Once one of them has logged in, its address may start another login.
    first.send_line("login")
    await handler.wait_until(lambda: server.prelogin_count == 1)
    await connect(server)
    await handler.session(3)
    assert server.connection_count == 3


async def test_share_of_slots_kept_for_logged_in_players(
    make_server: MakeServer, handler: FakeHandler
) -> None:
    log_in_on(handler)
    limits = replace(BASE, max_connections=10, logged_in_reserve=0.3, max_prelogin_per_ip=0)
    assert limits.max_prelogin == 7
    server = await make_server(limits)
    clients = [await connect_from(server, f"127.0.3.{i + 1}") for i in range(7)]
    await handler.session(6)
    refused = await connect_from(server, "127.0.3.100")
    await refused.wait_eof()
    assert refused.text() == MSG_LOGIN_BUSY + "\r\n"
    assert server.counters["login_busy"] == 1

    # Three log in; three more may start logging in, which fills the server.
    for client in clients[:3]:
        client.send_line("login")
    await handler.wait_until(lambda: server.prelogin_count == 4)
    more = [await connect_from(server, f"127.0.4.{i + 1}") for i in range(3)]
    await handler.session(9)
    assert server.connection_count == 10
    full = await connect_from(server, "127.0.4.100")
    await full.wait_eof()
    assert full.text() == MSG_SERVER_FULL + "\r\n"
    for client in [*clients, *more, refused, full]:
        await client.close()


def test_login_and_byte_settings_reach_the_limits() -> None:
    settings = load_settings(
        login_timeout=30.0, max_prelogin_per_ip=3, logged_in_reserve=0.25,
        input_bytes_per_second=4096, max_connections=100,
    )  # fmt: skip
    limits = net_limits(settings)
    assert (limits.login_timeout, limits.max_prelogin_per_ip, limits.max_prelogin) == (30, 3, 75)
    assert limits.input_bytes_per_second == 4096
    defaults = NetLimits()
    assert (defaults.login_timeout, defaults.max_prelogin_per_ip, defaults.max_prelogin) == (
        60.0,
        5,
        1800,
    )
    with pytest.raises(ValueError, match="logged_in_reserve"):
        NetLimits(logged_in_reserve=1.0)


async def test_a_flood_is_told_why_it_is_cut_off(
    make_server: MakeServer, connect: Connect, handler: FakeHandler
) -> None:
    limits = replace(BASE, input_bytes_per_second=4096, input_byte_burst=4096, input_byte_debt=4096)
    server = await make_server(limits)
    client = await connect(server)
    session = await handler.session()
    client.send_raw(b"x" * 10_000)  # more than the burst and the debt together, at once
    await client.wait_eof()
    assert MSG_FLOOD in client.text()
    assert server.counters["input_flood"] == 1
    await handler.wait_until(lambda: handler.closed == [session])


# -- input bytes per address ----------------------------------------------------------------


def test_byte_budget_delays_then_refuses() -> None:
    clock = FakeClock()
    budget = ByteBudget(rate=1000, burst=2000, max_debt=1000, clock=clock)
    assert budget.charge(1500) == 0.0
    assert budget.charge(500) == 0.0
    assert budget.charge(500) == pytest.approx(0.5)  # 500 owed at 1000 bytes/s
    assert budget.charge(600) is None  # would owe 1100: refused, nothing spent
    assert budget.charge(500) == pytest.approx(1.0)
    assert not budget.idle
    clock.now += 1.0
    assert budget.charge(0) == 0.0
    clock.now += 10
    assert budget.idle


async def test_input_over_the_budget_waits_but_arrives(
    make_server: MakeServer, connect: Connect, handler: FakeHandler
) -> None:
    limits = replace(BASE, input_bytes_per_second=8192, input_byte_burst=4096, input_byte_debt=4096)
    server = await make_server(limits)
    client = await connect(server)
    session = await handler.session()
    # 5.4 KB at once: more than the burst, less than burst + debt; fewer lines than the
    # command rate's burst.
    lines = [f"{i:03d} " + "z" * 296 for i in range(18)]
    client.send_raw(b"".join(line.encode() + b"\r\n" for line in lines))
    await handler.wait_until(lambda: len(handler.lines) == 18, within=10)
    assert handler.lines_of(session) == lines
    assert session.connected
    assert server.counters["input_flood"] == 0


def answered(handler: FakeHandler, session: Session, count: int) -> bool:
    return len(handler.lines_of(session)) >= count


async def test_twenty_flooding_connections_from_one_address(
    make_server: MakeServer, connect: Connect, handler: FakeHandler
) -> None:
    rate, burst, debt = 16384, 16384, 16384
    limits = replace(
        BASE, input_bytes_per_second=rate, input_byte_burst=burst, input_byte_debt=debt,
        max_prelogin_per_ip=0,  # all twenty are let in (20 is the per-address default)
    )  # fmt: skip
    server = await make_server(limits)
    player = await connect(server)
    player_session = await handler.session()
    start = asyncio.get_running_loop().time()
    flooders = [await connect_from(server, "127.0.0.7", silent=True) for _ in range(20)]

    async def flood(client: RawClient) -> None:
        chunk = (b"flood " * 1000 + b"\r\n") * 10
        try:
            while not client.eof:
                client.writer.write(chunk)
                await client.writer.drain()
        except (ConnectionError, OSError):
            pass

    floods = [asyncio.create_task(flood(client)) for client in flooders]
    try:
        for n in range(5):
            player.send_line(f"hello {n}")
            await handler.wait_until(partial(answered, handler, player_session, n + 1))
        for client in flooders:
            await client.wait_eof(within=10)
    finally:
        for task in floods:
            task.cancel()
        await asyncio.gather(*floods, return_exceptions=True)
    elapsed = asyncio.get_running_loop().time() - start

    assert all(MSG_FLOOD in client.text() for client in flooders)
    assert server.counters["input_flood"] == 20
    assert server.counters["per_ip"] == 0
    assert player_session.connected
    # The work the flood could cause is what the address's budget allows, not what was
    # sent: one burst, the most it may owe, and the rate for the time it lasted.
    allowed = burst + debt + rate * elapsed
    assert server.input_bytes <= allowed + 4096, (server.input_bytes, allowed)
    for client in flooders:
        await client.close()


async def test_an_address_paying_off_a_flood_cannot_reconnect_meanwhile(
    make_server: MakeServer, connect: Connect, handler: FakeHandler
) -> None:
    clock = FakeClock()
    limits = replace(BASE, input_bytes_per_second=1000, input_byte_burst=1000, input_byte_debt=1000)
    server = await make_server(limits, clock=clock)
    client = await connect(server)
    session = await handler.session()
    client.send_line("a" * 1498)  # 500 bytes more than the burst: waits half a second
    await handler.wait_until(lambda: len(handler.lines) == 1)
    assert session.connected
    client.send_line("b" * 998)  # would owe 1500: cut off
    await client.wait_eof()
    assert MSG_FLOOD in client.text()
    assert handler.lines_of(session) == ["a" * 1498]

    again = await connect(server)
    await again.wait_eof()
    assert again.text() == MSG_FLOOD_WAIT + "\r\n"
    assert server.counters["flood_wait"] == 1
    clock.now += 1.0  # the debt is paid
    await connect(server)
    await handler.session(1)


# -- negotiation settled once ---------------------------------------------------------------


def test_commands_sent_before_negotiation_begins_settle_it_once() -> None:
    """uvloop reads a socket as soon as it is accepted, before telnetlib3's scheduled
    start of negotiation: a client whose telnet commands are already waiting makes
    telnetlib3 arm its negotiation timer twice, and the second timer used to settle the
    finished negotiation again (InvalidStateError in the loop's log)."""
    from net.conftest import FakeHandler

    from maid_engine import loops

    timeout = 0.05
    errors: list[dict[str, Any]] = []

    async def scenario() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: errors.append(ctx))
        handler = FakeHandler()
        limits = NetLimits(negotiation_timeout=timeout, stop_timeout=2.0)
        server = TelnetServer(handler, host="127.0.0.1", port=0, limits=limits)
        await server.start()
        try:
            # Connected and written before the server's loop accepts the connection.
            with socket.create_connection((server.host, server.port)) as raw:
                raw.sendall(bytes([IAC, WONT, TTYPE, IAC, WONT, NEW_ENVIRON]))
                await handler.session()
                # Past the moment every negotiation timer of this connection was due.
                await asyncio.sleep(timeout * 3)
        finally:
            await server.stop()

    loops.run(scenario(), "uvloop")
    assert errors == []
