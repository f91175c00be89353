"""The web listener: the browser client's page and its WebSocket, on aiohttp.

A WebSocket is a second transport under the one session class telnet uses
(:class:`~maid_engine.net.session.TelnetSession`): the same input queue, line and rate
limits, login deadline, idle timeout, rendering and GMCP filter. Only the wire differs,
so :class:`WebConnection` implements the small ``Connection`` protocol a session writes
through, the way the telnet protocol does.

The wire: every frame is a JSON object (text frames, UTF-8).

- server to client: ``{"text": "..."}`` game text with ANSI colour codes and ``\\n``
  line ends (``"prompt": true`` when it ends with a prompt); ``{"gmcp": "Char.Vitals",
  "data": {...}}``; ``{"echo": false}`` / ``{"echo": true}`` (hide the input while a
  password is typed).
- client to server: ``{"line": "look"}``; ``{"gmcp": "Core.Supports.Set", "data":
  [...]}``; ``{"size": [cols, rows]}``. A frame that is not a JSON object is taken as
  typed text (one or more lines), so a bare WebSocket tool can play too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import ssl
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from maid_engine.net.gate import ConnectionGate
from maid_engine.net.limits import MSG_FLOOD, ByteBudget, NetLimits
from maid_engine.net.links import ConnectionEvents
from maid_engine.net.listener import Listener
from maid_engine.net.mtts import Detected
from maid_engine.net.session import TelnetSession
from maid_engine.sessions import ColorMode, SessionHandler

log = logging.getLogger("maid.web")

__all__ = ["STATIC_DIR", "WebConnection", "WebServer"]

#: The client's page, script and style sheet (package data).
STATIC_DIR = Path(__file__).parent / "static"
MSG_BAD_FRAME = "The client sent a message the server cannot read; it was ignored."
#: Seconds between WebSocket pings; a client that misses one is disconnected.
HEARTBEAT = 30.0
_WIDTH_RANGE = (10, 1000)
_HEIGHT_RANGE = (1, 1000)
# What the page may load and talk to: only this server (the WebSocket included).
_CSP = (
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; frame-ancestors 'none'"
)
_PAGE_HEADERS = {
    "Content-Security-Policy": _CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
_STATIC_TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
}


def _clamp(value: Any, low: int, high: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if low <= value <= high else None


class WebConnection:
    """One WebSocket, as the session sees it (the telnet protocol's counterpart).

    Output is queued and written by one writer task in call order; text written in one
    event-loop turn goes out as one frame, as telnet coalesces a command's output.
    """

    def __init__(
        self,
        ws: web.WebSocketResponse,
        server: WebServer,
        host: str,
        transport: asyncio.Transport | None,
    ) -> None:
        self.peer_host = host
        self.prelogin = True
        self.session: ConnectionEvents | None = None
        self._ws = ws
        self._transport = transport
        self._server = server
        self._budget: ByteBudget | None = server._budget(host)
        self._text: list[str] = []
        self._flush_handle: asyncio.Handle | None = None
        self._frames: deque[str] = deque()
        self._queued = 0
        self._wake = asyncio.Event()
        self._closing = False
        self._torn_down = False
        self._writer: asyncio.Task[None] | None = None

    # -- what the session uses ------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return not self._closing and not self._torn_down

    @property
    def gmcp_enabled(self) -> bool:
        return True  # GMCP is part of this wire, not an option

    def detected(self) -> Detected:
        # A browser shows every colour and every character; the page renders 24-bit
        # codes itself.
        return Detected(
            color=ColorMode.TRUECOLOR,
            utf8=True,
            terminal="web",
            client_name="MAID web",
        )

    def server_echoes(self) -> bool:
        return False  # the page shows what is typed itself

    def write_bytes(self, data: bytes) -> None:
        if not self.alive or not data:
            return
        self._text.append(data.decode("utf-8", "replace").replace("\r\n", "\n"))
        if self._flush_handle is None:
            self._flush_handle = asyncio.get_running_loop().call_soon(self._flush_text)

    def will_echo(self) -> bool:
        self._frame({"echo": False})
        return True

    def wont_echo(self) -> None:
        self._frame({"echo": True})

    def end_of_prompt(self) -> None:
        self._flush_text(prompt=True)

    def send_gmcp(self, package: str, data: Any) -> None:
        # Serialised here, so data that is not JSON raises in the caller (who logs it).
        frame = json.dumps({"gmcp": package, "data": data}, ensure_ascii=False)
        self._flush_text()
        self._push(frame)

    def close_connection(self) -> None:
        """Write what is queued, then close the WebSocket."""
        if self._closing or self._torn_down:
            return
        self._flush_text()
        self._closing = True
        self._wake.set()

    def detach(self, session: ConnectionEvents) -> None:
        if self.session is session:
            self.session = None

    # -- output ---------------------------------------------------------------------------

    def _flush_text(self, prompt: bool = False) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if not self._text:
            return
        message: dict[str, Any] = {"text": "".join(self._text)}
        self._text.clear()
        if prompt:
            message["prompt"] = True
        self._frame(message)

    def _frame(self, message: dict[str, Any]) -> None:
        if not self.alive:
            return
        if "text" not in message:
            self._flush_text()  # keep the order of the calls
        self._push(json.dumps(message, ensure_ascii=False))

    def _push(self, frame: str) -> None:
        if not self.alive:
            return
        self._frames.append(frame)
        self._queued += len(frame)
        self._wake.set()
        limit = self._server.limits.max_output_buffer
        if limit and self._queued + self._transport_backlog() > limit:
            # The browser stopped reading; drop it rather than buffer without bound.
            self._server._limit_hit("output_overflow")
            log.info("dropping %s: output buffer over %d bytes", self.peer_host, limit)
            self._frames.clear()
            self._queued = 0
            self._closing = True
            self._abort()

    def _transport_backlog(self) -> int:
        transport = self._transport
        return transport.get_write_buffer_size() if transport is not None else 0

    def _abort(self) -> None:
        if self._transport is not None:
            self._transport.abort()

    async def _write_loop(self) -> None:
        ws = self._ws
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._frames:
                    frame = self._frames.popleft()
                    self._queued -= len(frame)
                    await ws.send_str(frame)
                if self._closing:
                    break
        except Exception:
            log.debug("writing to %s failed", self.peer_host, exc_info=True)
        finally:
            with contextlib.suppress(Exception):
                await ws.close()

    # -- input ----------------------------------------------------------------------------

    async def serve(self) -> None:
        """Read frames until the WebSocket closes; then report the disconnect once."""
        ws = self._ws
        self._writer = asyncio.get_running_loop().create_task(
            self._write_loop(), name=f"web-writer-{self.peer_host}"
        )
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    if not await self._charge(len(msg.data.encode("utf-8"))):
                        break
                    self._on_frame(msg.data)
                elif msg.type == WSMsgType.BINARY:
                    if not await self._charge(len(msg.data)):
                        break
                    self._bad_frame()
                if self._closing:
                    break
        finally:
            self._teardown()
            with contextlib.suppress(Exception):
                await self._writer

    async def _charge(self, size: int) -> bool:
        """Take ``size`` bytes from the address's budget, waiting while it owes."""
        self._server.input_bytes += size
        if self._budget is None:
            return True
        wait = self._budget.charge(size)
        if wait is None:
            self._server._limit_hit("input_flood")
            log.info("dropping %s: input flood", self.peer_host)
            if self.session is not None and self.session.connected:
                self.session.close(MSG_FLOOD)
            return False
        if wait > 0:
            # No more is read from this WebSocket until the address has paid.
            await asyncio.sleep(wait)
        return True

    def _on_frame(self, data: str) -> None:
        session = self.session
        if session is None or not session.connected:
            return
        if not data.lstrip().startswith("{"):
            session._on_input(data.encode("utf-8") + b"\n")
            return
        try:
            # Text that starts with "{" and parses is always an object.
            message: dict[str, Any] = json.loads(data)
        except ValueError:
            self._bad_frame()
            return
        if isinstance(message.get("line"), str):
            session._on_input(message["line"].encode("utf-8") + b"\n")
        elif isinstance(message.get("gmcp"), str):
            session._on_gmcp(message["gmcp"], message.get("data"))
        elif isinstance(message.get("size"), list) and len(message["size"]) == 2:
            cols = _clamp(message["size"][0], *_WIDTH_RANGE)
            rows = _clamp(message["size"][1], *_HEIGHT_RANGE)
            if cols is None or rows is None:
                self._bad_frame()
            else:
                session._on_resize(cols, rows)
        else:
            self._bad_frame()

    def _bad_frame(self) -> None:
        self._server._limit_hit("bad_frame")
        self._frame({"text": MSG_BAD_FRAME + "\n"})

    def _teardown(self) -> None:
        if self._torn_down:
            return
        self._torn_down = True
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        self._closing = True
        self._wake.set()
        self._server._release(self.peer_host, prelogin=self.prelogin)
        self.prelogin = False
        if self.session is not None:
            self.session._on_disconnect()


class WebServer(Listener):
    """Serves the web client at ``/`` and its WebSocket at ``/ws``.

    With ``ssl_context`` the same port serves https and wss. ``gate`` is the
    connection gate shared with the telnet listeners (one is made when not given).
    """

    def __init__(
        self,
        handler: SessionHandler,
        host: str = "127.0.0.1",
        port: int = 4080,
        limits: NetLimits = NetLimits(),  # noqa: B008 - frozen dataclass, safe to share
        clock: Callable[[], float] = time.monotonic,
        on_limit: Callable[[str], None] | None = None,
        gate: ConnectionGate | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        super().__init__(handler, host, port, limits, clock, on_limit, gate)
        self._ssl = ssl_context
        self._runner: web.AppRunner | None = None
        self._listener: asyncio.Server | None = None

    @property
    def scheme(self) -> str:
        return "https" if self._ssl is not None else "http"

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self._host}:{self._port}/"

    async def start(self) -> None:
        if self._runner is not None:
            raise RuntimeError("WebServer already started")
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/static/{name}", self._static)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        assert runner.server is not None
        loop = asyncio.get_running_loop()
        try:
            # Our own listener rather than aiohttp's TCPSite, which cannot bound the TLS
            # handshake (asyncio's default waits a minute per silent connection, before
            # any of our limits see it).
            listener = await loop.create_server(
                runner.server,
                self._host,
                self._port,
                ssl=self._ssl,
                ssl_handshake_timeout=(
                    self.limits.tls_handshake_timeout if self._ssl is not None else None
                ),
            )
        except BaseException:
            await runner.cleanup()
            raise
        self._runner, self._listener = runner, listener
        name = listener.sockets[0].getsockname()
        self._host, self._port = str(name[0]), int(name[1])
        self._accepting = True
        log.info("web listening on %s", self.url)

    async def stop(self, message: str | None = None) -> None:
        """Tell every session ``message``, close them all and stop listening."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._accepting = False
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        live = list(self._sessions.values())
        workers = [s.worker for s in live if s.worker is not None]
        for session in live:
            session.close(message)
        workers = [w for w in workers if not w.done()]
        if workers:
            _, pending = await asyncio.wait(workers, timeout=self.limits.stop_timeout)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
        await runner.cleanup()
        log.info("web server stopped")

    # -- HTTP -----------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return self._file("index.html")

    async def _static(self, request: web.Request) -> web.StreamResponse:
        return self._file(request.match_info["name"])

    def _file(self, name: str) -> web.StreamResponse:
        # Only the files shipped with the client, by exact name: no paths, no listing.
        path = STATIC_DIR / name
        kind = _STATIC_TYPES.get(path.suffix)
        if "/" in name or name.startswith(".") or kind is None or not path.is_file():
            raise web.HTTPNotFound()
        charset = "utf-8" if kind.startswith("text/") else None
        return web.Response(
            body=path.read_bytes(), content_type=kind, charset=charset, headers=_PAGE_HEADERS
        )

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        host = request.remote or "unknown"
        limits = self.limits
        # Big enough for the longest line (4 bytes a character) in its JSON wrapping,
        # so an over-long line gets "Line too long" like on telnet; a frame past this
        # is refused by aiohttp (close code 1009) before it is buffered.
        size = 4 * limits.max_line_bytes + 4096 if limits.max_line_bytes else 1 << 20
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=size)
        await ws.prepare(request)
        refusal = self._admit(host)
        if refusal is not None:
            with contextlib.suppress(Exception):
                await ws.send_str(json.dumps({"text": refusal + "\n", "refused": True}))
                await ws.close()
            return ws
        connection = WebConnection(ws, self, host, request.transport)
        session = TelnetSession(connection, self)
        self._sessions[session.id] = session
        connection.session = session
        cols = _clamp(_int(request.query.get("cols")), *_WIDTH_RANGE)
        rows = _clamp(_int(request.query.get("rows")), *_HEIGHT_RANGE)
        if cols is not None and rows is not None:
            session._on_resize(cols, rows)
        session._start()
        await connection.serve()
        return ws


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
