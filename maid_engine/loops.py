"""The event loop the server runs on.

uvloop, where it is installed (on Linux and macOS it comes with MAID), replaces
asyncio's pure-Python selector loop, transports and callback scheduling with C
(libuv): the loop's own share of every command's round trip -- waking on a
socket, reading it, scheduling the session's callbacks, writing the answer --
falls, and so does how long one player's command waits behind another's. Nothing
in the engine depends on which loop runs it; ``MAID_EVENT_LOOP=asyncio`` chooses
asyncio's own (for a debugger that expects it, or to compare).
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

__all__ = ["EventLoopChoice", "LoopUnavailable", "loop_factory", "loop_name", "run"]

#: ``auto``: uvloop when it can be imported, else asyncio's own loop.
EventLoopChoice = Literal["auto", "uvloop", "asyncio"]

T = TypeVar("T")


class LoopUnavailable(RuntimeError):
    """uvloop was asked for by name but cannot be imported here."""


def loop_factory(choice: EventLoopChoice) -> Callable[[], asyncio.AbstractEventLoop]:
    """What makes the loop for ``choice``. Raises :class:`LoopUnavailable` when
    ``uvloop`` is named and not installed (``auto`` falls back quietly)."""
    if choice == "asyncio":
        return asyncio.new_event_loop
    if importlib.util.find_spec("uvloop") is None:
        if choice == "uvloop":
            raise LoopUnavailable(
                "MAID_EVENT_LOOP=uvloop, but uvloop is not installed "
                "(pip install uvloop; it runs on Linux and macOS)"
            )
        return asyncio.new_event_loop
    import uvloop

    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T], choice: EventLoopChoice) -> T:
    """``asyncio.run(main)`` on the loop ``choice`` names."""
    try:
        factory = loop_factory(choice)
    except LoopUnavailable:
        main.close()  # it never ran: closed, Python does not warn it was never awaited
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)


def loop_name(loop: asyncio.AbstractEventLoop) -> str:
    """``uvloop`` or ``asyncio``: which loop is running, for the start-up line."""
    return "uvloop" if type(loop).__module__.partition(".")[0] == "uvloop" else "asyncio"
