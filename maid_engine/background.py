"""Threads that do the game's slow work beside the event loop, below it.

On Linux every thread has its own scheduling. A thread working beside the event
loop (a password hash, the SQLite driver writing a checkpoint) at the loop's own
priority holds a CPU for a scheduler slice, a few milliseconds, whenever both
want one: on a machine of one or two CPUs the players' commands then wait for it.
In the idle class the loop waking up takes the CPU back at once, and the thread
has every moment the loop leaves, which on a game server is most of them.
"""

from __future__ import annotations

import contextlib
import os
import threading

__all__ = ["BACKGROUND_NICENESS", "run_in_background"]

#: How much lower than the game a background thread runs where the idle
#: scheduling class is not to be had (a nice value, added).
BACKGROUND_NICENESS = 10


def run_in_background(native_id: int | None = None) -> None:
    """Put thread ``native_id`` (the calling thread when None) in the idle
    scheduling class (``SCHED_IDLE``: a CPU goes to it only when no other thread
    wants one), or failing that :data:`BACKGROUND_NICENESS` nice levels down. A
    nice level only weighs the share: a hash at nice 10 still held a busy CPU for
    a whole slice while the loop waited. Where neither can be had (not Linux, or
    refused), the thread is left as it is."""
    native = threading.get_native_id() if native_id is None else native_id
    try:
        os.sched_setscheduler(native, os.SCHED_IDLE, os.sched_param(0))
        return
    except (OSError, AttributeError):
        pass
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(
            os.PRIO_PROCESS, native, os.getpriority(os.PRIO_PROCESS, native) + BACKGROUND_NICENESS
        )
