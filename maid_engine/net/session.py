"""A telnet connection as the game sees it: the :class:`~maid_engine.sessions.Session`."""

from __future__ import annotations

import asyncio
import logging
import re
from collections import deque
from typing import Any
from uuid import UUID, uuid4

from maid_engine.net.limits import (
    MSG_IDLE,
    MSG_INBOX_FULL,
    MSG_LINE_TOO_LONG,
    MSG_LOGIN_TIMEOUT,
    MSG_TOO_FAST,
    TokenBucket,
)
from maid_engine.net.lines import OVERFLOW, LineAssembler
from maid_engine.net.links import Connection, SessionOwner
from maid_engine.net.rendering import render_wire
from maid_engine.net.sanitize import clean_input_line, decode_input
from maid_engine.net.wrapping import effective_width
from maid_engine.sessions import ClientCaps, gmcp_wanted

log = logging.getLogger("maid.net")

_GMCP_PACKAGE = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
_MAX_SUPPORTS = 256
#: Seconds a prompt waits after output that arrived on its own (see _schedule_reprompt).
REPROMPT_DELAY = 0.5
#: Up to this many seconds more, a different share of it for each session.
REPROMPT_SPREAD = 0.1
_Item = tuple[str, Any, Any]


class _Inbox:
    """A session's input waiting for its worker: a bounded deque, and a future only
    while the worker waits on it.

    What ``asyncio.Queue`` would do here for a fifth of its memory (it keeps three
    deques, two of them for waiters a session never has more than one of, about
    2 KiB a player) and fewer steps a line."""

    __slots__ = ("_items", "_limit", "_waiter")

    def __init__(self, limit: int) -> None:
        self._items: deque[_Item | None] = deque()
        self._limit = limit  # 0: no bound
        self._waiter: asyncio.Future[None] | None = None

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: _Item) -> bool:
        """Queue ``item``; False (and nothing queued) when the inbox is full."""
        if self._limit and len(self._items) >= self._limit:
            return False
        self._push(item)
        return True

    def close(self) -> None:
        """Drop what is queued and tell the worker to stop (a None item)."""
        self._items.clear()
        self._push(None)

    def _push(self, item: _Item | None) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> _Item | None:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()


def _gmcp_modules(data: Any) -> list[str]:
    """Module names of a Core.Supports payload: ``["Char 1", "Room 1"]`` -> Char, Room."""
    if not isinstance(data, list):
        return []
    names = []
    for item in data[:_MAX_SUPPORTS]:
        if isinstance(item, str):
            name = item.strip().split(" ", 1)[0]
            if _GMCP_PACKAGE.fullmatch(name):
                names.append(name)
    return names


def _label(value: Any) -> str:
    """A client-supplied name, made safe to print and log."""
    return clean_input_line(str(value))[:64]


