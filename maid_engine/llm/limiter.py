"""The one shared guard in front of every LLM call.

It holds, for the whole process: requests per minute, the rolling token budget
(with a share of it kept for quest generation), per-character and per-account token
quotas, and a fair queue bounding the calls in flight. All LLM users (quest
generation, narration, ...) must go through the same :class:`LLMLimiter` instance,
otherwise each would get a full budget of its own.

Time comes from an injectable ``clock`` callable returning seconds (real time:
``time.monotonic`` in production, ``ManualClock.monotonic`` in tests, which a test
can step). Nothing here sleeps unless ``max_wait`` allows it; a request may wait its
turn in the fair queue, which is woken by other calls ending, not by time.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from maid_engine.llm.budget import Clock, RateLimiter, Reservation, Sleep, TokenBudget
from maid_engine.llm.errors import LLMBudgetExhausted, LLMError, LLMQuotaExceeded
from maid_engine.llm.metrics import LLMMetrics
from maid_engine.llm.quota import SERVER_LANE, FairQueue, QuotaBook, Slot
from maid_engine.llm.request import KIND_PLAYER, KIND_QUEST, LLMRequest

__all__ = [
    "Admission",
    "Clock",
    "LLMLimiter",
    "RateLimiter",
    "Reservation",
    "Sleep",
    "TokenBudget",
]


class Admission:
    """Permission for one call; ``settle`` it with the real token usage.

    Settling replaces every reservation (the server budget's and the quotas') with
    the real figure and gives the call's place in the fair queue back.
    """

    def __init__(
        self, reservations: list[Reservation] | Reservation | None = None, slot: Slot | None = None
    ) -> None:
        if reservations is None:
            reservations = []
        elif isinstance(reservations, Reservation):
            reservations = [reservations]
        self.reservations = reservations
        self.slot = slot

    @property
    def reservation(self) -> Reservation | None:
        """The server budget's reservation (the first one), if any."""
        return self.reservations[0] if self.reservations else None

    def settle(self, actual_tokens: int) -> None:
        for reservation in self.reservations:
            reservation.settle(actual_tokens)
        if self.slot is not None:
            self.slot.release()


