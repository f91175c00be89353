"""Option negotiation against raw-socket clients: NAWS, TTYPE/MTTS, ECHO, GMCP, MSSP, EOR."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import pytest
from net.conftest import decode_mssp
from telnetlib3.telopt import DO, ECHO, EOR, GMCP, MSSP, NAWS, SGA, WILL, WONT

from maid_engine.net import TelnetServer
from maid_engine.sessions import ColorMode

if TYPE_CHECKING:
    from net.conftest import FakeHandler


Connect = Callable[..., Awaitable[Any]]

WORDS = " ".join(f"word{i:03d}" for i in range(60))  # 8 columns per word


def _visible_lines(text: str) -> list[str]:
    return re.sub(r"\x1b\[[0-9;]*m", "", text).split("\r\n")


async def test_open_and_lines_in_order(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server)
    session = await handler.session()
    assert session.peer_host == "127.0.0.1"
    assert session in server.sessions
    client.send_raw(b"".join(f"line {i}\r\n".encode() for i in range(20)))
    await handler.wait_until(lambda: len(handler.lines) == 20)
    assert handler.lines_of(session) == [f"line {i}" for i in range(20)]


async def test_naws_wraps_output_and_follows_resize(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, naws=(40, 20))
    session = await handler.session()
    assert (session.caps.width, session.caps.height) == (40, 20)
    session.send(WORDS)
    await client.wait_text("word059")
    lines = _visible_lines(client.text())
    assert max(len(line) for line in lines) <= 40
    assert max(len(line) for line in lines) > 30

    client.send_naws(100, 30)
    await handler.wait_until(lambda: bool(handler.resized))
    assert handler.resized == [(session.id, 100, 30)]
    assert session.caps.width == 100
    client.data.clear()
    session.send(WORDS)
    await client.wait_text("word059")
    lines = _visible_lines(client.text())
    assert 90 < max(len(line) for line in lines) <= 100


async def test_mtts_client_gets_truecolor(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server)  # MUDLET / XTERM-256COLOR / MTTS 271, CHARSET UTF-8
    session = await handler.session()
    caps = session.caps
    assert caps.color is ColorMode.TRUECOLOR
    assert caps.utf8
    assert caps.mtts == 271
    assert caps.client_name == "MUDLET"
    assert caps.terminal == "XTERM-256COLOR"
    session.send("|rred|n |#102030rgb|n")
    await client.wait_text("rgb")
    assert "\x1b[31mred\x1b[0m \x1b[38;2;16;32;48mrgb\x1b[0m\r\n" in client.text()


@pytest.mark.parametrize(
    ("ttypes", "mode"),
    [
        (["ANSI", "VT100"], ColorMode.ANSI16),
        (["xterm-256color"], ColorMode.XTERM256),
        (["TINTIN++", "xterm", "MTTS 9"], ColorMode.XTERM256),
        (["dumb"], ColorMode.NONE),
    ],
)
async def test_ttype_chooses_colour_mode(
    server: TelnetServer, connect: Connect, handler: FakeHandler, ttypes: list[str], mode: ColorMode
) -> None:
    await connect(server, ttypes=ttypes, charset=None)
    session = await handler.session()
    assert session.caps.color is mode


@pytest.mark.parametrize("profile", ["refuse", "silent"])
async def test_plain_clients_get_a_working_session_without_escapes(
    server: TelnetServer, connect: Connect, handler: FakeHandler, profile: str
) -> None:
    client = await connect(server, profile)
    session = await handler.session()
    assert session.caps.color is ColorMode.NONE
    assert not session.caps.gmcp
    session.send("|rred|n |#ff0000also|n |[bblue")
    session.prompt("> ")
    client.send_line("hello")
    await handler.wait_until(lambda: handler.lines_of(session) == ["hello"])
    await client.wait_text("> ")
    assert b"\x1b" not in client.wire
    assert client.text().startswith("red also blue\r\n> ")
    assert session.connected


async def test_password_echo_for_a_mud_client(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, do={SGA[0], ECHO[0], EOR[0]})
    session = await handler.session()
    assert not client.saw(WILL, ECHO)  # MUD clients echo locally from the start

    session.set_echo(False)
    await client.wait_for(lambda: client.saw(WILL, ECHO))
    client.send_line("secret")
    await handler.wait_until(lambda: handler.lines_of(session) == ["secret"])

    session.set_echo(True)
    await client.wait_for(lambda: client.saw(WONT, ECHO))
    client.send_line("visible")
    await handler.wait_until(lambda: len(handler.lines) == 2)
    session.send("done")
    await client.wait_text("done")
    # The server never echoed: the client hid the password, then echoed locally again.
    assert "secret" not in client.text()
    assert "visible" not in client.text()


async def test_kludge_mode_server_echo(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    # A plain terminal (not a MUD client) agrees to WILL ECHO: the server must echo.
    client = await connect(server, ttypes=["xterm"], do={SGA[0], ECHO[0]})
    session = await handler.session()
    await client.wait_for(lambda: client.saw(WILL, ECHO))
    client.send_raw(b"hi\r\n")
    await client.wait_text("hi\r\n")

    session.set_echo(False)
    client.send_raw(b"pass")
    client.send_raw(b"word\r\n")
    await handler.wait_until(lambda: handler.lines_of(session) == ["hi", "password"])
    await client.wait_text("hi\r\n\r\n")  # only the end of the hidden line is echoed
    session.set_echo(True)
    client.send_raw(b"abc\x7f\x7fz\r\n")
    await handler.wait_until(lambda: len(handler.lines) == 3)
    assert handler.lines_of(session)[2] == "az"
    await client.wait_text("abc\b \b\b \bz\r\n")
    assert "pass" not in client.text()
    assert not client.saw(WONT, ECHO)


async def test_gmcp_hello_supports_and_messages(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server)
    session = await handler.session()
    assert session.caps.gmcp
    client.send_gmcp("Core.Hello", {"client": "Mudlet", "version": "4.17.2"})
    client.send_gmcp("Core.Supports.Set", ["Char 1", "Room 1", "b@d 1", 7])
    client.send_gmcp("Core.Supports.Add", ["Comm.Channel 1"])
    client.send_gmcp("Core.Supports.Remove", ["Room 1"])
    client.send_raw(b"\xff\xfa\xc9Char.Broken {not json\xff\xf0")
    client.send_gmcp("Char.Login", {"name": "bob"})
    await handler.wait_until(lambda: bool(handler.gmcp))
    assert handler.gmcp == [(session.id, "Char.Login", {"name": "bob"})]
    assert (session.caps.client_name, session.caps.client_version) == ("Mudlet", "4.17.2")
    assert session.caps.gmcp_supports == {"Char", "Comm.Channel"}

    session.send_gmcp("Char.Vitals", {"hp": 10, "name": "b\u00f6b\x1b"})
    session.send_gmcp("bad package", {})
    # Core.Supports gates the rest: Room was removed, World never asked for.
    session.send_gmcp("Room.Info", {"num": 1})
    session.send_gmcp("World.State", {})
    session.send_gmcp("Comm.Channel.Text", {"text": "hi"})
    session.send_gmcp("Char.Quests", [])
    session.send("after")
    await client.wait_text("after")
    assert client.gmcp_messages() == [
        ("Char.Vitals", {"hp": 10, "name": "b\u00f6b\x1b"}),
        ("Comm.Channel.Text", {"text": "hi"}),
        ("Char.Quests", []),
    ]
    assert b"\x1b" not in b"".join(client.subnegotiations(GMCP))  # JSON escapes it


async def test_send_gmcp_is_a_noop_without_gmcp(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, do={SGA[0], EOR[0]})  # refuses WILL GMCP
    session = await handler.session()
    assert not session.caps.gmcp
    session.send_gmcp("Char.Vitals", {"hp": 1})
    session.send("after")
    await client.wait_text("after")
    assert client.subnegotiations(GMCP) == []


async def test_mssp_table(server: TelnetServer, connect: Connect, handler: FakeHandler) -> None:
    handler.mssp = {"NAME": "TestMUD", "PLAYERS": "3", "GENRE": ["Fantasy", "Bad\x01Val"]}
    client = await connect(server)
    await client.wait_for(lambda: bool(client.subnegotiations(MSSP)))
    table = decode_mssp(client.subnegotiations(MSSP)[0])
    assert table["NAME"] == ["TestMUD"]
    assert table["PLAYERS"] == ["3"]
    assert table["GENRE"] == ["Fantasy", "BadVal"]
    assert table["PORT"] == [str(server.port)]
    for key, value in {"ANSI": "1", "UTF-8": "1", "GMCP": "1", "MSSP": "1", "MCCP": "1"}.items():
        assert table[key] == [value]


async def test_prompt_ends_with_eor_when_negotiated(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server)
    session = await handler.session()
    # The offer is on the wire before the session exists, but the client may not
    # have read it yet: waiting for it (not asserting it) keeps this from racing.
    await client.wait_for(lambda: client.saw(WILL, EOR))
    session.prompt("HP 10> ")
    await client.wait_for(lambda: client.eor_count == 1)
    assert client.text().endswith("HP 10> ")
    assert client.ga_count == 0
    session.send("news")  # starts on a fresh line, not glued to the prompt
    await client.wait_text("news")
    assert client.text().endswith("HP 10> \r\nnews\r\n")


async def test_answers_after_the_negotiation_timeout_still_bring_the_offers(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    # The first answer comes only once negotiation has timed out and the session
    # started: the options offered after a first answer must follow it all the same.
    client = await connect(server, silent=True)
    session = await handler.session()
    assert not client.saw(WILL, EOR)
    client.wake()
    await client.wait_for(lambda: client.saw(WILL, EOR) and client.saw(WILL, GMCP))
    await client.wait_for(lambda: client.saw(DO, NAWS))
    await handler.wait_until(lambda: session.caps.gmcp and session.caps.width == 100)
    session.prompt("> ")
    await client.wait_for(lambda: client.eor_count == 1)
    assert client.ga_count == 0


async def test_prompt_ends_with_ga_without_eor_or_sga(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, do=set())
    session = await handler.session()
    session.prompt("> ")
    await client.wait_for(lambda: client.ga_count == 1)
    assert client.eor_count == 0


async def test_no_ga_when_sga_agreed(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, do={SGA[0]})
    session = await handler.session()
    session.prompt("> ")
    session.send("marker")
    await client.wait_text("marker")
    assert client.ga_count == 0
    assert client.eor_count == 0


async def test_server_offers_gmcp_mssp_eor(server: TelnetServer, connect: Connect) -> None:
    client = await connect(server)
    await client.wait_for(lambda: client.saw(WILL, MSSP))
    for opt in (GMCP, MSSP, EOR):
        assert client.saw(WILL, opt)
    assert not client.saw(DO, GMCP)


async def test_client_initiated_charset_request(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server, "refuse")
    session = await handler.session()
    assert not session.caps.utf8
    client.send_raw(b"\xff\xfa\x2a\x01;ISO-8859-1\xff\xf0")
    client.send_raw(b"\xff\xfa\x2a\x01;ISO-8859-1;UTF-8\xff\xf0")
    await client.wait_for(lambda: len(client.subnegotiations(42)) == 2)
    assert client.subnegotiations(42) == [b"\x03", b"\x02UTF-8"]  # REJECTED, ACCEPTED
    assert session.caps.utf8


async def test_session_satisfies_the_contract(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    from maid_engine.sessions import Session

    await connect(server)
    session = await handler.session()
    assert isinstance(session, Session)
    assert session.account_id is None
    assert session.character_id is None
    assert session.data == {}
    assert len(session.id) == 32
