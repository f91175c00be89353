"""https and wss on the web port when a certificate is configured: a self-signed pair
made by ``maid tls-cert``'s code, a client that trusts only it, and the handshake
bounded like the telnet TLS listener's."""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import replace
from pathlib import Path

import aiohttp
import pytest
from e2e.fixtures import served
from net.conftest import FakeHandler
from tlspair import cert_pair, client_context

from maid_engine.config import ConfigError, load_settings
from maid_engine.net import NetLimits
from maid_engine.tls import server_context
from maid_engine.web import WebServer

TIMEOUT = 5.0
BASE = NetLimits(negotiation_timeout=0.2, max_prelogin_per_ip=0)


async def test_the_page_and_the_websocket_over_tls(tmp_path: Path) -> None:
    cert, key = cert_pair(tmp_path)
    handler = FakeHandler()
    server = WebServer(handler, port=0, limits=BASE, ssl_context=server_context(cert, key))
    await server.start()
    try:
        assert server.scheme == "https"
        assert server.url == f"https://127.0.0.1:{server.port}/"
        trust = client_context(cert)
        base = f"127.0.0.1:{server.port}"
        async with aiohttp.ClientSession() as http:
            async with http.get(f"https://{base}/", ssl=trust) as page:
                assert page.status == 200
                assert 'role="log"' in await page.text()
            async with http.ws_connect(f"wss://{base}/ws", ssl=trust) as ws:
                session = await handler.session()
                session.send("Only for you.")
                message = await ws.receive_json(timeout=TIMEOUT)
                assert "Only for you." in message["text"]
                await ws.send_json({"line": "look"})
                await handler.wait_until(lambda: bool(handler.lines))
                assert handler.lines_of(session) == ["look"]
            # A client that does not trust the certificate is refused by its own check.
            with pytest.raises(aiohttp.ClientConnectorCertificateError):
                await http.get(f"https://{base}/", ssl=ssl.create_default_context())
            # Plain http on the TLS port gets no page.
            with pytest.raises(aiohttp.ClientError):
                await http.get(f"http://{base}/")
    finally:
        await server.stop()


async def test_a_silent_client_is_dropped_after_the_handshake_timeout(tmp_path: Path) -> None:
    cert, key = cert_pair(tmp_path)
    limits = replace(BASE, tls_handshake_timeout=0.2)
    server = WebServer(FakeHandler(), port=0, limits=limits, ssl_context=server_context(cert, key))
    await server.start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        # No handshake is ever sent: the server gives up and closes.
        assert await asyncio.wait_for(reader.read(), TIMEOUT) == b""
        writer.close()
    finally:
        await server.stop()


async def test_maid_run_serves_https_when_a_certificate_is_configured(tmp_path: Path) -> None:
    cert, key = cert_pair(tmp_path)
    async with served(
        tmp_path / "data", web_port=0, tls_cert_file=cert, tls_key_file=key
    ) as server:
        assert server.web.scheme == "https"
        assert server.tls_port == 0  # telnet over TLS is its own choice (--tls-port)
        trust = client_context(cert)
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(f"wss://127.0.0.1:{server.web_port}/ws", ssl=trust) as ws:
                message = await ws.receive_json(timeout=10)
                assert "text" in message


def test_a_certificate_without_its_key_is_a_config_error(tmp_path: Path) -> None:
    cert, key = cert_pair(tmp_path)
    for one in ({"tls_cert_file": cert}, {"tls_key_file": key}):
        with pytest.raises(ConfigError, match="tls_cert_file and tls_key_file go together"):
            load_settings(None, data_dir=tmp_path, **one)


async def test_a_key_that_is_not_the_certificates_stops_the_start(tmp_path: Path) -> None:
    cert, _key = cert_pair(tmp_path)
    _other_cert, other_key = cert_pair(tmp_path / "other")
    with pytest.raises(ConfigError, match="are not a PEM certificate and its key"):
        async with served(
            tmp_path / "data", web_port=0, tls_cert_file=cert, tls_key_file=other_key
        ):
            pass
