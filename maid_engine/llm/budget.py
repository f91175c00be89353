"""The two counters behind the limiter: a request-rate token bucket and a rolling
token budget (the server's, and one per character and per account for quotas).

Time comes from an injectable ``clock`` callable returning seconds (``time.monotonic``
in production, ``ManualClock.monotonic`` in tests). Nothing here sleeps unless an
``acquire`` is given a ``max_wait``.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

from maid_engine.llm.errors import LLMRateLimited

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


class RateLimiter:
    """A token bucket: ``requests_per_minute`` sustained, bursts up to ``burst``."""

    def __init__(
        self,
        requests_per_minute: float,
        burst: int | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        if requests_per_minute <= 0:
            raise ValueError("requests_per_minute must be positive")
        self.requests_per_minute = float(requests_per_minute)
        self.per_second = self.requests_per_minute / 60.0
        # A full minute's worth as burst would let a cold start fire everything at
        # once; a small burst smooths the load on the model server.
        self.capacity = float(
            burst if burst is not None else max(1, min(int(requests_per_minute), 10))
        )
        if self.capacity < 1:
            raise ValueError("burst must be at least 1")
        self._clock = clock
        self._tokens = self.capacity
        self._updated = clock()

    def _refill(self) -> None:
        now = self._clock()
        # max(): a clock that steps backwards must not drain the bucket.
        elapsed = max(0.0, now - self._updated)
        self._tokens = min(self.capacity, self._tokens + elapsed * self.per_second)
        self._updated = now

    @property
    def available(self) -> float:
        self._refill()
        return self._tokens

    def try_acquire(self) -> bool:
        self._refill()
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def wait_time(self) -> float:
        """Seconds until one request is allowed (0 if now)."""
        self._refill()
        if self._tokens >= 1.0:
            return 0.0
        return (1.0 - self._tokens) / self.per_second

    async def acquire(self, max_wait: float = 0.0, sleep: Sleep = asyncio.sleep) -> None:
        """Take one request slot, waiting at most ``max_wait`` seconds.

        Raises LLMRateLimited(local=True) when the slot is further away than that.
        """
        waited = 0.0
        while not self.try_acquire():
            wait = self.wait_time()
            if waited + wait > max_wait:
                raise LLMRateLimited(
                    f"more than {self.requests_per_minute:g} LLM requests per minute",
                    local=True,
                )
            await sleep(wait)
            waited += wait


class Reservation:
    """Tokens held for one in-flight request until its real usage is known."""

    def __init__(self, budget: TokenBudget, tokens: int) -> None:
        self._budget = budget
        self.tokens = tokens
        self.settled = False

    def settle(self, actual_tokens: int) -> None:
        """Replace the estimate with the real usage (0 when nothing was reported)."""
        if self.settled:
            return
        self.settled = True
        self._budget.release(self.tokens)
        self._budget.record(actual_tokens)


class TokenBudget:
    """Tokens spent in a rolling window, from the usage the provider reports.

    ``limit`` tokens per ``window_seconds``; a limit of 0 allows nothing (disable
    the LLM by leaving the model empty instead). In-flight requests hold a
    reservation of their estimated cost so that concurrent callers cannot all slip
    in just before the budget runs out.
    """

    def __init__(
        self, limit: int, window_seconds: float = 3600.0, clock: Clock = time.monotonic
    ) -> None:
        if limit < 0:
            raise ValueError("limit must be >= 0")
        if window_seconds <= 0:
            raise ValueError("window_seconds must be positive")
        self.limit = int(limit)
        self.window_seconds = float(window_seconds)
        self._clock = clock
        self._usage: deque[tuple[float, int]] = deque()
        self._total = 0
        self._reserved = 0

    def _prune(self) -> None:
        cutoff = self._clock() - self.window_seconds
        while self._usage and self._usage[0][0] <= cutoff:
            self._total -= self._usage.popleft()[1]

    def record(self, tokens: int) -> None:
        """Count ``tokens`` as spent now."""
        if tokens <= 0:
            return
        self._prune()
        self._usage.append((self._clock(), int(tokens)))
        self._total += int(tokens)

    def used(self) -> int:
        """Tokens spent within the window (reservations not included)."""
        self._prune()
        return self._total

    @property
    def reserved(self) -> int:
        return self._reserved

    def remaining(self) -> int:
        """Tokens still available in the window (never negative)."""
        return max(0, self.limit - self.used() - self._reserved)

    @property
    def exhausted(self) -> bool:
        return self.remaining() <= 0

    def seconds_until_recovery(self) -> float:
        """How long until spent tokens roll off enough to allow a call (0 if now).

        In-flight reservations are ignored: they settle on their own.
        """
        return self.seconds_until_available(1)

    def seconds_until_available(self, tokens: int) -> float:
        """How long until at least ``tokens`` are left, as spending rolls out of the
        window (0 if now; inf if rolling off alone never frees enough, e.g. with a
        limit of 0 or while reservations hold the rest)."""
        self._prune()
        needed = self._total + self._reserved + max(1, tokens) - self.limit
        if needed <= 0:
            return 0.0
        freed = 0
        for stamp, spent in self._usage:
            freed += spent
            if freed >= needed:
                return max(0.0, stamp + self.window_seconds - self._clock())
        return float("inf")

    def release(self, reserved_tokens: int) -> None:
        self._reserved = max(0, self._reserved - reserved_tokens)

    def reserve(self, tokens: int) -> Reservation:
        tokens = max(0, int(tokens))
        self._reserved += tokens
        return Reservation(self, tokens)
