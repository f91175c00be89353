"""Wall-clock pacing of the tick loop.

``GameEngine.run()`` asks a :class:`Pacer` what time it is and to wait until the
next tick is due, instead of calling ``time`` and ``asyncio`` itself, so a test
can drive the loop with :class:`ManualPacer` (time moves only when told) and
check its timing exactly without ever sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
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
