"""Long work on the event loop, done in turns.

Everything a MAID server does for its players runs on one event loop, so a piece
of Python that runs for milliseconds without awaiting holds every player's
command for as long. Work that walks many items and may be spread out (encoding
a store's documents, building a save of many records) walks them with
:func:`in_turns`, which gives the loop a turn whenever a slice of time is spent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TypeVar

__all__ = ["TURN_SECONDS", "give_way", "in_turns"]

#: Work between two turns of the loop: a command that comes in meanwhile waits
#: at most about this long for it (half a millisecond is about what a command's
#: own work takes).
TURN_SECONDS = 0.0005

_T = TypeVar("_T")


async def give_way() -> None:
    """Give the loop the turns a line on a socket takes to reach the world lock: one
    reads it into the session's inbox, one wakes the session's worker, whose
    command then asks for the world. Awaited before taking the world lock for a
    piece of work that is not a player's command (the tick lending the world, a
    login entering the game), it lets the commands that came in meanwhile queue
    for the lock first instead of waiting behind that piece too."""
    for _ in range(3):
        await asyncio.sleep(0)


async def in_turns(
    items: Iterable[_T],
    seconds: float = TURN_SECONDS,
    clock: Callable[[], float] = time.perf_counter,
) -> AsyncIterator[_T]:
    """Each of ``items`` in order; after an item whose work (the caller's, between
    two of them) ends ``seconds`` or more after the last turn, the loop gets one.

    The items may change while the loop has its turn: walk a copy where that
    matters (``list(mapping.items())``).
    """
    until = clock() + seconds
    for item in items:
        yield item
        if clock() >= until:
            await asyncio.sleep(0)
            until = clock() + seconds