class LLMLimiter:
    """Rate limit, token budget, quotas and fair queue, shared by every provider.

    ``characters`` and ``accounts`` are the quota books a player's request is charged
    to (None: no such quota). ``queue`` bounds the calls in flight (None: no bound).
    ``quest_reserve`` tokens of the budget are kept for requests of kind
    ``KIND_QUEST``: any other request is refused once admitting it would leave less.
    """

    def __init__(
        self,
        rate: RateLimiter | None = None,
        budget: TokenBudget | None = None,
        *,
        max_wait: float = 0.0,
        sleep: Sleep = asyncio.sleep,
        characters: QuotaBook | None = None,
        accounts: QuotaBook | None = None,
        queue: FairQueue | None = None,
        quest_reserve: int = 0,
    ) -> None:
        if quest_reserve < 0:
            raise ValueError("quest_reserve must be >= 0")
        self.rate = rate
        self.budget = budget
        #: How long a request may wait for a rate-limit slot before failing.
        self.max_wait = max_wait
        self._sleep = sleep
        self.characters = characters
        self.accounts = accounts
        self.queue = queue
        self.quest_reserve = int(quest_reserve)
        self._metrics: LLMMetrics | None = None

    @classmethod
    def from_limits(
        cls,
        requests_per_minute: float,
        tokens_per_window: int,
        window_seconds: float = 3600.0,
        *,
        clock: Clock = time.monotonic,
        burst: int | None = None,
        max_wait: float = 0.0,
        sleep: Sleep = asyncio.sleep,
        character_tokens: int = 0,
        account_tokens: int = 0,
        quota_window_seconds: float = 600.0,
        max_concurrent: int = 0,
        max_waiting_per_account: int = 2,
        quest_reserve: int = 0,
    ) -> LLMLimiter:
        """A limiter from plain figures; a quota or ``max_concurrent`` of 0 means none."""
        return cls(
            RateLimiter(requests_per_minute, burst=burst, clock=clock),
            TokenBudget(tokens_per_window, window_seconds, clock=clock),
            max_wait=max_wait,
            sleep=sleep,
            characters=(
                QuotaBook("character", character_tokens, quota_window_seconds, clock)
                if character_tokens > 0
                else None
            ),
            accounts=(
                QuotaBook("account", account_tokens, quota_window_seconds, clock)
                if account_tokens > 0
                else None
            ),
            queue=(
                FairQueue(max_concurrent, max_waiting_per_account) if max_concurrent > 0 else None
            ),
            quest_reserve=quest_reserve,
        )

    def bind_metrics(self, metrics: LLMMetrics) -> None:
        """Export the remaining budget, computed when scraped (the window rolls on its
        own), and count quota refusals on ``metrics``."""
        self._metrics = metrics
        if self.budget is not None and metrics.budget_remaining is not None:
            metrics.budget_remaining.set_function(self.budget.remaining)

    # -- checks ------------------------------------------------------------------------
    def _refused(self, request: LLMRequest, error: LLMError, kind: str) -> LLMError:
        error.purpose = request.purpose
        if self._metrics is not None:
            self._metrics.quota_refusal(request.purpose, kind)
        return error

    def check_quota(
        self, account: str | None, character: str | None, purpose: str = "narration"
    ) -> LLMQuotaExceeded | None:
        """The refusal a player's request would get from their own quotas now, or None.

        For a caller that wants to refuse before building a request (a command that
        answers at once). A refusal returned here is counted like one from ``admit``.
        """
        for book, name in ((self.characters, character), (self.accounts, account)):
            if book is None or not name:
                continue
            refusal = book.refusal(name)
            if refusal is not None:
                refusal.purpose = purpose
                if self._metrics is not None:
                    self._metrics.quota_refusal(purpose, book.scope)
                return refusal
        return None

    def _check(self, request: LLMRequest) -> None:
        """Raise the refusal ``request`` gets now, cheapest and most personal first."""
        if request.kind == KIND_PLAYER:
            refusal = self.check_quota(request.account, request.character, request.purpose)
            if refusal is not None:
                raise refusal
        budget = self.budget
        if budget is None:
            return
        if budget.exhausted:
            wait = budget.seconds_until_recovery()
            raise LLMBudgetExhausted(
                f"LLM token budget of {budget.limit} per {budget.window_seconds:g} s is spent",
                purpose=request.purpose,
                retry_after=wait if wait != float("inf") else None,
            )
        if self.quest_reserve and request.kind != KIND_QUEST:
            # The whole in-flight reservation must fit above the reserve: the
            # reserve is never lent, not even for one call.
            needed = self.quest_reserve + request.estimated_tokens()
            if budget.remaining() < needed:
                wait = budget.seconds_until_available(needed)
                raise self._refused(
                    request,
                    LLMBudgetExhausted(
                        f"the rest of the LLM budget ({budget.remaining()} tokens) is kept "
                        "for quest generation",
                        retry_after=wait if wait != float("inf") else None,
                    ),
                    "reserve",
                )

    async def _take_slot(self, request: LLMRequest) -> Slot | None:
        if self.queue is None:
            return None
        if request.kind == KIND_PLAYER:
            lane = request.account or request.character or SERVER_LANE
            try:
                return await self.queue.acquire(lane, bounded=True)
            except LLMQuotaExceeded as exc:
                raise self._refused(request, exc, "queue") from None
        return await self.queue.acquire(SERVER_LANE, bounded=False)

    async def admit(self, request: LLMRequest) -> Admission:
        """Check quotas and budget, wait for a turn in the fair queue, take a rate
        slot and reserve the estimated tokens (server budget and quotas).

        Raises LLMQuotaExceeded, LLMBudgetExhausted or LLMRateLimited without any
        call being made and without charging anything.
        """
        # Refusals first: a spent quota or budget must not also take a place in the
        # queue or burn rate-limit slots.
        self._check(request)
        slot = await self._take_slot(request)
        try:
            if self.rate is not None:
                await self.rate.acquire(self.max_wait, self._sleep)
            # Others may have spent while this request waited its turn or its slot.
            self._check(request)
            reservations: list[Reservation] = []
            estimate = request.estimated_tokens()
            if self.budget is not None:
                reservations.append(self.budget.reserve(estimate))
            if request.kind == KIND_PLAYER:
                for book, name in (
                    (self.characters, request.character),
                    (self.accounts, request.account),
                ):
                    if book is not None and name:
                        reservations.append(book.reserve(name, estimate))
        except BaseException:
            if slot is not None:
                slot.release()
            raise
        return Admission(reservations, slot)

    def status(self) -> dict[str, Any]:
        """A snapshot for admin commands (``@quest backpressure`` and the like)."""
        out: dict[str, Any] = {}
        if self.budget is not None:
            out.update(
                budget_limit=self.budget.limit,
                budget_window_seconds=self.budget.window_seconds,
                budget_used=self.budget.used(),
                budget_reserved=self.budget.reserved,
                budget_remaining=self.budget.remaining(),
                budget_exhausted=self.budget.exhausted,
                budget_recovers_in=self.budget.seconds_until_recovery(),
                quest_reserve=self.quest_reserve,
            )
        if self.rate is not None:
            out.update(
                requests_per_minute=self.rate.requests_per_minute,
                rate_available=self.rate.available,
            )
        for key, book in (("character", self.characters), ("account", self.accounts)):
            if book is not None:
                out[f"{key}_quota"] = book.limit
                out[f"{key}_quota_active"] = len(book)
        if self.characters is not None or self.accounts is not None:
            book = self.characters or self.accounts
            assert book is not None
            out["quota_window_seconds"] = book.window_seconds
        if self.queue is not None:
            out.update(
                max_concurrent=self.queue.max_concurrent,
                in_flight=self.queue.in_flight,
                waiting=self.queue.waiting,
            )
        return out
