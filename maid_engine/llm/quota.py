"""Fair shares of the LLM: per-name token quotas and a round-robin queue of calls.

:class:`QuotaBook` keeps one rolling :class:`~maid_engine.llm.budget.TokenBudget` per
name (one book for characters, one for accounts), so that one player's flood spends
their own share and not everyone's. :class:`FairQueue` bounds the calls in flight
and, when they are all taken, hands the next free slot to the accounts waiting in
turn, one request each, so one busy account cannot starve the others.

Both run on the limiter's injectable clock; nothing here sleeps.
"""

from __future__ import annotations

import asyncio
from collections import deque

from maid_engine.llm.budget import Clock, Reservation, TokenBudget
from maid_engine.llm.errors import LLMQuotaExceeded

#: The queue lane of requests made on the server's own behalf (quests, system).
SERVER_LANE = "(server)"

#: Below this many names a book is not worth tidying.
_PRUNE_FLOOR = 64


class QuotaBook:
    """``limit`` tokens per ``window_seconds`` for each name (a character, an account).

    Budgets are made on first use and forgotten once nothing in their window is
    spent or reserved, so the book holds only the names active in the last window.
    """

    def __init__(self, scope: str, limit: int, window_seconds: float, clock: Clock) -> None:
        if limit <= 0:
            raise ValueError("a quota must be positive (leave it out to have none)")
        self.scope = scope
        self.limit = int(limit)
        self.window_seconds = float(window_seconds)
        self._clock = clock
        self._budgets: dict[str, TokenBudget] = {}
        self._prune_at = _PRUNE_FLOOR

    def __len__(self) -> int:
        return len(self._budgets)

    def _budget(self, name: str) -> TokenBudget:
        budget = self._budgets.get(name)
        if budget is None:
            if len(self._budgets) >= self._prune_at:
                self.prune()
            budget = TokenBudget(self.limit, self.window_seconds, clock=self._clock)
            self._budgets[name] = budget
        return budget

    def prune(self) -> None:
        """Forget the names with nothing spent or reserved in the window."""
        self._budgets = {
            name: b for name, b in self._budgets.items() if b.used() > 0 or b.reserved > 0
        }
        # Amortised: the next tidy-up waits until the book has doubled.
        self._prune_at = max(_PRUNE_FLOOR, 2 * len(self._budgets))

    def used(self, name: str) -> int:
        budget = self._budgets.get(name)
        return budget.used() if budget is not None else 0

    def remaining(self, name: str) -> int:
        budget = self._budgets.get(name)
        return budget.remaining() if budget is not None else self.limit

    def refusal(self, name: str) -> LLMQuotaExceeded | None:
        """The error to raise if ``name``'s share is used up, else None.

        A name is admitted while anything of its share is left, like the server
        budget: a call may go over by at most its own cost, once per window.
        """
        budget = self._budgets.get(name)
        if budget is None or not budget.exhausted:
            return None
        wait = budget.seconds_until_recovery()
        return LLMQuotaExceeded(
            f"the {self.scope} quota of {self.limit} tokens per "
            f"{self.window_seconds:g} s is used up",
            scope=self.scope,
            retry_after=wait if wait != float("inf") else None,
        )

    def reserve(self, name: str, tokens: int) -> Reservation:
        return self._budget(name).reserve(tokens)


class Slot:
    """One call's place among the calls in flight; ``release`` gives it back (once)."""

    def __init__(self, queue: FairQueue, lane: str) -> None:
        self._queue = queue
        self.lane = lane
        self.released = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self._queue._release(self.lane)


class FairQueue:
    """At most ``max_concurrent`` calls in flight; waiting requests served round-robin.

    Each lane (an account, or :data:`SERVER_LANE`) waits in its own FIFO. When a slot
    frees, the lane at the head of the rotation gets it for its oldest request and,
    if it has more waiting, goes to the back. A lane that had nothing waiting joins
    at the back, so an account that sends its next request as soon as the last one
    is answered still waits its turn behind everyone already queued. Player lanes
    hold at most ``max_waiting_per_lane`` requests; one more is refused at once.
    """

    def __init__(self, max_concurrent: int, max_waiting_per_lane: int) -> None:
        if max_concurrent < 1:
            raise ValueError("max_concurrent must be at least 1")
        if max_waiting_per_lane < 0:
            raise ValueError("max_waiting_per_lane must be >= 0")
        self.max_concurrent = max_concurrent
        self.max_waiting_per_lane = max_waiting_per_lane
        self.in_flight = 0
        # Insertion order is the rotation: the first lane is served next.
        self._lanes: dict[str, deque[asyncio.Future[Slot]]] = {}

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self._lanes.values())

    def waiting_in(self, lane: str) -> int:
        queue = self._lanes.get(lane)
        return len(queue) if queue is not None else 0

    async def acquire(self, lane: str, *, bounded: bool = True) -> Slot:
        """A slot for ``lane``: at once if one is free and nobody waits, else in turn.

        Raises LLMQuotaExceeded(scope="queue") when ``bounded`` and the lane already
        has ``max_waiting_per_lane`` requests waiting. Cancelling the wait takes the
        request out of the queue (or hands back a slot granted meanwhile).
        """
        if self.in_flight < self.max_concurrent and not self._lanes:
            return self._grant(lane)
        queue = self._lanes.get(lane)
        queued = len(queue) if queue is not None else 0
        if bounded and queued >= self.max_waiting_per_lane:
            raise LLMQuotaExceeded(
                f"{queued} requests of this account are already waiting for the model",
                scope="queue",
            )
        waiter: asyncio.Future[Slot] = asyncio.get_running_loop().create_future()
        if queue is None:
            queue = self._lanes[lane] = deque()
        queue.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                # Granted in the same instant the wait was cancelled: give it back.
                waiter.result().release()
            else:
                self._forget(lane, waiter)
            raise

    def _grant(self, lane: str) -> Slot:
        self.in_flight += 1
        return Slot(self, lane)

    def _forget(self, lane: str, waiter: asyncio.Future[Slot]) -> None:
        queue = self._lanes.get(lane)
        if queue is None:
            return
        try:
            queue.remove(waiter)
        except ValueError:
            return
        if not queue:
            del self._lanes[lane]

    def _release(self, lane: str) -> None:
        self.in_flight -= 1
        while self.in_flight < self.max_concurrent and self._lanes:
            first = next(iter(self._lanes))
            queue = self._lanes.pop(first)
            waiter = queue.popleft()
            if queue:
                self._lanes[first] = queue  # back of the rotation
            if waiter.done():  # cancelled while waiting, not yet forgotten
                continue
            waiter.set_result(self._grant(first))
