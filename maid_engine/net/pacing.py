"""Writing queued output a batch of connections per event-loop turn.

A connection's output is queued and written once per loop turn (see
``MaidTelnetProtocol.write_bytes``). When one line goes to a whole crowd -- an
arrival told to a thousand players, a shout -- every connection has output in the
same turn, and writing it all at once is hundreds of socket writes (each tens of
microseconds of kernel time) in one go, while the players' own commands wait
behind them. :class:`OutputPacer` writes at most ``batch`` connections per turn
and lets the loop read and answer in between. A command's answer does not wait in
it: the end of a prompt writes at once.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Protocol

__all__ = ["FLUSH_BATCH", "Flushable", "OutputPacer"]

#: Connections written per event-loop turn (a few milliseconds of writes).
FLUSH_BATCH = 48


class Flushable(Protocol):
    def flush_queued(self) -> None:
        """Write what is queued, if anything still is."""


class OutputPacer:
    """Connections with output waiting, written ``batch`` per loop turn in the
    order they asked."""

    def __init__(self, batch: int = FLUSH_BATCH) -> None:
        if batch < 1:
            raise ValueError(f"a flush batch must be at least 1, not {batch}")
        self.batch = batch
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
        due = self._due
        for _ in range(min(self.batch, len(due))):
            due.popleft().flush_queued()
        if due:
            # The rest after the reads and answers that are ready now.
            self._handle = asyncio.get_running_loop().call_soon(self._run)
