"""Sliding-window limit on failed login attempts (per address and per account)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

# Above this many tracked keys, a failure also sweeps out keys whose window is
# empty, so a scan from many addresses cannot grow the table without bound.
_SWEEP_THRESHOLD = 10_000


class LoginThrottle:
    """Counts failures per key over the last ``window`` seconds.

    ``clock`` is a monotonic clock (injectable so tests can step time). A key is
    blocked once it has ``limit`` failures inside the window; it unblocks by itself
    as the oldest failures age out.
    """

    def __init__(
        self,
        limit: int,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit < 1:
            raise ValueError("limit must be >= 1")
        self.limit = limit
        self.window = window
        self.clock = clock
        self._hits: dict[str, deque[float]] = {}

    def _live(self, key: str, now: float) -> deque[float] | None:
        hits = self._hits.get(key)
        if hits is None:
            return None
        cutoff = now - self.window
        while hits and hits[0] <= cutoff:
            hits.popleft()
        if not hits:
            del self._hits[key]
            return None
        return hits

    def failures(self, key: str) -> int:
        hits = self._live(key, self.clock())
        return len(hits) if hits is not None else 0

    def blocked(self, *keys: str) -> bool:
        """Whether any of ``keys`` has reached the limit."""
        now = self.clock()
        for key in keys:
            hits = self._live(key, now)
            if hits is not None and len(hits) >= self.limit:
                return True
        return False

    def hit(self, *keys: str) -> None:
        """Record one attempt against each key."""
        now = self.clock()
        if len(self._hits) > _SWEEP_THRESHOLD:
            for key in list(self._hits):
                self._live(key, now)
        for key in keys:
            self._hits.setdefault(key, deque()).append(now)

    def undo(self, *keys: str) -> None:
        """Take back the latest attempt of each key (it turned out to succeed)."""
        for key in keys:
            hits = self._hits.get(key)
            if hits:
                hits.pop()
                if not hits:
                    del self._hits[key]

    def reset(self, *keys: str) -> None:
        for key in keys:
            self._hits.pop(key, None)

    def __len__(self) -> int:
        return len(self._hits)


def ip_key(ip: str) -> str:
    return f"ip:{ip}"


def account_key(key: str) -> str:
    return f"account:{key}"
