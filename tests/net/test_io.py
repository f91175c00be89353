"""What goes over the wire: output safety, input decoding, ordering, closing."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import pytest

from maid_engine.net import NetLimits, TelnetServer
from maid_engine.net.session import REPROMPT_DELAY, REPROMPT_SPREAD, TelnetSession

if TYPE_CHECKING:
    from net.conftest import FakeHandler

IAC_, SB_, SE_, NAWS_ = 255, 250, 240, 31


Connect = Callable[..., Awaitable[Any]]


async def test_send_cannot_smuggle_escapes_or_telnet_commands(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    for index, profile in enumerate(("refuse", "mud")):
        client = await connect(server, profile)
        session = await handler.session(index)
        commands_before = len(client.commands)
        session.send("\x1b[31mred\x1b[0m \xff\xfb\x01 bell\x07 osc\x1b]0;pwned\x07 c1\x9b2J ÿ")
        await client.wait_text("ÿ\r\n")
        # No escape at all (the MUD client would get only ours, and there are none here),
        # and the IAC WILL ECHO characters arrived as text, not as a command.
        assert b"\x1b" not in client.data
        assert client.text().endswith("red ÿû bell osc c1 ÿ\r\n")
        assert len(client.commands) == commands_before


async def test_iac_bytes_are_doubled_on_the_wire(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, "refuse")
    session = await handler.session()
    wire_before = len(client.wire)
    # Below the session (which never produces 0xFF from UTF-8): the writer must escape it.
    assert isinstance(session, TelnetSession)
    session._proto.write_bytes(b"a\xff\xfb\x01b\r\n")
    await client.wait_text("b\r\n")
    assert bytes(client.wire[wire_before:]) == b"a\xff\xff\xfb\x01b\r\n"
    assert client.data.endswith(b"a\xff\xfb\x01b\r\n")


async def test_newlines_are_normalised(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, "refuse")
    session = await handler.session()
    session.send("a\nb\r\nc\rd\n")
    session.send("tab\tkept")
    await client.wait_text("kept")
    assert client.text() == "a\r\nb\r\nc\r\nd\r\ntab\tkept\r\n"


async def test_input_is_decoded_and_cleaned(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server)
    session = await handler.session()
    client.send_raw("  say héllo  \r\n".encode())
    client.send_raw(b"say \x1b[31mred\x1b[0m\x07!\r\n")
    client.send_raw(b"bad \xff\xff\xc3\x28 utf8\r\n")  # IAC IAC = data byte 0xFF
    client.send_raw(b"\r\n")
    await handler.wait_until(lambda: len(handler.lines) == 4)
    assert handler.lines_of(session) == ["say héllo", "say red!", "bad \ufffd\ufffd( utf8", ""]


async def test_latin1_fallback_for_non_utf8_client(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, "refuse")
    session = await handler.session()
    client.send_raw(b"caf\xe9\r\n")
    await handler.wait_until(lambda: bool(handler.lines))
    assert handler.lines_of(session) == ["café"]


async def test_random_bytes_do_not_crash(
    make_server: Callable[..., Awaitable[TelnetServer]], connect: Connect, handler: FakeHandler
) -> None:
    server = await make_server(NetLimits(negotiation_timeout=0.3, rate_burst=0, inbox_size=0))
    rng = random.Random(1234)
    victim = await connect(server)
    bystander = await connect(server)
    await handler.session(1)
    for _ in range(20):
        victim.send_raw(b"x" + rng.randbytes(4096))
    victim.send_raw(b"\xff\xf0\xff\xfa\xff\xf0\r\nstill here\r\n")
    bystander.send_line("fine")
    await handler.wait_until(lambda: "fine" in (line for _, line in handler.lines))
    if victim.eof:  # random IAC commands may legitimately ask to close (e.g. DO LOGOUT)
        await handler.wait_until(lambda: len(handler.closed) == 1)
    else:
        await handler.wait_until(lambda: any("still here" in line for _, line in handler.lines))
    assert all(handler.closed.count(s) <= 1 for s in handler.opened)


async def test_lines_run_one_at_a_time_while_reading_continues(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    release = asyncio.Event()
    running = 0
    peak = 0

    async def on_line(session: Any, line: str) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        if line == "slow":
            await release.wait()
        running -= 1

    handler.on_line = on_line
    client = await connect(server)
    session = await handler.session()
    client.send_line("slow")
    await handler.wait_until(lambda: bool(handler.lines))
    client.send_raw(b"a\r\n" + b"z" * 20_000 + b"\r\nb\r\n")
    # Refusing the long line proves the connection is still being read mid-command.
    await client.wait_text("Line too long")
    assert handler.lines_of(session) == ["slow"]
    release.set()
    await handler.wait_until(lambda: len(handler.lines) == 3)
    assert handler.lines_of(session) == ["slow", "a", "b"]
    assert peak == 1


async def test_game_close_sends_message_and_closes_once(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server)
    session = await handler.session()
    session.close("Goodbye!")
    await client.wait_eof()
    assert "Goodbye!\r\n" in client.text()
    await handler.wait_until(lambda: bool(handler.closed))
    session.close("again")
    assert not session.connected
    assert handler.closed == [session]
    assert session not in server.sessions


async def test_writes_after_the_peer_vanished_are_harmless(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server)
    session = await handler.session()
    await client.close()
    await handler.wait_until(lambda: bool(handler.closed))
    session.send("anyone there?")
    session.prompt("> ")
    session.send_gmcp("Char.Vitals", {"hp": 1})
    session.set_echo(False)
    session.set_echo(True)
    session.close("bye")
    assert handler.closed == [session]


async def test_closed_waits_for_the_running_command(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    release = asyncio.Event()

    async def on_line(session: Any, line: str) -> None:
        await release.wait()
        session.send("too late")  # the peer is gone: must not raise

    handler.on_line = on_line
    client = await connect(server)
    session = await handler.session()
    client.send_line("work")
    client.send_line("queued")
    await handler.wait_until(lambda: bool(handler.lines))
    await client.close()
    await handler.wait_until(lambda: not session.connected)
    assert handler.closed == []  # never while a command of the session is still running
    release.set()
    await handler.wait_until(lambda: bool(handler.closed))
    assert handler.lines_of(session) == ["work"]  # queued input of a gone client is dropped
    assert handler.closed == [session]


async def test_handler_errors_do_not_kill_the_session(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    async def on_line(session: Any, line: str) -> None:
        if line == "boom":
            raise RuntimeError("game bug")
        session.send(f"ok {line}")

    handler.on_line = on_line
    client = await connect(server)
    await handler.session()
    client.send_line("boom")
    client.send_line("next")
    await client.wait_text("ok next")


async def test_stop_tells_everyone_and_closes(
    make_server: Callable[..., Awaitable[TelnetServer]], connect: Connect, handler: FakeHandler
) -> None:
    server = await make_server()
    first = await connect(server)
    second = await connect(server, "refuse")
    await handler.session(1)
    await asyncio.wait_for(server.stop("Server shutting down."), 5)
    for client in (first, second):
        await client.wait_eof()
        assert "Server shutting down.\r\n" in client.text()
    assert sorted(map(id, handler.closed)) == sorted(map(id, handler.opened))
    assert server.sessions == []
    try:
        await asyncio.wait_for(asyncio.open_connection(server.host, server.port), 2)
    except OSError:
        pass
    else:
        raise AssertionError("server still accepting after stop()")


async def test_output_to_a_client_that_never_reads_is_bounded(
    make_server: Callable[..., Awaitable[TelnetServer]], handler: FakeHandler
) -> None:
    server = await make_server(NetLimits(negotiation_timeout=0.2, max_output_buffer=64 * 1024))
    _reader, writer = await asyncio.open_connection(server.host, server.port)  # never reads
    session = await handler.session()
    block = ("y" * 70 + "\n") * 15_000  # ~1 MB per send
    for _ in range(64):
        session.send(block)
        if not session.connected:
            break
    assert not session.connected
    assert server.counters["output_overflow"] == 1
    await handler.wait_until(lambda: bool(handler.closed))
    writer.close()


async def test_stop_during_negotiation_never_reaches_the_handler(
    make_server: Callable[..., Awaitable[TelnetServer]], connect: Connect, handler: FakeHandler
) -> None:
    server = await make_server(NetLimits(negotiation_timeout=5.0))
    client = await connect(server, "silent")  # would keep negotiation pending for 5 s
    await client.wait_for(lambda: bool(client.commands))  # the server is talking to it
    await asyncio.wait_for(server.stop("bye"), 5)
    await client.wait_eof()
    assert handler.opened == []
    assert handler.closed == []
    assert server.connection_count == 0


def count_writes(session: Any) -> list[bytes]:
    """Every transport.write of the session's connection, from now on."""
    transport = session._proto._transport
    writes: list[bytes] = []
    write = transport.write

    def counted(data: bytes) -> None:
        writes.append(bytes(data))
        write(data)

    transport.write = counted
    return writes


