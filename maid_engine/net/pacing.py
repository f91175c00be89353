"""Writing queued output a batch of connections per event-loop turn.

A connection's output is queued and written once per loop turn (see
``MaidTelnetProtocol.write_bytes``). When one line goes to a whole crowd -- an
arrival told to a thousand players, a shout -- every connection has output in the
same turn, and writing it all at once is hundreds of socket writes (each tens of
microseconds of kernel time) in one go, while the players' own commands wait
behind them. :class:`OutputPacer` writes connections until a turn's ``budget``
of time is spent (and never more than ``batch``), and lets the loop read and answer
in between. The budget is time, not a count, because what a write costs is the
kernel's and moves with the machine's load: a count that is 1 ms on a quiet machine
was 3 ms on a busy one, and a command that came in behind it waited all of that. A
command's answer does not wait in it: the end of a prompt writes at once.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

__all__ = ["FLUSH_BATCH", "FLUSH_BUDGET", "Flushable", "OutputPacer"]

#: The most connections written in one event-loop turn.
FLUSH_BATCH = 48
#: Seconds of writing in one event-loop turn, after which the rest waits for the
#: next (at least one connection is written a turn). A command that came in waits
#: for a turn or two of these on its way to the world (the tick lending it gives
#: the loop three turns first), so a quarter of a millisecond.
FLUSH_BUDGET = 0.00025


class Flushable(Protocol):
    def flush_queued(self) -> None:
        """Write what is queued, if anything still is."""


class OutputPacer:
    """Connections with output waiting, written in the order they asked, each loop
    turn until ``budget`` seconds (on ``clock``) are spent or ``batch`` are written."""

    def __init__(
        self,
        batch: int = FLUSH_BATCH,
        budget: float = FLUSH_BUDGET,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if batch < 1:
            raise ValueError(f"a flush batch must be at least 1, not {batch}")
        if budget <= 0:
            raise ValueError(f"a flush budget must be positive, not {budget}")
        self.batch = batch
        self.budget = budget
        self._clock = clock
        self._due: deque[Flushable] = deque()
        self._handle: asyncio.Handle | None = None

    @property
    def waiting(self) -> int:
        """Connections not written yet (some may have written meanwhile)."""
        return len(self._due)

    def add(self, connection: Flushable) -> None:
        """Write ``connection``'s queued output in a coming loop turn."""
        self._due.append(connection)
        if self._handle is None:
            self._handle = asyncio.get_running_loop().call_soon(self._run)

    def _run(self) -> None:
        self._handle = None
        due, clock = self._due, self._clock
        until = clock() + self.budget
        for _ in range(min(self.batch, len(due))):
            due.popleft().flush_queued()
            if clock() >= until:
                break
        if due:
            # The rest after the reads and answers that are ready now.
            self._handle = asyncio.get_running_loop().call_soon(self._run)
