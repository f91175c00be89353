"""A system's share of one tick, in real time.

Systems that spread their work over ticks (the NPCs' visits, the story's
detection rounds) size a tick's part by the game time it covers, so that a cycle
ends when it should. On a fast machine that count is also what bounds the tick;
on a slow one, or in a slow moment of a shared one, the same count takes two or
three times as long and the tick grows with it. A :class:`TickSlice` says when a
system has used its share of the tick's real time: the system stops at its next
whole point and leaves the rest for the next tick. Its work is paced by game
time, so it ends later, not wrongly.

Only the system's own work counts: the time a tick lends to players' commands in
the middle of it is not the system's. The clock is the engine's, so a simulation
or a test on a manual clock, whose time does not move within a tick, is never
cut: what it decides never depends on the machine's speed.

The shares are counted one by one, and the engine bounds them together too: a
share never reaches past what is left of the tick's budget (the tick's own time
so far, what it lent aside), so that several systems' shares on top of the work
that cannot wait do not add up to a late tick.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TypeVar, cast

__all__ = ["UNFINISHED", "Steps", "TickSlice", "run_steps", "step_within"]

R = TypeVar("R")

#: Work in steps: a generator that yields where the work may wait for the next
#: tick (its state whole there) and returns the work's result.
Steps = Generator[None, None, R]


def _nothing_lent() -> float:
    return 0.0


class TickSlice:
    """Real time a system may work in this tick (``limit`` seconds; 0: no limit).

    ``clock`` is a monotonic clock in seconds; ``lent`` the seconds the tick has
    lent to commands so far (they are taken out of the system's time); ``cut`` is
    called once, the first time the share is found spent (a metric).
    """

    __slots__ = ("_clock", "_cut", "_lent", "_lent_at", "_limit", "_started", "_told")

    def __init__(
        self,
        clock: Callable[[], float],
        limit: float,
        lent: Callable[[], float] = _nothing_lent,
        cut: Callable[[], None] | None = None,
    ) -> None:
        self._clock = clock
        self._limit = limit
        self._lent = lent
        self._cut = cut
        self._started = clock()
        self._lent_at = lent()
        self._told = False

    @property
    def used(self) -> float:
        """Seconds of the system's own work since the slice began."""
        return self._clock() - self._started - (self._lent() - self._lent_at)

    def spent(self) -> bool:
        """Whether the share is used up: stop at the next whole point."""
        if self._limit <= 0 or self.used < self._limit:
            return False
        if not self._told:
            self._told = True
            if self._cut is not None:
                self._cut()
        return True


def run_steps(steps: Generator[object, None, R]) -> R:
    """Every step of ``steps`` (any generator's: what it yields is not read) now;
    its result."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return cast(R, stop.value)


class _Unfinished:
    __slots__ = ()


#: What :func:`step_within` returns when the share ran out before the work's end.
UNFINISHED = _Unfinished()


def step_within(steps: Steps[R], share: TickSlice | None) -> R | _Unfinished:
    """Steps of ``steps`` until it ends (its result) or, after a step, ``share`` is
    spent (``UNFINISHED``: go on with the same generator next tick). One step at
    least; ``share`` None: to the end."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return cast(R, stop.value)
        if share is not None and share.spent():
            return UNFINISHED
