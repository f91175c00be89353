"""The server: one engine, its telnet, web and metrics listeners, one async lifespan.

    async with MaidServer(settings).lifespan() as server:
        await server.serve_until(stop_event)

On stop: listeners close to new clients, connected players are told, systems shut
down, a final checkpoint is written, the store closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from maid_engine.accounts import install_accounts
from maid_engine.clock import GameClock
from maid_engine.config import Settings
from maid_engine.content import ContentPack
from maid_engine.descriptors import make_room
from maid_engine.engine import GameEngine
from maid_engine.english import english
from maid_engine.loops import loop_name
from maid_engine.metrics import MetricsServer
from maid_engine.tls import server_context

log = logging.getLogger("maid.server")


class MaidServer:
    def __init__(
        self,
        settings: Settings,
        *,
        clock: GameClock | None = None,
        packs: Sequence[str | type[ContentPack] | ContentPack] | None = None,
        announce: Callable[[str], None] = print,
    ) -> None:
        self.settings = settings
        self.engine = GameEngine(settings, clock=clock, packs=packs)
        self.announce = announce
        self.telnet: Any = None
        self.web: Any = None
        self.metrics_server: MetricsServer | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._stop_ticking = asyncio.Event()

    @property
    def telnet_port(self) -> int:
        return int(self.telnet.port) if self.telnet is not None else 0

    @property
    def tls_port(self) -> int:
        """The telnet-over-TLS port; 0 when there is none."""
        return int(self.telnet.tls_port) if self.telnet is not None else 0

    @property
    def web_port(self) -> int:
        return int(self.web.port) if self.web is not None else 0

    @property
    def metrics_port(self) -> int:
        return self.metrics_server.port if self.metrics_server is not None else 0

    async def start(self) -> None:
        # A certificate that cannot be used stops the start before the world is loaded.
        tls = tls_context(self.settings) if self.settings.telnet_enabled else None
        web_tls = web_tls_context(self.settings) if self.settings.web_enabled else None
        if self.settings.telnet_enabled or self.settings.web_enabled:
            # Before the engine starts its threads: the table then grows without
            # waiting for the other threads (see maid_engine.descriptors).
            make_room(self.settings.max_connections)
        install_accounts(self.engine)
        running = loop_name(asyncio.get_running_loop())
        self.engine.metrics.event_loop.labels(running).set(1)
        log.info("event loop: %s", running)
        # Loaded now rather than by the first plural a tick writes (~20 ms).
        english()
        await self.engine.start()
        try:
            if self.settings.metrics_enabled:
                self.metrics_server = MetricsServer(
                    self.engine.metrics, self.settings.metrics_host, self.settings.metrics_port
                )
                await self.metrics_server.start()
                ms = self.metrics_server
                self.announce(f"MAID metrics listening on {ms.host}:{ms.port}")
            if self.settings.telnet_enabled:
                # telnetlib3 is loaded only by a server that listens for players.
                from maid_engine.net import TelnetServer

                self.telnet = TelnetServer(
                    self.engine.sessions,
                    host=self.settings.telnet_host,
                    port=self.settings.telnet_port,
                    limits=net_limits(self.settings),
                    tls_port=self.settings.tls_port,
                    tls_context=tls,
                )
                await self.telnet.start()
                self.announce(f"MAID telnet listening on {self.telnet.host}:{self.telnet.port}")
                if self.telnet.tls_port:
                    self.announce(
                        f"MAID telnet+tls listening on {self.telnet.host}:{self.telnet.tls_port}"
                    )
            if self.settings.web_enabled:
                # aiohttp too is loaded only when browsers are served.
                from maid_engine.web import WebServer

                self.web = WebServer(
                    self.engine.sessions,
                    host=self.settings.web_host,
                    port=self.settings.web_port,
                    limits=net_limits(self.settings),
                    # One gate: an address's connections count once, whichever door.
                    gate=self.telnet.gate if self.telnet is not None else None,
                    ssl_context=web_tls,
                )
                await self.web.start()
                secure = " (https, wss)" if web_tls is not None else ""
                self.announce(f"MAID web listening on {self.web.host}:{self.web.port}{secure}")
        except BaseException:
            await self._close_listeners(None)
            await self.engine.stop()
            raise
        self._stop_ticking.clear()
        self._ticker = asyncio.create_task(self.engine.run(self._stop_ticking), name="maid-ticks")

    async def serve_until(self, stop: asyncio.Event) -> str:
        """Run until ``stop`` is set or an admin asks for shutdown. Returns the reason."""
        waits = [
            asyncio.create_task(stop.wait()),
            asyncio.create_task(self.engine.shutdown_requested.wait()),
        ]
        assert self._ticker is not None
        done, pending = await asyncio.wait(
            [*waits, self._ticker], return_when=asyncio.FIRST_COMPLETED
        )
        for task in pending:
            if task is not self._ticker:
                task.cancel()
        if self._ticker in done and self._ticker.exception() is not None:
            raise RuntimeError("the tick loop died") from self._ticker.exception()
        return self.engine.shutdown_reason or "signal"

    async def stop(self, reason: str = "") -> None:
        message = "The server is shutting down" + (f" ({reason})" if reason else "") + ". Goodbye!"
        self._stop_ticking.set()
        if self._ticker is not None:
            with contextlib.suppress(Exception):
                await self._ticker
            self._ticker = None
        await self._close_listeners(message)
        await self.engine.stop()

    async def _close_listeners(self, message: str | None) -> None:
        if self.telnet is not None:
            try:
                await self.telnet.stop(message)
            except Exception:
                log.exception("closing the telnet listener failed")
            self.telnet = None
        if self.web is not None:
            try:
                await self.web.stop(message)
            except Exception:
                log.exception("closing the web listener failed")
            self.web = None
        if self.metrics_server is not None:
            await self.metrics_server.stop()
            self.metrics_server = None

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[MaidServer]:
        await self.start()
        try:
            yield self
        finally:
            await self.stop(self.engine.shutdown_reason)


def tls_context(settings: Settings) -> ssl.SSLContext | None:
    """The TLS listener's context, when a TLS port is configured (else None).

    Raises ConfigError naming the file when the certificate or key cannot be used."""
    cert, key = settings.tls_cert_file, settings.tls_key_file
    # The settings validator makes sure both files are named with a TLS port.
    if settings.tls_port is None or cert is None or key is None:
        return None
    return server_context(cert, key)


def web_tls_context(settings: Settings) -> ssl.SSLContext | None:
    """The web port's context when a certificate is configured: then it serves https
    and wss only. Raises ConfigError naming the file when it cannot be used."""
    cert, key = settings.tls_cert_file, settings.tls_key_file
    if cert is None or key is None:
        return None
    return server_context(cert, key)


def net_limits(settings: Settings) -> Any:
    # Like TelnetServer above: maid_engine.net pulls in telnetlib3.
    from maid_engine.net import NetLimits

    return NetLimits(
        max_line_length=settings.max_line_length,
        rate_per_second=settings.commands_per_second,
        rate_burst=settings.command_burst,
        idle_timeout=settings.idle_timeout,
        max_connections_per_ip=settings.max_connections_per_ip,
        max_connections=settings.max_connections,
        login_timeout=settings.login_timeout,
        max_prelogin_per_ip=settings.max_prelogin_per_ip,
        logged_in_reserve=settings.logged_in_reserve,
        input_bytes_per_second=settings.input_bytes_per_second,
    )
