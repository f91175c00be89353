"""Per-character and per-account quotas, the fair queue and the quest reserve of the
shared LLMLimiter (no network, stepped clock, no sleeping)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.llm import (
    KIND_PLAYER,
    KIND_QUEST,
    FairQueue,
    LLMBudgetExhausted,
    LLMLimiter,
    LLMQuotaExceeded,
    LLMRateLimited,
    LLMRequest,
    LLMResult,
    QuotaBook,
    ScriptedProvider,
    build_limiter,
)
from maid_engine.llm.quota import SERVER_LANE, Slot
from maid_engine.metrics import EngineMetrics

PROMPT = "Tell what happens."  # 18 characters: estimated at 4 + 4 + 3 = 11 prompt tokens


def player(
    character: str = "c-bryn", account: str | None = "a-bryn", max_tokens: int = 100
) -> LLMRequest:
    return LLMRequest.from_prompt(
        PROMPT,
        purpose="narration",
        max_tokens=max_tokens,
        kind=KIND_PLAYER,
        character=character,
        account=account,
    )


def quest(max_tokens: int = 100) -> LLMRequest:
    return LLMRequest.from_prompt(
        PROMPT, purpose="quest_narrative", max_tokens=max_tokens, kind=KIND_QUEST
    )


def costing(tokens: int) -> LLMResult:
    return LLMResult(
        "It happens.", prompt_tokens=tokens // 2, completion_tokens=tokens - tokens // 2
    )


async def spin(condition: Callable[[], bool]) -> None:
    """Let the other tasks run until ``condition`` holds (no time passes)."""
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the tasks did not get there")


def sample(metrics: EngineMetrics, name: str, **labels: str) -> float:
    value = metrics.registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


# -- requests ------------------------------------------------------------------------------
def test_a_players_request_names_someone_to_charge() -> None:
    with pytest.raises(ValueError, match="account or a character"):
        LLMRequest.from_prompt("x", kind=KIND_PLAYER)
    with pytest.raises(ValueError, match="kind must be one of"):
        LLMRequest.from_prompt("x", kind="vip")
    assert LLMRequest.from_prompt("x").kind == "system"
    assert player().estimated_tokens() == 111


# -- quota books ---------------------------------------------------------------------------
def test_a_quota_is_per_name_and_rolls_out_of_its_window(clock: ManualClock) -> None:
    book = QuotaBook("character", 1000, 600, clock.monotonic)
    book.reserve("bryn", 0).settle(700)
    assert book.refusal("bryn") is None  # 300 left: still admitted
    clock.advance_wall(100)
    book.reserve("bryn", 0).settle(400)  # over by 100: a call may overshoot once
    refusal = book.refusal("bryn")
    assert refusal is not None
    assert (refusal.scope, refusal.kind) == ("character", "quota_exceeded")
    # Enough rolls off when the first 700 leave the window, 600 s after they were spent.
    assert refusal.retry_after == pytest.approx(500)
    assert book.refusal("gwen") is None
    assert book.remaining("gwen") == 1000
    clock.advance_wall(499)
    assert book.refusal("bryn") is not None
    clock.advance_wall(1)
    assert book.refusal("bryn") is None
    assert book.used("bryn") == 400


def test_a_book_forgets_names_with_nothing_in_the_window(clock: ManualClock) -> None:
    book = QuotaBook("account", 100, 60, clock.monotonic)
    for n in range(200):
        book.reserve(f"a{n}", 0).settle(10)
    assert len(book) == 200
    clock.advance_wall(60)
    held = book.reserve("busy", 50)  # in flight: kept although nothing is spent yet
    book.prune()
    assert len(book) == 1
    held.settle(0)
    book.prune()
    assert len(book) == 0
    with pytest.raises(ValueError, match="positive"):
        QuotaBook("character", 0, 60, clock.monotonic)


# -- quotas in the limiter -----------------------------------------------------------------
async def test_a_spent_character_quota_refuses_without_a_call_or_a_charge(
    clock: ManualClock,
) -> None:
    metrics = EngineMetrics()
    limiter = LLMLimiter.from_limits(
        600, 100_000, clock=clock.monotonic, character_tokens=1000, quota_window_seconds=600
    )
    provider = ScriptedProvider(default=costing(600), limiter=limiter, metrics=metrics)
    await provider.complete(player())
    clock.advance_wall(10)
    await provider.complete(player())  # 600 < 1000 left before it: admitted, 1200 spent
    assert limiter.budget is not None
    assert limiter.rate is not None
    used, slots = limiter.budget.used(), limiter.rate.available
    clock.advance_wall(550)
    with pytest.raises(LLMQuotaExceeded) as info:
        await provider.complete(player())
    assert info.value.scope == "character"
    assert info.value.purpose == "narration"
    # The first 600 tokens leave the window at t=600, 40 s from now.
    assert info.value.retry_after == pytest.approx(40)
    assert len(provider.requests) == 2
    assert limiter.budget.used() == used
    assert limiter.budget.reserved == 0
    assert limiter.rate.available >= slots
    assert sample(metrics, "maid_llm_quota_refusals_total", purpose="narration", kind="character")
    assert (
        sample(metrics, "maid_llm_requests_total", purpose="narration", outcome="quota_exceeded")
        == 1
    )
    # A refusal is not a model failure.
    assert sample(metrics, "maid_llm_errors_total", purpose="narration", kind="quota_exceeded") == 0
    # Another character, and the server's own requests, are not affected.
    await provider.complete(player("c-gwen", "a-gwen"))
    await provider.complete(quest())
    clock.advance_wall(40)
    await provider.complete(player())
    assert len(provider.requests) == 5


async def test_an_account_quota_covers_all_its_characters(clock: ManualClock) -> None:
    limiter = LLMLimiter.from_limits(
        600,
        100_000,
        clock=clock.monotonic,
        character_tokens=1000,
        account_tokens=1500,
        quota_window_seconds=600,
    )
    provider = ScriptedProvider(default=costing(800), limiter=limiter)
    await provider.complete(player("c-alt1", "a-multi"))
    await provider.complete(player("c-alt2", "a-multi"))
    with pytest.raises(LLMQuotaExceeded) as info:
        await provider.complete(player("c-alt3", "a-multi"))
    assert info.value.scope == "account"
    assert limiter.check_quota("a-multi", "c-alt3") is not None
    assert limiter.check_quota("a-other", "c-alt3") is None
    assert limiter.characters is not None
    assert limiter.characters.used("c-alt1") == 800


async def test_quotas_hold_reservations_while_calls_are_in_flight(clock: ManualClock) -> None:
    release = asyncio.Event()

    async def slow(_request: LLMRequest) -> LLMResult:
        await release.wait()
        return costing(50)

    limiter = LLMLimiter.from_limits(
        600, 100_000, clock=clock.monotonic, account_tokens=150, quota_window_seconds=600
    )
    provider = ScriptedProvider(slow, limiter=limiter)
    assert limiter.accounts is not None
    accounts = limiter.accounts
    first = asyncio.ensure_future(provider.complete(player("c-1", "a-1")))
    await spin(lambda: accounts.remaining("a-1") == 150 - 111)
    second = asyncio.ensure_future(provider.complete(player("c-2", "a-1")))
    await spin(lambda: accounts.remaining("a-1") == 0)
    # Both estimates are held: the account is over its share until they settle.
    with pytest.raises(LLMQuotaExceeded):
        await provider.complete(player("c-3", "a-1"))
    release.set()
    await asyncio.gather(first, second)
    assert limiter.accounts.used("a-1") == 100
    assert limiter.accounts.remaining("a-1") == 50


# -- the quest reserve ---------------------------------------------------------------------
async def test_the_quest_reserve_is_kept_from_everything_but_quests(clock: ManualClock) -> None:
    metrics = EngineMetrics()
    limiter = LLMLimiter.from_limits(
        600, 1000, window_seconds=3600, clock=clock.monotonic, quest_reserve=400
    )
    provider = ScriptedProvider(default=costing(300), limiter=limiter, metrics=metrics)
    await provider.complete(player("c-1", "a-1"))  # 1000 left >= 400 + 111
    clock.advance_wall(60)
    await provider.complete(player("c-2", "a-2"))  # 700 left >= 511
    clock.advance_wall(60)
    assert limiter.budget is not None
    assert limiter.budget.remaining() == 400
    for request in (player("c-3", "a-3"), LLMRequest.from_prompt(PROMPT, max_tokens=100)):
        with pytest.raises(LLMBudgetExhausted) as info:
            await provider.complete(request)
        # 111 more tokens are free above the reserve once the first call leaves the window.
        assert info.value.retry_after == pytest.approx(3480)
    assert sample(metrics, "maid_llm_quota_refusals_total", purpose="narration", kind="reserve")
    assert sample(metrics, "maid_llm_quota_refusals_total", purpose="general", kind="reserve")
    # Quest prose may spend the reserve to the end.
    await provider.complete(quest())
    assert limiter.budget.remaining() == 100
    await provider.complete(quest())
    assert limiter.budget.exhausted
    with pytest.raises(LLMBudgetExhausted):
        await provider.complete(quest())
    assert len(provider.requests) == 4
    assert limiter.status()["quest_reserve"] == 400


# -- the fair queue ------------------------------------------------------------------------
async def _served_order(queue: FairQueue, held: Slot, waiting: list[tuple[str, str]]) -> list[str]:
    """Queue ``waiting`` (name, lane) behind the one slot ``held``; release one at a time."""
    order: list[str] = []
    slots: list[Slot] = []

    async def take(name: str, lane: str) -> None:
        slot = await queue.acquire(lane, bounded=lane != SERVER_LANE)
        order.append(name)
        slots.append(slot)

    tasks = [asyncio.ensure_future(take(name, lane)) for name, lane in waiting]
    await spin(lambda: queue.waiting == len(waiting))
    assert order == []
    held.release()
    for n in range(len(waiting)):
        await spin(lambda: len(slots) > n)  # noqa: B023 -- used before n moves on
        assert queue.in_flight == 1
        slots[-1].release()
    await asyncio.gather(*tasks)
    return order


async def test_waiting_requests_are_served_round_robin_by_account() -> None:
    queue = FairQueue(max_concurrent=1, max_waiting_per_lane=10)
    held = await queue.acquire("alice")
    waiting = [("a2", "alice"), ("a3", "alice"), ("a4", "alice"), ("b1", "bob")]
    waiting += [("q1", SERVER_LANE), ("c1", "carol"), ("b2", "bob")]
    order = await _served_order(queue, held, waiting)
    # First come, first served would be a2 a3 a4 b1 q1 c1 b2: alice's flood first.
    assert order == ["a2", "b1", "q1", "c1", "a3", "b2", "a4"]
    assert queue.in_flight == 0
    assert queue.waiting == 0


async def test_an_account_asking_again_at_once_waits_behind_the_others() -> None:
    queue = FairQueue(max_concurrent=1, max_waiting_per_lane=10)
    held = await queue.acquire("bob")
    order: list[str] = []

    async def flood(n: int) -> None:
        for i in range(n):
            slot = await queue.acquire("alice")
            order.append(f"a{i}")
            await asyncio.sleep(0)
            slot.release()

    async def once(name: str, lane: str) -> None:
        slot = await queue.acquire(lane)
        order.append(name)
        await asyncio.sleep(0)
        slot.release()

    tasks = [asyncio.ensure_future(flood(3))]
    await spin(lambda: queue.waiting == 1)
    tasks += [asyncio.ensure_future(once("b", "bob")), asyncio.ensure_future(once("c", "carol"))]
    await spin(lambda: queue.waiting == 3)
    held.release()
    await asyncio.gather(*tasks)
    assert order == ["a0", "b", "c", "a1", "a2"]


async def test_an_accounts_queue_is_bounded_and_the_servers_is_not() -> None:
    metrics = EngineMetrics()
    release = asyncio.Event()

    async def slow(_request: LLMRequest) -> str:
        await release.wait()
        return "It happens."

    limiter = LLMLimiter.from_limits(600, 100_000, max_concurrent=1, max_waiting_per_account=2)
    provider = ScriptedProvider(slow, limiter=limiter, metrics=metrics)
    calls = [asyncio.ensure_future(provider.complete(player(f"c-{n}", "a-1"))) for n in range(3)]
    assert limiter.queue is not None
    queue = limiter.queue
    await spin(lambda: queue.waiting == 2)
    assert (limiter.queue.in_flight, limiter.queue.waiting_in("a-1")) == (1, 2)
    with pytest.raises(LLMQuotaExceeded) as info:
        await provider.complete(player("c-9", "a-1"))
    assert (info.value.scope, info.value.retry_after) == ("queue", None)
    assert sample(metrics, "maid_llm_quota_refusals_total", purpose="narration", kind="queue") == 1
    quests = [asyncio.ensure_future(provider.complete(quest())) for _ in range(5)]
    await spin(lambda: queue.waiting == 7)
    assert limiter.queue.waiting_in(SERVER_LANE) == 5
    release.set()
    await asyncio.gather(*calls, *quests)
    assert limiter.queue.in_flight == 0
    assert limiter.budget is not None
    assert limiter.budget.reserved == 0


async def test_a_cancelled_wait_leaves_the_queue_and_leaks_no_slot() -> None:
    queue = FairQueue(max_concurrent=1, max_waiting_per_lane=5)
    held = await queue.acquire("alice")
    waiter = asyncio.ensure_future(queue.acquire("bob"))
    await spin(lambda: queue.waiting == 1)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert queue.waiting == 0
    # Granted and cancelled in the same instant: the slot comes back.
    granted = asyncio.ensure_future(queue.acquire("carol"))
    await spin(lambda: queue.waiting == 1)
    held.release()
    granted.cancel()
    with pytest.raises(asyncio.CancelledError):
        await granted
    assert queue.in_flight == 0
    slot = await queue.acquire("dave")
    slot.release()
    slot.release()  # twice is harmless
    assert queue.in_flight == 0


async def test_a_refusal_after_the_queue_gives_the_slot_back(clock: ManualClock) -> None:
    limiter = LLMLimiter.from_limits(60, 100_000, clock=clock.monotonic, burst=1, max_concurrent=1)
    provider = ScriptedProvider(default="ok", limiter=limiter)
    await provider.complete(player())
    with pytest.raises(LLMRateLimited):
        await provider.complete(player())
    assert limiter.queue is not None
    assert limiter.queue.in_flight == 0


# -- settings ------------------------------------------------------------------------------
async def test_a_request_just_past_a_burst_waits_for_its_slot() -> None:
    now = [0.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    def limiter(per_minute: int) -> LLMLimiter:
        s = Settings(llm_requests_per_minute=per_minute, llm_character_tokens_per_window=0)
        return build_limiter(s, clock=lambda: now[0], sleep=sleep)

    fast = limiter(600)  # a slot every 0.1 s
    for _ in range(10):  # the burst
        (await fast.admit(player())).settle(0)
    assert not slept
    (await fast.admit(player())).settle(0)
    assert slept == [pytest.approx(0.1)]
    slow = limiter(1)  # the next slot a minute away: refused at once
    (await slow.admit(player())).settle(0)
    with pytest.raises(LLMRateLimited):
        await slow.admit(player())
    assert slept == [pytest.approx(0.1)]


def test_the_settings_build_the_shares(clock: ManualClock) -> None:
    limiter = build_limiter(Settings(), clock=clock.monotonic)
    assert limiter.characters is not None
    assert limiter.accounts is not None
    assert (limiter.characters.limit, limiter.accounts.limit) == (8_000, 12_000)
    assert limiter.characters.window_seconds == 600
    assert limiter.queue is not None
    assert (limiter.queue.max_concurrent, limiter.queue.max_waiting_per_lane) == (4, 2)
    assert limiter.quest_reserve == 20_000
    off = build_limiter(
        Settings(
            llm_character_tokens_per_window=0,
            llm_account_tokens_per_window=0,
            llm_max_concurrent=0,
            llm_quest_reserve=0,
        ),
        clock=clock.monotonic,
    )
    assert (off.characters, off.accounts, off.queue, off.quest_reserve) == (None, None, None, 0)
