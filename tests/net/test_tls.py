"""Telnet over TLS: a second listener on the same sessions, limits and MSSP table."""

from __future__ import annotations

import asyncio
import dataclasses
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from net.conftest import MSSP, TEST_LIMITS, TIMEOUT, FakeHandler, RawClient, decode_mssp
from tlspair import cert_pair, client_context

from maid_engine.net import TelnetServer
from maid_engine.sessions import Session
from maid_engine.tls import server_context

MakeServer = Callable[..., Awaitable[TelnetServer]]


async def tls_connect(server: TelnetServer, cert: Path, **profile: object) -> RawClient:
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(
            server.host,
            server.tls_port,
            ssl=client_context(cert),
            server_hostname="localhost",
        ),
        TIMEOUT,
    )
    options = {
        "will": {24, 31, 42, 0},
        "do": {3, 0, 25, 201, 70, 42},
        "ttypes": ["MUDLET", "XTERM-256COLOR", "MTTS 271"],
        "naws": (100, 40),
        "charset": "UTF-8",
        **profile,
    }
    return RawClient(reader, writer, **options)  # type: ignore[arg-type]


async def start_tls(
    make_server: MakeServer, tmp_path: Path, **limits: Any
) -> tuple[TelnetServer, Path]:
    """A server with a TLS listener and the test limits changed by ``limits``; and
    the certificate a client trusts."""
    cert, key = cert_pair(tmp_path)
    server = await make_server(
        dataclasses.replace(TEST_LIMITS, **limits),
        tls_port=0,
        tls_context=server_context(cert, key),
    )
    return server, cert


@pytest.fixture
async def tls_server(make_server: MakeServer, tmp_path: Path) -> TelnetServer:
    return (await start_tls(make_server, tmp_path))[0]


async def test_a_tls_client_gets_a_session_like_any_other(
    tls_server: TelnetServer, handler: FakeHandler, tmp_path: Path
) -> None:
    async def echo(session: Session, line: str) -> None:
        session.send(f"you said: {line}")

    handler.on_line = echo
    assert tls_server.tls_port not in (0, tls_server.port)
    client = await tls_connect(tls_server, tmp_path / "tls" / "cert.pem")
    try:
        session = await handler.session()
        assert session.caps.gmcp
        assert session.caps.width == 100
        client.send_line("hello over tls")
        await client.wait_text("you said: hello over tls")
        assert handler.lines_of(session) == ["hello over tls"]
        assert session in tls_server.sessions
        # MSSP names the TLS port under SSL, whichever listener it is asked on.
        await client.wait_for(lambda: bool(client.subnegotiations(MSSP)))
        table = decode_mssp(client.subnegotiations(MSSP)[0])
        assert table["SSL"] == [str(tls_server.tls_port)]
        assert table["PORT"] == [str(tls_server.port)]
    finally:
        await client.close()


async def test_plain_and_tls_connections_share_the_per_address_limit(
    make_server: MakeServer, handler: FakeHandler, tmp_path: Path
) -> None:
    server, cert = await start_tls(make_server, tmp_path, max_connections_per_ip=1)
    reader, writer = await asyncio.open_connection(server.host, server.port)
    plain = RawClient(reader, writer)
    try:
        await handler.session()
        refused = await tls_connect(server, cert)
        await refused.wait_eof()
        assert "Too many connections from your address" in refused.text()
        assert server.counters["per_ip"] == 1
        await refused.close()
    finally:
        await plain.close()


@pytest.mark.parametrize("sent", [b"", b"look\r\n"], ids=["silent", "plain-telnet"])
async def test_a_client_without_a_tls_handshake_gets_no_session(
    make_server: MakeServer, handler: FakeHandler, tmp_path: Path, sent: bytes
) -> None:
    """One that never sends a ClientHello is given up on after the handshake
    timeout; one that talks plain telnet fails the handshake. Neither gets a
    session, and neither holds a connection slot meanwhile."""
    server, _ = await start_tls(make_server, tmp_path, tls_handshake_timeout=0.3)
    reader, writer = await asyncio.open_connection(server.host, server.tls_port)
    try:
        assert server.connection_count == 0
        writer.write(sent)
        try:
            answer = await asyncio.wait_for(reader.read(), TIMEOUT)
        except ConnectionError:
            answer = b""  # a reset is as good as a close here
        if not sent:
            assert answer == b""  # closed without a word
        assert handler.opened == []
        assert server.connection_count == 0
    finally:
        writer.close()


async def test_without_tls_mssp_says_ssl_0(
    server: TelnetServer, handler: FakeHandler, connect: Callable[..., Awaitable[RawClient]]
) -> None:
    client = await connect(server)
    await client.wait_for(lambda: bool(client.subnegotiations(MSSP)))
    assert decode_mssp(client.subnegotiations(MSSP)[0])["SSL"] == ["0"]
    assert server.tls_port == 0


async def test_a_tls_listener_needs_both_a_port_and_a_context(
    handler: FakeHandler, tmp_path: Path
) -> None:
    cert, key = cert_pair(tmp_path)
    with pytest.raises(ValueError, match="both tls_port and tls_context"):
        TelnetServer(handler, port=0, limits=TEST_LIMITS, tls_port=0)
    with pytest.raises(ValueError, match="both tls_port and tls_context"):
        TelnetServer(handler, port=0, limits=TEST_LIMITS, tls_context=server_context(cert, key))


async def test_a_taken_tls_port_fails_the_start_and_frees_the_plain_one(
    handler: FakeHandler, tmp_path: Path
) -> None:
    cert, key = cert_pair(tmp_path)
    blocker = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    taken = blocker.sockets[0].getsockname()[1]
    server = TelnetServer(
        handler, port=0, limits=TEST_LIMITS, tls_port=taken, tls_context=server_context(cert, key)
    )
    try:
        with pytest.raises(OSError, match="address already in use"):
            await server.start()
        # Nothing is left listening; the server can be started again elsewhere.
        server._tls_port = 0
        await server.start()
        assert server.tls_port not in (0, taken)
        await server.stop()
    finally:
        blocker.close()
        await blocker.wait_closed()


def test_server_context_names_the_problem(tmp_path: Path) -> None:
    from maid_engine.config import ConfigError

    cert, key = cert_pair(tmp_path)
    with pytest.raises(ConfigError, match=r"tls_cert_file: .*nope\.pem is not a file"):
        server_context(tmp_path / "nope.pem", key)
    with pytest.raises(ConfigError, match=r"tls_key_file: .*nope\.pem is not a file"):
        server_context(cert, tmp_path / "nope.pem")
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(ConfigError, match="are not a PEM certificate and its key"):
        server_context(junk, key)
    _, other_key = cert_pair(tmp_path / "other")
    with pytest.raises(ConfigError, match="are not a PEM certificate and its key"):
        server_context(cert, other_key)
    context = server_context(cert, key)
    assert context.minimum_version >= ssl.TLSVersion.TLSv1_2


def test_an_unreadable_certificate_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from maid_engine.config import ConfigError

    cert, key = cert_pair(tmp_path)

    def refuse(self: ssl.SSLContext, *args: object) -> None:
        raise PermissionError(13, "Permission denied", str(key))

    # Root reads any file: the refusal an operator would see is simulated.
    monkeypatch.setattr(ssl.SSLContext, "load_cert_chain", refuse)
    with pytest.raises(ConfigError, match=r"tls files: .*Permission denied"):
        server_context(cert, key)


async def test_a_started_server_cannot_start_again(tls_server: TelnetServer) -> None:
    with pytest.raises(RuntimeError, match="already started"):
        await tls_server.start()
