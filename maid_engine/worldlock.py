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

The holder of :meth:`WorldLock.first` may also lend the world, between two steps
of its own, to the waiters that took it with :meth:`WorldLock.command` (a
player's command line): each runs whole, and the lock comes back to the lender
before any other waiter. Other waiters (a checkpoint, a quest build registering
its quest) are never lent it: they keep their place and wait for the holder to end.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from typing import Literal

__all__ = ["Holding", "WorldLock"]


class WorldLock(asyncio.Lock):
    """An ``asyncio.Lock`` (``async with lock``, ``locked()``) whose
    :meth:`first` jumps the queue of ordinary waiters."""

    #: Held (asyncio.Lock's own flag, which ``locked()`` reads).
    _locked: bool

    def __init__(self) -> None:
        super().__init__()
        self._first: deque[asyncio.Future[None]] = deque()
        self._rest: deque[asyncio.Future[None]] = deque()
        #: The waiters of ``_rest`` that came through :meth:`command`.
        self._commands: set[asyncio.Future[None]] = set()

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
    async def command(self) -> AsyncIterator[None]:
        """Hold the lock in arrival order, as ``async with lock`` does; a holder of
        :meth:`first` may lend it to this waiter (:meth:`Holding.lend`)."""
        await self._acquire(self._rest, command=True)
        try:
            yield
        finally:
            self.release()

    @contextlib.asynccontextmanager
    async def first(self) -> AsyncIterator[Holding]:
        """Hold the lock, served before every ordinary waiter (the tick)."""
        await self._acquire(self._first)
        holding = Holding(self)
        try:
            yield holding
        finally:
            if holding.held:
                self.release()

    async def _acquire(
        self, queue: deque[asyncio.Future[None]], command: bool = False
    ) -> Literal[True]:
        if not self._locked and not self._first and not self._rest:
            self._locked = True
            return True
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(fut)
        if command:
            self._commands.add(fut)
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
        finally:
            self._commands.discard(fut)
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


class Holding:
    """The tick's hold on a :class:`WorldLock` (what ``first()`` gives)."""

    __slots__ = ("_lock", "held")

    def __init__(self, lock: WorldLock) -> None:
        self._lock = lock
        #: False only while the world is lent (or if taking it back was cancelled:
        #: then it is not ours to release).
        self.held = True

    async def lend(self) -> bool:
        """Hand the world to the command (:meth:`WorldLock.command`) that has waited
        longest, if one waits, and take it back, before every other ordinary
        waiter, once that one lets go. False (and nothing done) when no command
        waits."""
        lock = self._lock
        for fut in lock._rest:
            if not fut.done() and fut in lock._commands:
                break
        else:
            return False
        lock._rest.remove(fut)
        self.held = False
        fut.set_result(None)  # handed over: the lock stays held
        await lock._acquire(lock._first)
        self.held = True
        return True
