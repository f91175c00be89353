"""Wall-clock pacing of the tick loop, and of the work a tick takes on.

``GameEngine.run()`` asks a :class:`Pacer` what time it is and to wait until the
next tick is due, instead of calling ``time`` and ``asyncio`` itself, so a test
can drive the loop with :class:`ManualPacer` (time moves only when told) and
check its timing exactly without ever sleeping.

Systems that spread a big job over ticks (a share of it per game second) ask a
:class:`TickAllowance` how much of it this tick may do: a tick that comes late
does not take its whole late share at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from collections import deque
from collections.abc import Callable
from math import ceil
from typing import Protocol


class Pacer(Protocol):
    """A monotonic clock in seconds and a way to wait on it."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back."""
        ...

    async def wait(self, seconds: float, stop: asyncio.Event) -> None:
        """Return after ``seconds``, or as soon as ``stop`` is set. With 0 it only
        yields to the event loop (player commands get their turn between ticks)."""
        ...


class RealPacer:
    """The process's monotonic clock and asyncio's timers."""

    def monotonic(self) -> float:
        return time.monotonic()

    async def wait(self, seconds: float, stop: asyncio.Event) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=seconds)


class ManualPacer:
    """A pacer for tests: its clock moves only by :meth:`advance` and by the waits
    it is asked for (each is recorded in :attr:`waits`); waiting never sleeps."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now
        self.waits: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass, as a tick's work would."""
        self.now += seconds

    async def wait(self, seconds: float, stop: asyncio.Event) -> None:
        self.waits.append(seconds)
        if seconds > 0 and not stop.is_set():
            self.now += seconds
        await asyncio.sleep(0)


class TickAllowance:
    """How much of a paced job one tick does.

    The job's owner says what a tick of ``delta`` game seconds is due
    (``share(delta)``: its work per game second, with its own minimum). A tick
    is given that, but at most ``cap`` times what a typical tick is due -- the
    typical tick being the median length of the last ``window`` ones -- and what
    it was due over that is carried: the next ticks do it, each as far as it
    stays under the same limit. A tick comes late when the loop was held up (a
    collection between ticks, a command, a busy machine), and covers more game
    time: doing its whole share at once made the late tick the slowest one too.
    Ticks of a steady length (a simulation's) are never capped: each gets
    exactly ``share(delta)``.
    """

    def __init__(self, cap: float = 1.5, window: int = 25) -> None:
        if cap < 1.0 or window < 1:
            raise ValueError("cap must be at least 1 and window at least 1")
        self.cap = cap
        self._deltas: deque[float] = deque(maxlen=window)
        #: Work due to earlier ticks and not done yet (units of ``share``).
        self.carried = 0

    def take(self, delta: float, share: Callable[[float], int]) -> int:
        """This tick's work: ``share(delta)`` within the limit, with what earlier
        ticks carried as far as there is room under it."""
        delta = max(delta, 0.0)
        self._deltas.append(delta)
        due = share(delta)
        limit = max(1, ceil(share(statistics.median(self._deltas)) * self.cap))
        if due > limit:
            self.carried += due - limit
            return limit
        extra = min(self.carried, limit - due)
        self.carried -= extra
        return due + extra

    def forget_carried(self) -> None:
        """Drop the carried work (the job it was owed to is over)."""
        self.carried = 0
