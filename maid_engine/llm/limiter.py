"""The one shared guard in front of every LLM call: requests per minute and tokens per window.

All LLM users (quest generation, narration, ...) must go through the same
:class:`LLMLimiter` instance, otherwise each would get a full budget of its own.

Time comes from an injectable ``clock`` callable returning seconds (real time:
``time.monotonic`` in production, ``ManualClock.monotonic`` in tests, which a test
can step). Nothing here sleeps unless ``max_wait`` allows it.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from maid_engine.llm.errors import LLMBudgetExhausted, LLMRateLimited
from maid_engine.llm.metrics import LLMMetrics
from maid_engine.llm.request import LLMRequest

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
        self._prune()
        excess = self._total + self._reserved - self.limit
        if excess < 0:
            return 0.0
        if self.limit == 0:
            return float("inf")
        freed = 0
        for stamp, tokens in self._usage:
            freed += tokens
            if freed > excess:
                return max(0.0, stamp + self.window_seconds - self._clock())
        return float("inf")

    def release(self, reserved_tokens: int) -> None:
        self._reserved = max(0, self._reserved - reserved_tokens)

    def reserve(self, tokens: int) -> Reservation:
        tokens = max(0, int(tokens))
        self._reserved += tokens
        return Reservation(self, tokens)


class Admission:
    """Permission for one call; ``settle`` it with the real token usage."""

    def __init__(self, reservation: Reservation | None) -> None:
        self.reservation = reservation

    def settle(self, actual_tokens: int) -> None:
        if self.reservation is not None:
            self.reservation.settle(actual_tokens)


class LLMLimiter:
    """Rate limit plus token budget, shared by every provider of the process."""

    def __init__(
        self,
        rate: RateLimiter | None = None,
        budget: TokenBudget | None = None,
        *,
        max_wait: float = 0.0,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.rate = rate
        self.budget = budget
        #: How long a request may wait for a rate-limit slot before failing.
        self.max_wait = max_wait
        self._sleep = sleep

    @classmethod
    def from_limits(
        cls,
        requests_per_minute: float,
        tokens_per_window: int,
        window_seconds: float = 3600.0,
        *,
        clock: Clock = time.monotonic,
        burst: int | None = None,
        max_wait: float = 0.0,
        sleep: Sleep = asyncio.sleep,
    ) -> LLMLimiter:
        return cls(
            RateLimiter(requests_per_minute, burst=burst, clock=clock),
            TokenBudget(tokens_per_window, window_seconds, clock=clock),
            max_wait=max_wait,
            sleep=sleep,
        )

    def bind_metrics(self, metrics: LLMMetrics) -> None:
        """Export the remaining budget, computed when scraped (the window rolls on its own)."""
        if self.budget is not None and metrics.budget_remaining is not None:
            metrics.budget_remaining.set_function(self.budget.remaining)

    async def admit(self, request: LLMRequest) -> Admission:
        """Check the budget, take a rate slot and reserve the estimated tokens.

        Raises LLMBudgetExhausted or LLMRateLimited without any call being made.
        """
        budget = self.budget
        # The budget first: an exhausted budget must not also burn rate-limit slots.
        if budget is not None and budget.exhausted:
            raise LLMBudgetExhausted(
                f"LLM token budget of {budget.limit} per {budget.window_seconds:g} s is spent",
                purpose=request.purpose,
            )
        if self.rate is not None:
            await self.rate.acquire(self.max_wait, self._sleep)
        if budget is None:
            return Admission(None)
        if budget.exhausted:
            raise LLMBudgetExhausted("LLM token budget is spent", purpose=request.purpose)
        return Admission(budget.reserve(request.estimated_tokens()))

    def status(self) -> dict[str, Any]:
        """A snapshot for admin commands (``@quest backpressure`` and the like)."""
        out: dict[str, Any] = {}
        if self.budget is not None:
            out.update(
                budget_limit=self.budget.limit,
                budget_window_seconds=self.budget.window_seconds,
                budget_used=self.budget.used(),
                budget_reserved=self.budget.reserved,
                budget_remaining=self.budget.remaining(),
                budget_exhausted=self.budget.exhausted,
                budget_recovers_in=self.budget.seconds_until_recovery(),
            )
        if self.rate is not None:
            out.update(
                requests_per_minute=self.rate.requests_per_minute,
                rate_available=self.rate.available,
            )
        return out
