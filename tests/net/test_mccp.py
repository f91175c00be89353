"""MCCP2: the server offers COMPRESS2, compresses everything after the start marker
once the client says DO, ends the stream on DONT, on closing, and never over TLS."""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from net.conftest import (
    COMPRESS2,
    COMPRESS3,
    DONT,
    EOR,
    GMCP,
    IAC,
    MSSP,
    NAWS,
    PROFILES,
    SB,
    SE,
    SGA,
    TIMEOUT,
    WILL,
    WONT,
    FakeHandler,
    RawClient,
    decode_mssp,
)
from tlspair import cert_pair, client_context

from maid_engine.net import TelnetServer
from maid_engine.net.mccp import START_MARKER, WireTransport
from maid_engine.net.protocol import MaidTelnetProtocol
from maid_engine.sessions import Session
from maid_engine.tls import server_context

Connect = Callable[..., Awaitable[RawClient]]
MCCP_DO: set[int] = {*PROFILES["mud"]["do"], COMPRESS2}
MCCP_CLIENT: dict[str, Any] = {**PROFILES["mud"], "do": MCCP_DO}
ROOM = (
    "Hamlet Green\nThe green is cobbled and worn; a well stands in its middle, "
    "and the smithy's smoke drifts over the roofs.\nExits: north, east, south, west\n"
)


def protocol_of(session: Session) -> MaidTelnetProtocol:
    proto = session._proto  # type: ignore[attr-defined]
    assert isinstance(proto, MaidTelnetProtocol)
    return proto


async def compressed_session(
    server: TelnetServer, connect: Connect, handler: FakeHandler, **profile: Any
) -> tuple[RawClient, Session]:
    client = await connect(server, **{**MCCP_CLIENT, **profile})
    session = await handler.session()
    await client.wait_for(lambda: client.streams_started == 1)
    return client, session


