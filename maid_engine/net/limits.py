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
    #: How long option negotiation may take before the session is opened anyway.
    negotiation_timeout: float = 0.5
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

    @property
    def max_line_bytes(self) -> int:
        return self.max_line_length * 4


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