async def test_a_response_and_its_prompt_go_out_in_one_write(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, "refuse")
    session = await handler.session()
    writes = count_writes(session)
    session.send("You look around.")
    session.send("Brin is here.")
    session.prompt("> ")
    assert writes == [b"You look around.\r\nBrin is here.\r\n> \xff\xf9"]  # ... IAC GA
    await client.wait_for(lambda: client.ga_count >= 1)
    assert client.text().endswith("You look around.\r\nBrin is here.\r\n> ")


async def test_output_without_a_prompt_is_written_within_the_loop_turn(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, "refuse")
    session = await handler.session()
    writes = count_writes(session)
    session.send("Brin arrives from the north.")
    session.send("Brin says, 'Hello.'")
    assert writes == []  # queued ...
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert writes == [b"Brin arrives from the north.\r\nBrin says, 'Hello.'\r\n"]  # ... once
    await client.wait_text("Hello.'\r\n")


async def test_a_crowds_prompts_are_spread_over_a_moment(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    for index in range(4):
        await connect(server, "refuse")
        await handler.session(index)
    loop = asyncio.get_running_loop()
    delays = []
    for session in handler.opened:
        assert isinstance(session, TelnetSession)
        session.send("Ann, Bo and 12 others arrive from the north.")
        assert session._reprompt is not None
        delays.append(session._reprompt.when() - loop.time())
    assert all(REPROMPT_DELAY - 0.05 <= d <= REPROMPT_DELAY + REPROMPT_SPREAD for d in delays)
    # Not one moment for all of them: each session's share of the spread is its own.
    assert len({round(d, 4) for d in delays}) > 2


async def test_output_to_a_crowd_is_written_a_batch_of_connections_per_loop_turn(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    clients = [await connect(server, "refuse") for _ in range(3)]
    sessions = [await handler.session(i) for i in range(3)]
    writes = [count_writes(session) for session in sessions]
    server.output.batch = 2
    for session in sessions:
        session.send("Ann, Bo and 12 others arrive from the north.")
    assert server.output.waiting == 3
    await asyncio.sleep(0)
    # Two connections in this turn; the loop reads and answers before the third.
    assert [len(w) for w in writes] == [1, 1, 0]
    await asyncio.sleep(0)
    assert [len(w) for w in writes] == [1, 1, 1]
    assert server.output.waiting == 0
    for client in clients:
        await client.wait_text("north.\r\n")


async def test_a_prompt_is_not_kept_waiting_by_a_crowds_output(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    await connect(server, "refuse")
    await connect(server, "refuse")
    crowd, player = await handler.session(0), await handler.session(1)
    server.output.batch = 1
    crowd.send("Someone shouts.")
    player.send("Someone shouts.")
    writes = count_writes(player)
    # The answer ends with its prompt and goes at once, the text before it with it.
    player.prompt("> ")
    assert writes == [b"Someone shouts.\r\n> \xff\xf9"]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert len(writes) == 1  # nothing was left for the pacer's turn


def test_a_pacer_writes_in_the_order_asked_and_refuses_an_empty_batch() -> None:
    from maid_engine.net.pacing import OutputPacer

    with pytest.raises(ValueError, match="at least 1"):
        OutputPacer(0)

    async def run() -> list[int]:
        written: list[int] = []

        class Conn:
            def __init__(self, n: int) -> None:
                self.n = n

            def flush_queued(self) -> None:
                written.append(self.n)

        pacer = OutputPacer(batch=2)
        for n in range(5):
            pacer.add(Conn(n))
        turns = []
        while pacer.waiting:
            await asyncio.sleep(0)
            turns.append(list(written))
        assert turns == [[0, 1], [0, 1, 2, 3], [0, 1, 2, 3, 4]]
        return written

    assert asyncio.run(run()) == [0, 1, 2, 3, 4]


def test_a_pacer_stops_a_turn_when_its_time_is_spent() -> None:
    # What a write costs is the kernel's and moves with the machine: a count of
    # connections that is 1 ms on a quiet machine was 3 ms on a busy one.
    from maid_engine.net.pacing import OutputPacer

    with pytest.raises(ValueError, match="positive"):
        OutputPacer(budget=0)

    async def run() -> list[list[int]]:
        now = [0.0]
        written: list[int] = []

        class Conn:
            def __init__(self, n: int, cost: float) -> None:
                self.n, self.cost = n, cost

            def flush_queued(self) -> None:
                written.append(self.n)
                now[0] += self.cost

        pacer = OutputPacer(batch=48, budget=0.0005, clock=lambda: now[0])
        # Two cheap writes fit a turn; a slow one ends it on its own; the rest wait.
        for n, cost in enumerate((0.0002, 0.0002, 0.0002, 0.002, 0.0001, 0.0001)):
            pacer.add(Conn(n, cost))
        turns = []
        while pacer.waiting:
            await asyncio.sleep(0)
            turns.append(list(written))
        return turns

    assert asyncio.run(run()) == [[0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3, 4, 5]]


async def test_plain_typed_lines_skip_the_telnet_parser_and_commands_still_reach_it(
    server: TelnetServer, connect: Connect, handler: FakeHandler, monkeypatch: Any
) -> None:
    import telnetlib3

    parsed: list[bytes] = []
    parse = telnetlib3.TelnetServer.data_received

    def spy(self: Any, data: bytes) -> None:
        parsed.append(data)
        parse(self, data)

    monkeypatch.setattr(telnetlib3.TelnetServer, "data_received", spy)
    client = await connect(server, "mud")
    session = await handler.session()
    await handler.wait_until(lambda: session.caps.width == 100)  # NAWS was parsed
    # (The first read after a telnet command may still go through telnetlib3: it
    # is where telnetlib3 notes that the command is over.)
    client.send_line("look")
    await handler.wait_until(lambda: handler.lines_of(session) == ["look"])
    parsed.clear()
    client.send_line("north")
    await handler.wait_until(lambda: handler.lines_of(session) == ["look", "north"])
    assert parsed == []  # a plain line went straight to the session
    # A read with a telnet command in it goes through telnetlib3, the text with it.
    client.send_raw(b"say hi\r\n" + bytes([IAC_, SB_, NAWS_, 0, 90, 0, 30, IAC_, SE_]))
    await handler.wait_until(lambda: session.caps.width == 90)
    assert handler.lines_of(session) == ["look", "north", "say hi"]
    assert len(parsed) == 1


async def test_queued_text_keeps_its_place_before_telnet_commands(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, "mud")
    session = await handler.session()
    await handler.wait_until(lambda: session.caps.gmcp)
    writes = count_writes(session)
    session.send("Password:")
    session.set_echo(False)  # IAC WILL ECHO: after the text it follows
    session.send("The room.")
    session.send_gmcp("Room.Info", {"num": 1})  # after the room's text too
    assert writes[0] == b"Password:\r\n"
    assert writes[1].startswith(b"\xff\xfb\x01")
    assert writes[2] == b"The room.\r\n"
    assert writes[3].startswith(b"\xff\xfa\xc9Room.Info")
    await client.wait_for(lambda: bool(client.subneg))
    wire = bytes(client.wire)
    assert wire.index(b"Password:") < wire.index(b"\xff\xfb\x01") < wire.index(b"The room.")
    assert wire.index(b"The room.") < wire.index(b"Room.Info")


async def test_a_big_output_is_not_held_back(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, "refuse")
    session = await handler.session()
    writes = count_writes(session)
    session.send("z" * 70_000)
    assert len(writes) == 1
    assert len(writes[0]) >= 70_000
    await client.wait_text("zzz\r\n")


async def test_output_on_its_own_asks_for_a_prompt_once(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, "refuse")
    session = await handler.session()
    assert isinstance(session, TelnetSession)
    session.send("someone tells you, 'hi'")
    session.send("and again")
    await handler.wait_until(lambda: bool(handler.idle_output))
    assert handler.idle_output == [session.id]  # one per burst
    # A prompt right after the text: nothing more is asked for when it is due.
    session.send("a round of the fight")
    session.prompt("<20hp> ")
    await client.wait_text("<20hp> ")
    session._reprompt_due()
    assert handler.idle_output == [session.id]
    # A line typed meanwhile cancels it: the answer ends with its own prompt.
    session.send("a shout from afar")
    assert session._reprompt is not None
    client.send_line("look")
    await handler.wait_until(lambda: bool(handler.lines))
    assert session._reprompt is None


async def test_output_while_answering_input_waits_for_the_answers_prompt(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    async def on_line(session: Any, line: str) -> None:
        session.send(f"you typed {line}")

    handler.on_line = on_line
    client = await connect(server, "refuse")
    session = await handler.session()
    client.send_line("look")
    await client.wait_text("you typed look")
    await asyncio.sleep(0)
    assert handler.idle_output == []
    # The transport's own notice (a line too long) is output on its own.
    client.send_raw(b"z" * 20_000 + b"\r\n")
    await client.wait_text("Line too long")
    await handler.wait_until(lambda: handler.idle_output == [session.id])


async def test_a_connection_builds_no_slc_table_until_one_is_needed(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    from telnetlib3 import slc

    await connect(server, "mud")
    session = await handler.session()
    assert isinstance(session, TelnetSession)
    writer = session._proto.writer  # type: ignore[attr-defined]
    # Nothing kept for LINEMODE's table while no client asked for it ...
    assert writer._lazy_slctab is None
    assert writer._lazy_slc_buffer is None
    # ... and telnetlib3's default, the same as it would have built, when one does.
    table = writer.slctab
    default = slc.generate_slctab(writer.default_slc_tab)
    assert {k: (v.mask, v.val) for k, v in table.items()} == {
        k: (v.mask, v.val) for k, v in default.items()
    }
    assert writer.slctab is table
    writer.slctab = {}
    assert writer.slctab == {}
    writer._slc_buffer.append(b"x")
    assert list(writer._slc_buffer) == [b"x"]


async def test_a_sessions_inbox_keeps_no_asyncio_queue(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, "refuse")
    session = await handler.session()
    assert isinstance(session, TelnetSession)
    # What an asyncio.Queue would keep for a worker that is only ever one (three
    # deques): one deque, and a future only while the worker waits.
    assert not any(isinstance(v, asyncio.Queue) for v in vars(session).values())
    client.send_line("one")
    client.send_line("two")
    await handler.wait_until(lambda: handler.lines_of(session) == ["one", "two"])
    assert len(session._inbox) == 0