async def test_a_client_that_asks_gets_everything_after_the_marker_compressed(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client, session = await compressed_session(server, connect, handler)
    assert client.saw(WILL, COMPRESS2)
    marker_at = bytes(client.wire).index(START_MARKER)
    for _ in range(20):
        session.send(ROOM)
    session.prompt("HP 30> ")
    await client.wait_for(lambda: client.eor_count == 1)
    assert client.text().count("Exits: north, east, south, west") == 20
    assert client.text().endswith("HP 30> ")
    # Nothing after the marker can be read without inflating it ...
    after = bytes(client.wire)[marker_at + len(START_MARKER) :]
    assert b"Hamlet Green" not in after
    # ... and repeated room text shrinks a lot.
    assert len(after) * 5 < client.inflated
    wire = protocol_of(session).wire
    assert wire is not None
    assert wire.compressing
    assert wire.wire_bytes < wire.plain_bytes
    # Input still works (MCCP2 only compresses what the server sends).
    client.send_line("look")
    await handler.wait_until(lambda: handler.lines_of(session) == ["look"])


async def test_gmcp_and_mssp_travel_inside_the_stream(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client, session = await compressed_session(server, connect, handler)
    await client.wait_for(lambda: bool(client.subnegotiations(MSSP)))
    assert decode_mssp(client.subnegotiations(MSSP)[0])["MCCP"] == ["1"]
    client.send_gmcp("Core.Supports.Set", ["Char 1"])
    client.send_line("ready")  # read after the GMCP before it
    await handler.wait_until(lambda: handler.lines_of(session) == ["ready"])
    assert "Char" in session.caps.gmcp_supports
    session.send_gmcp("Char.Vitals", {"hp": 7, "maxhp": 30})
    await client.wait_for(lambda: ("Char.Vitals", {"hp": 7, "maxhp": 30}) in client.gmcp_messages())
    assert client.streams_started == 1


async def test_do_compress2_in_the_same_read_as_naws_and_gmcp(
    server: TelnetServer, handler: FakeHandler
) -> None:
    """A client that answers everything in one packet: the replies telnetlib3 writes
    while reading it come before the marker, and everything after it inflates."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    client = RawClient(reader, writer, **{**MCCP_CLIENT, "naws": None})
    try:
        await client.wait_for(lambda: client.saw(WILL, COMPRESS2))
        naws = bytes([IAC, SB, NAWS, 0, 120, 0, 40, IAC, SE])
        hello = bytes([IAC, SB, GMCP]) + b'Core.Hello {"client": "Burst", "version": "1"}'
        client.send_raw(naws + hello + bytes([IAC, SE]))
        session = await handler.session()
        await client.wait_for(lambda: client.streams_started == 1)
        await handler.wait_until(lambda: session.caps.client_name == "Burst")
        assert session.caps.width == 120
        session.send("all of it arrives")
        await client.wait_text("all of it arrives")
    finally:
        await client.close()


async def test_dont_ends_the_stream_and_do_starts_a_new_one(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client, session = await compressed_session(server, connect, handler)
    session.send("squeezed")
    await client.wait_text("squeezed")
    client.send_raw(bytes([IAC, DONT, COMPRESS2]))
    await client.wait_for(lambda: client.streams_ended == 1)
    wire = protocol_of(session).wire
    assert wire is not None
    assert not wire.compressing
    session.send("plain again")
    await client.wait_text("plain again")
    assert bytes(client.wire).endswith(b"plain again\r\n")
    # The client may change its mind: a fresh stream with a fresh marker.
    client.send_raw(bytes([IAC, 253, COMPRESS2]))
    await client.wait_for(lambda: client.streams_started == 2)
    session.send("squeezed again")
    await client.wait_text("squeezed again")
    assert not bytes(client.wire).endswith(b"squeezed again\r\n")


async def test_closing_finishes_the_stream_before_the_socket(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client, session = await compressed_session(server, connect, handler)
    session.close("Goodbye!")
    await client.wait_eof()
    assert client.text().endswith("Goodbye!\r\n")
    assert client.streams_ended == 1  # the client saw Z_FINISH, not a cut stream


async def test_a_client_that_refuses_is_never_compressed(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server)
    session = await handler.session()
    await client.wait_for(lambda: client.saw(WILL, COMPRESS2))
    session.send("plain text")
    await client.wait_text("plain text")
    assert START_MARKER not in bytes(client.wire)
    assert client.streams_started == 0


async def test_mccp3_is_refused(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server)
    await handler.session()
    client.send_raw(bytes([IAC, WILL, COMPRESS3]))
    await client.wait_for(lambda: client.saw(DONT, COMPRESS3))


async def test_a_failing_compressor_drops_the_connection(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client, session = await compressed_session(server, connect, handler)

    class Broken:
        def compress(self, data: bytes) -> bytes:
            raise zlib.error("out of memory")

        def flush(self, mode: int = zlib.Z_FINISH) -> bytes:
            raise zlib.error("out of memory")

    wire = protocol_of(session).wire
    assert wire is not None
    wire._deflate = Broken()
    session.send("this cannot be compressed")
    await client.wait_eof()
    assert "this cannot be compressed" not in client.text()
    await handler.wait_until(lambda: session in handler.closed)


async def test_ending_a_broken_stream_aborts_too(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client, session = await compressed_session(server, connect, handler)

    class Broken:
        def flush(self, mode: int = zlib.Z_FINISH) -> bytes:
            raise zlib.error("stream state inconsistent")

    wire = protocol_of(session).wire
    assert wire is not None
    wire._deflate = Broken()
    wire.end_compression()
    await client.wait_eof()
    assert not wire.compressing


async def test_no_compression_over_tls(
    make_server: Callable[..., Awaitable[TelnetServer]], handler: FakeHandler, tmp_path: Path
) -> None:
    cert, key = cert_pair(tmp_path)
    server = await make_server(tls_port=0, tls_context=server_context(cert, key))
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(
            server.host, server.tls_port, ssl=client_context(cert), server_hostname="localhost"
        ),
        TIMEOUT,
    )
    client = RawClient(reader, writer, **MCCP_CLIENT)
    try:
        await handler.session()
        await client.wait_for(lambda: bool(client.subnegotiations(MSSP)))
        assert not client.saw(WILL, COMPRESS2)
        assert decode_mssp(client.subnegotiations(MSSP)[0])["MCCP"] == ["0"]
        # Asking anyway is refused.
        client.send_raw(bytes([IAC, 253, COMPRESS2]))
        await client.wait_for(lambda: client.saw(WONT, COMPRESS2))
        assert client.streams_started == 0
    finally:
        await client.close()


PROTOCOL = asyncio.Protocol()


def test_the_wire_transport_passes_everything_else_through() -> None:
    class Inner(asyncio.Transport):
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[str] = []
            self.data = b""

        def write(self, data: Any) -> None:
            self.data += bytes(data)

        def is_closing(self) -> bool:
            return False

        def __getattribute__(self, name: str) -> Any:
            if name in {
                "pause_reading", "resume_reading", "write_eof", "close", "abort", "set_protocol",
            }:  # fmt: skip
                calls: list[str] = object.__getattribute__(self, "calls")
                return lambda *a: calls.append(name)
            return object.__getattribute__(self, name)

        def is_reading(self) -> bool:
            return True

        def can_write_eof(self) -> bool:
            return True

        def get_protocol(self) -> asyncio.BaseProtocol:
            return PROTOCOL

        def get_write_buffer_size(self) -> int:
            return 3

        def get_write_buffer_limits(self) -> tuple[int, int]:
            return (1, 2)

        def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
            self.calls.append(f"limits {high} {low}")

        def get_extra_info(self, name: str, default: Any = None) -> Any:
            return {"peername": ("1.2.3.4", 5)}.get(name, default)

    inner = Inner()
    wire = WireTransport(inner)
    assert wire.inner is inner
    wire.writelines([b"a", b"b"])
    wire.write(b"")
    assert inner.data == b"ab"
    wire.start_compression()
    wire.start_compression()  # once is enough
    wire.write(b"zzzz")
    wire.write_eof()  # ends the stream first
    stream = inner.data[2 + len(START_MARKER) :]
    assert zlib.decompress(stream) == b"zzzz"
    wire.pause_reading()
    wire.resume_reading()
    wire.set_write_buffer_limits(10, 5)
    wire.close()
    wire.abort()
    assert inner.calls == [
        "write_eof", "pause_reading", "resume_reading", "limits 10 5", "close", "abort",
    ]  # fmt: skip
    assert wire.is_reading()
    assert wire.can_write_eof()
    assert wire.get_write_buffer_size() == 3
    assert wire.get_write_buffer_limits() == (1, 2)
    assert wire.get_extra_info("peername") == ("1.2.3.4", 5)
    assert wire.get_extra_info("ssl_object") is None
    assert not wire.is_closing()
    wire.set_protocol(asyncio.Protocol())
    assert inner.calls[-1] == "set_protocol"
    assert wire.get_protocol() is inner.get_protocol()
    # Nothing is written to a transport that is closing.
    before = inner.data
    inner.is_closing = lambda: True  # type: ignore[method-assign]
    wire.write(b"too late")
    assert inner.data == before
    assert wire.is_closing()


@pytest.mark.parametrize("eor", [True, False])
async def test_prompt_markers_survive_compression(
    server: TelnetServer, connect: Connect, handler: FakeHandler, eor: bool
) -> None:
    # Without EOR (and SGA, under which there is no GA) a prompt ends with IAC GA.
    do = MCCP_DO if eor else MCCP_DO - {EOR, SGA}
    client, session = await compressed_session(server, connect, handler, do=do)
    session.prompt("> ")
    await client.wait_for(lambda: client.eor_count + client.ga_count >= 1)
    assert (client.eor_count == 1) is eor


async def test_an_unasked_for_compressed_input_stream_is_not_inflated(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    """MCCP3 is refused, so a client's own start marker for it changes nothing: what
    follows is read as it comes (a zlib bomb would otherwise get past every input
    limit, which count the bytes before inflating)."""
    client = await connect(server)
    session = await handler.session()
    client.send_raw(bytes([IAC, SB, COMPRESS3, IAC, SE]) + b"first\r\n")
    # The marker's read is over before the next one comes.
    await handler.wait_until(lambda: handler.lines_of(session) == ["first"])
    deflate = zlib.compressobj()
    client.send_raw(deflate.compress(b"bomb\r\n") + deflate.flush(zlib.Z_SYNC_FLUSH))
    client.send_raw(b"\r\nlook\r\n")
    lines = handler.lines_of
    await handler.wait_until(lambda: "look" in lines(session) or "bomb" in lines(session))
    assert "bomb" not in lines(session)
    await handler.wait_until(lambda: "look" in lines(session))


async def test_a_client_sending_the_mccp2_marker_loses_nothing(
    server: TelnetServer, connect: Connect, handler: FakeHandler
) -> None:
    client = await connect(server)
    session = await handler.session()
    client.send_raw(bytes([IAC, SB, COMPRESS2, IAC, SE]) + b"look\r\n")
    await handler.wait_until(lambda: handler.lines_of(session) == ["look"])