class TelnetSession:
    """Implements the Session protocol for one telnet connection.

    Input is decoded and queued here, then handed to the SessionHandler by one worker task
    per session, so lines of a session are handled one at a time and in order while
    reading carries on. Output is sanitised, rendered, wrapped and written synchronously.
    """

    def __init__(self, protocol: Connection, server: SessionOwner) -> None:
        self.id: str = uuid4().hex
        self.peer_host: str = protocol.peer_host
        self.caps = ClientCaps()
        self._account_id: str | None = None
        self.character_id: UUID | None = None
        self.data: dict[str, Any] = {}
        self._proto = protocol
        self._server = server
        limits = server.limits
        self._limits = limits
        self._clock = server.clock
        self._lines = LineAssembler(limits.max_line_bytes)
        self._bucket = TokenBucket(limits.rate_burst, limits.rate_per_second, server.clock)
        self._gmcp_bucket = TokenBucket(limits.rate_burst, limits.rate_per_second, server.clock)
        self._inbox = _Inbox(max(limits.inbox_size, 0))
        self._echo = True
        self._password_echo = False  # we sent WILL ECHO only to hide a password
        self._line_open = False  # the cursor sits after a prompt, not at a line start
        self._handling = False  # the handler is working on one of our input items
        self._reprompt: asyncio.TimerHandle | None = None  # a prompt due after idle output
        # This session's share of REPROMPT_SPREAD, from its random id.
        self._spread = int(self.id[:4], 16) / 0xFFFF
        self._connected = True
        self._opened = False
        self._worker: asyncio.Task[None] | None = None
        self._notice_at: dict[str, float] = {}
        self._hello_seen = False
        self._last_input = self._clock()
        self._idle_timer: asyncio.TimerHandle | None = None
        self._arm_idle(limits.idle_timeout)
        self._login_timer: asyncio.TimerHandle | None = None
        self._login_started = self._clock()
        self._arm_login(limits.login_timeout)

    def __repr__(self) -> str:
        return f"<TelnetSession {self.id[:8]} {self.peer_host}>"

    # -- the Session protocol -------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected and self._proto.alive

    @property
    def account_id(self) -> str | None:
        """The account logged in on this connection; None while it is logging in."""
        return self._account_id

    @account_id.setter
    def account_id(self, value: str | None) -> None:
        was, self._account_id = self._account_id is not None, value
        now = value is not None
        if was == now or not self._connected or self._proto.prelogin == (not now):
            return
        # Logging in frees a pre-login slot and stops the login deadline; going back to
        # the login screen (account_id cleared) counts it again and restarts the deadline.
        self._proto.prelogin = not now
        self._server._logged_in(self.peer_host, now)
        if now:
            self._cancel_login_timer()
        else:
            self._login_started = self._clock()
            self._arm_login(self._limits.login_timeout)

    @property
    def opened(self) -> bool:
        """True once the handler has been told about this session."""
        return self._opened

    def send(self, text: str) -> None:
        """Sanitise, render, wrap and send ``text`` as whole lines (a final newline is added)."""
        self._output(text, newline=True)

    def prompt(self, text: str) -> None:
        if self._output(text, newline=False):
            try:
                self._proto.end_of_prompt()
            except Exception:
                log.debug("end of prompt failed for %s", self, exc_info=True)

    def send_gmcp(self, package: str, data: Any) -> None:
        if not self.connected or not self.caps.gmcp:
            return
        if not _GMCP_PACKAGE.fullmatch(package):
            log.warning("refusing to send GMCP with a malformed package name %r", package)
            return
        if not gmcp_wanted(self.caps, package):
            return  # the client did not ask for this module (Core.Supports.Set)
        try:
            self._proto.send_gmcp(package, data)
        except (TypeError, ValueError):
            log.exception("GMCP %s: data is not JSON-serialisable", package)
        except Exception:
            log.debug("GMCP send failed for %s", self, exc_info=True)

    def set_echo(self, echo: bool) -> None:
        if not self.connected:
            self._echo = echo
            return
        self._echo = echo
        if not echo:
            if not self._proto.server_echoes():
                # The client echoes locally: WILL ECHO tells it to stop (password mode).
                self._password_echo = self._proto.will_echo()
        elif self._password_echo:
            self._password_echo = False
            self._proto.wont_echo()

    def close(self, message: str | None = None) -> None:
        if not self.connected:
            return
        if message:
            self.send(message)
        self._proto.close_connection()

    # -- output ---------------------------------------------------------------------------

    def _output(self, text: str, *, newline: bool) -> bool:
        if not self.connected:
            return False
        try:
            caps = self.caps
            out = render_wire(text, caps.color, caps.width, newline)
            if self._line_open:
                out = b"\r\n" + out
            self._line_open = not newline
            self._proto.write_bytes(out)
            if newline and not self._handling:
                self._schedule_reprompt()
            return True
        except Exception:
            # Never let one bad message propagate into game code; but do make it visible.
            log.exception("send failed for %s", self)
            return False

    def _schedule_reprompt(self) -> None:
        """Ask the handler for a prompt once this burst of output has settled.

        Like a MUD's pulse, the prompt waits a moment (``REPROMPT_DELAY``): a burst of
        messages gets one prompt, and a line the player sends meanwhile cancels it
        (its answer ends with the prompt), so the prompt never lands just before the
        answer to what the player typed. Sessions wait a little more or less
        (``REPROMPT_SPREAD``): a crowd that heard the same line would otherwise be
        prompted all in one turn of the event loop, hundreds of writes while other
        players wait for their answers."""
        if self._reprompt is not None or not self._opened:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        delay = REPROMPT_DELAY + self._spread * REPROMPT_SPREAD
        self._reprompt = loop.call_later(delay, self._reprompt_due)

    def _cancel_reprompt(self) -> None:
        if self._reprompt is not None:
            self._reprompt.cancel()
            self._reprompt = None

    def _reprompt_due(self) -> None:
        self._reprompt = None
        # A prompt already followed the text, or input is being answered (its own
        # prompt comes at the end): nothing to do.
        if not self.connected or self._line_open or self._handling:
            return
        try:
            self._server.handler.session_idle_output(self)
        except Exception:
            log.exception("session_idle_output failed for %s", self)

    def _notice(self, kind: str, message: str, throttle: bool = True) -> None:
        self._server._limit_hit(kind)
        now = self._clock()
        if throttle and now - self._notice_at.get(kind, float("-inf")) < (
            self._limits.notice_interval
        ):
            return
        self._notice_at[kind] = now
        self.send(message)

    # -- input ----------------------------------------------------------------------------

    def _on_input(self, data: bytes) -> None:
        """In-band bytes from the protocol (IAC already removed)."""
        if not self._connected:
            return
        self._last_input = self._clock()
        server_echoes = self._proto.server_echoes()
        events, echo_bytes = self._lines.feed(data, self._echo and server_echoes)
        if server_echoes and not self._echo and events:
            # Hidden input (password): still end the line, as the client will not.
            echo_bytes = b"\r\n" * len(events)
        if echo_bytes:
            self._proto.write_bytes(echo_bytes)
        if events:
            self._cancel_reprompt()
        for raw in events:
            self._line_open = False
            if raw is OVERFLOW:
                self._notice("line_too_long", self._too_long(), throttle=False)
                continue
            text = decode_input(raw, self.caps.utf8)
            if self._limits.max_line_length and len(text) > self._limits.max_line_length:
                self._notice("line_too_long", self._too_long(), throttle=False)
                continue
            if not self._bucket.take():
                self._notice("rate_limited", MSG_TOO_FAST)
                continue
            self._enqueue(("line", clean_input_line(text), None))

    def _too_long(self) -> str:
        return MSG_LINE_TOO_LONG.format(max=self._limits.max_line_length)

    def _enqueue(self, item: _Item) -> None:
        if not self._inbox.put(item):
            self._notice("inbox_full", MSG_INBOX_FULL)

    def _on_gmcp(self, package: str, data: Any) -> None:
        if not self._connected:
            return
        key = package.lower()
        if key == "core.hello":
            if isinstance(data, dict):
                self._hello_seen = True
                self.caps.client_name = _label(data.get("client", ""))
                self.caps.client_version = _label(data.get("version", ""))
        elif key == "core.supports.set":
            self.caps.gmcp_supports = set(_gmcp_modules(data))
            self.caps.gmcp_declared = True
        elif key == "core.supports.add":
            self.caps.gmcp_declared = True
            added = _gmcp_modules(data)
            room = _MAX_SUPPORTS - len(self.caps.gmcp_supports)
            self.caps.gmcp_supports.update(added[: max(room, 0)])
        elif key == "core.supports.remove":
            self.caps.gmcp_supports.difference_update(_gmcp_modules(data))
        elif not self._gmcp_bucket.take():
            self._server._limit_hit("gmcp_rate_limited")
        else:
            self._enqueue(("gmcp", package, data))

    # -- negotiation results --------------------------------------------------------------

    def _refresh_caps(self) -> None:
        found = self._proto.detected()
        caps = self.caps
        caps.color = found.color
        caps.utf8 = found.utf8
        caps.mtts = found.mtts
        caps.terminal = _label(found.terminal) or "unknown"
        if found.client_name and not self._hello_seen:
            # Core.Hello, when it comes, is more precise than TTYPE/MNES and wins.
            caps.client_name = _label(found.client_name)
            caps.client_version = _label(found.client_version)
        caps.gmcp = self._proto.gmcp_enabled

    def _on_resize(self, cols: int, rows: int) -> None:
        width = effective_width(cols)
        height = rows if 1 <= rows <= 1000 else 24
        if (width, height) == (self.caps.width, self.caps.height):
            return
        self.caps.width, self.caps.height = width, height
        if self._opened:
            try:
                self._server.handler.session_resized(self)
            except Exception:
                log.exception("session_resized failed for %s", self)

    # -- lifecycle ------------------------------------------------------------------------

    def _start(self) -> None:
        if not self._connected or self._worker is not None:
            return
        self._refresh_caps()
        self._worker = asyncio.get_running_loop().create_task(
            self._run(), name=f"telnet-session-{self.id[:8]}"
        )

    async def _run(self) -> None:
        handler = self._server.handler
        self._opened = True
        try:
            try:
                await handler.session_opened(self)
            except Exception:
                log.exception("session_opened failed for %s", self)
                self.close()
            while True:
                item = await self._inbox.get()
                if item is None:  # the connection is gone
                    break
                kind, first, second = item
                self._handling = True
                try:
                    if kind == "line":
                        await handler.session_line(self, first)
                    else:
                        await handler.session_gmcp(self, first, second)
                except Exception:
                    log.exception("handler failed on %s input for %s", kind, self)
                finally:
                    self._handling = False
        finally:
            try:
                await handler.session_closed(self)
            except Exception:
                log.exception("session_closed failed for %s", self)
            self._server._forget(self)

    def _on_disconnect(self) -> None:
        """The connection is gone (either side closed it). Runs exactly once."""
        if not self._connected:
            return
        self._connected = False
        self._cancel_reprompt()
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        self._cancel_login_timer()
        # Lines still queued cannot be answered any more: drop them and stop the worker.
        self._inbox.close()
        if self._worker is None:
            self._server._forget(self)

    def _detach(self) -> None:
        self._proto.detach(self)

    @property
    def worker(self) -> asyncio.Task[None] | None:
        return self._worker

    def _arm_idle(self, delay: float | None) -> None:
        if not self._limits.idle_timeout or delay is None:
            return
        loop = asyncio.get_running_loop()
        self._idle_timer = loop.call_later(max(delay, 0.01), self._check_idle)

    def _check_idle(self) -> None:
        self._idle_timer = None
        timeout = self._limits.idle_timeout
        if not self._connected or not timeout:
            return
        idle = self._clock() - self._last_input
        if idle >= timeout:
            self._server._limit_hit("idle_timeout")
            self.close(MSG_IDLE)
        else:
            self._arm_idle(timeout - idle)

    def _arm_login(self, delay: float | None) -> None:
        if not self._limits.login_timeout or delay is None:
            return
        loop = asyncio.get_running_loop()
        self._login_timer = loop.call_later(max(delay, 0.01), self._check_login)

    def _cancel_login_timer(self) -> None:
        if self._login_timer is not None:
            self._login_timer.cancel()
            self._login_timer = None

    def _check_login(self) -> None:
        self._login_timer = None
        timeout = self._limits.login_timeout
        if not self._connected or not timeout or self._account_id is not None:
            return
        waited = self._clock() - self._login_started
        if waited >= timeout:
            self._server._limit_hit("login_timeout")
            self.close(MSG_LOGIN_TIMEOUT)
        else:
            self._arm_login(timeout - waited)
