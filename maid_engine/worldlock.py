"""WorldLock: the lock ticks and player commands share, with the tick served first.

An ``asyncio.Lock`` wakes its waiters in arrival order. In a busy evening dozens
of commands may be queued for the world when a tick falls due, and the tick then
started only after all of them: a burst of commands made the tick late by their
sum. A :class:`WorldLock` keeps two queues. Whoever takes it with
:meth:`WorldLock.first` (the tick) is handed the world as soon as the current
holder lets go, ahead of the commands already waiting; everyone else is served in
arrival order. Commands cannot be starved by it: the tick asks once per tick
interval, and every command waiting when the tick ends goes before the next tick.

The lock is handed over directly on release (the next waiter holds it before it
runs again), so nobody arriving in between can take it out of turn.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from typing import Literal

__all__ = ["WorldLock"]


class WorldLock(asyncio.Lock):
    """An ``asyncio.Lock`` (``async with lock``, ``locked()``) whose
    :meth:`first` jumps the queue of ordinary waiters."""

    #: Held (asyncio.Lock's own flag, which ``locked()`` reads).
    _locked: bool

    def __init__(self) -> None:
        super().__init__()
        self._first: deque[asyncio.Future[None]] = deque()
        self._rest: deque[asyncio.Future[None]] = deque()

    def waiting(self) -> tuple[int, int]:
        """(priority waiters, ordinary waiters) queued now."""
        return (
            sum(1 for f in self._first if not f.done()),
            sum(1 for f in self._rest if not f.done()),
        )

    async def acquire(self) -> Literal[True]:
        """Take the lock in arrival order (what ``async with lock`` does)."""
        return await self._acquire(self._rest)

    @contextlib.asynccontextmanager
    async def first(self) -> AsyncIterator[None]:
        """Hold the lock, served before every ordinary waiter (the tick)."""
        await self._acquire(self._first)
        try:
            yield
        finally:
            self.release()

    async def _acquire(self, queue: deque[asyncio.Future[None]]) -> Literal[True]:
        if not self._locked and not self._first and not self._rest:
            self._locked = True
            return True
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(fut)
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                # The lock was handed to us as we were cancelled: pass it on.
                self.release()
            else:
                with contextlib.suppress(ValueError):
                    queue.remove(fut)
            raise
        return True

    def release(self) -> None:
        if not self._locked:
            raise RuntimeError("Lock is not acquired.")
        for queue in (self._first, self._rest):
            while queue:
                fut = queue.popleft()
                if not fut.done():
                    fut.set_result(None)  # handed over: the lock stays held
                    return
        self._locked = False
