"""Resource limits of the telnet transport, and the token bucket that enforces the rate."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: What a refused client is told. Kept here so tests and docs share one wording.
MSG_LINE_TOO_LONG = "Line too long (max {max} characters); ignored."
MSG_TOO_FAST = "You are sending commands too fast; slow down."
MSG_INBOX_FULL = "Too many commands queued; ignored."
MSG_IDLE = "You have been idle too long; disconnecting."
MSG_PER_IP = "Too many connections from your address; try again later."
MSG_SERVER_FULL = "The server is full; try again later."
MSG_PRELOGIN_PER_IP = (
    "Too many connections from your address are still logging in; try again later."
)
MSG_LOGIN_BUSY = "Too many people are logging in right now; try again in a minute."
MSG_LOGIN_TIMEOUT = "You took too long to log in; disconnecting."
MSG_FLOOD = "You are sending too much data; disconnecting."
MSG_FLOOD_WAIT = "Your address has been sending too much data; try again later."
MSG_SUBNEGOTIATION = "Telnet subnegotiation too long; disconnecting."


@dataclass(frozen=True)
class NetLimits:
    """Every bound the transport enforces. Defaults suit a public server.

    A value of 0 (or ``None`` for the timeout) disables that particular limit.
    """

    #: Longest accepted input line, in characters. Longer lines are dropped up to the next
    #: newline; at most ``4 * max_line_length`` bytes (UTF-8 worst case) are ever buffered.
    max_line_length: int = 4096
    #: Token bucket per session: this many lines at once...
    rate_burst: int = 20
    #: ...refilled at this many lines per second.
    rate_per_second: float = 10.0
    #: Lines waiting for the game, per session, while a command is still running.
    inbox_size: int = 64
    #: Seconds without any typed input before the session is closed; ``None`` disables.
    idle_timeout: float | None = 30 * 60.0
    max_connections_per_ip: int = 20
    max_connections: int = 2000
    #: Seconds a connection may take to log in (``account_id`` set) before it is closed,
    #: so idle connections at the login prompt cannot hold slots; ``None`` disables.
    login_timeout: float | None = 60.0
    #: Connections per address that have not logged in yet.
    max_prelogin_per_ip: int = 5
    #: Share of ``max_connections`` kept for logged-in players: at most
    #: ``max_prelogin`` connections may be logging in at once.
    logged_in_reserve: float = 0.1
    #: Input bytes per second per address (all its connections together), a token bucket
    #: of ``input_byte_burst`` bytes. Input beyond it waits (reading that connection is
    #: paused) while the address owes at most ``input_byte_debt`` bytes; a connection
    #: whose input would take the debt past that is disconnected as a flood.
    input_bytes_per_second: int = 16384
    input_byte_burst: int = 65536
    input_byte_debt: int = 65536
    #: Longest telnet subnegotiation body (``IAC SB ... IAC SE``) accepted, in bytes;
    #: checked before telnetlib3 buffers it. A longer one drops the connection.
    max_subnegotiation: int = 4096
    #: How long option negotiation may take before the session is opened anyway.
    negotiation_timeout: float = 0.5
    #: Seconds a TLS client may take over its handshake, which comes before the
    #: connection counts against any other limit here.
    tls_handshake_timeout: float = 10.0
    #: Bytes queued towards a client that does not read; past this the session is dropped,
    #: so a stalled reader cannot make the server buffer without bound.
    max_output_buffer: int = 1 << 20
    #: How long ``TelnetServer.stop()`` waits for commands in flight before cancelling them.
    stop_timeout: float = 5.0
    #: Minimum seconds between two identical refusal notices to one session, so a flood of
    #: refused lines cannot be turned into a flood of output.
    notice_interval: float = 1.0

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if value is not None and value < 0:
                raise ValueError(f"NetLimits.{name} must not be negative (got {value})")
        if self.logged_in_reserve >= 1:
            raise ValueError(
                f"NetLimits.logged_in_reserve must be below 1 ({self.logged_in_reserve})"
            )

    @property
    def max_line_bytes(self) -> int:
        return self.max_line_length * 4

    @property
    def max_prelogin(self) -> int:
        """Connections that may be logging in at once (0: no limit)."""
        if not self.max_connections:
            return 0
        reserved = int(self.max_connections * self.logged_in_reserve)
        return max(self.max_connections - reserved, 1)


class TokenBucket:
    """Classic token bucket. ``clock`` is injectable so tests can freeze time."""

    __slots__ = ("_clock", "_last", "_tokens", "burst", "rate")

    def __init__(self, burst: int, rate: float, clock: Callable[[], float]) -> None:
        self.burst = burst
        self.rate = rate
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()

    def take(self) -> bool:
        """Spend one token; False when the bucket is empty (or the limit is disabled: True)."""
        if self.burst <= 0:
            return True
        now = self._clock()
        elapsed = now - self._last
        self._last = now
        if elapsed > 0:
            self._tokens = min(float(self.burst), self._tokens + elapsed * self.rate)
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class ByteBudget:
    """Input bytes one address may have interpreted: a token bucket that may run into debt.

    :meth:`charge` says how long bytes that arrived must wait until the bucket has paid
    for them, or that they would take the debt past ``max_debt`` (the sender floods).
    """

    __slots__ = ("_clock", "_last", "_tokens", "burst", "max_debt", "rate")

    def __init__(self, rate: float, burst: int, max_debt: int, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = burst
        self.max_debt = max_debt
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()

    def _refill(self) -> None:
        now = self._clock()
        elapsed = now - self._last
        self._last = now
        if elapsed > 0:
            self._tokens = min(float(self.burst), self._tokens + elapsed * self.rate)

    def charge(self, size: int) -> float | None:
        """Spend ``size`` bytes: 0.0 (go ahead), seconds to wait first, or None (refused,
        nothing spent)."""
        self._refill()
        left = self._tokens - size
        if left < -self.max_debt:
            return None
        self._tokens = left
        return 0.0 if left >= 0 else -left / self.rate

    @property
    def owing(self) -> bool:
        """True while more bytes were let through than the bucket has paid for yet."""
        self._refill()
        return self._tokens < 0

    @property
    def idle(self) -> bool:
        """True when the bucket is full again, so forgetting it changes nothing."""
        self._refill()
        return self._tokens >= self.burst
