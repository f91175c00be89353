"""RateLimiter, TokenBudget and the shared LLMLimiter (no network, stepped clock)."""

from __future__ import annotations

import asyncio

import pytest

from maid_engine.clock import ManualClock
from maid_engine.llm import (
    LLMBudgetExhausted,
    LLMLimiter,
    LLMRateLimited,
    LLMRequest,
    LLMResult,
    RateLimiter,
    ScriptedProvider,
    TokenBudget,
)
from maid_engine.metrics import EngineMetrics


def req(purpose: str = "quest_narrative", max_tokens: int = 100) -> LLMRequest:
    return LLMRequest.from_prompt("Tell a tale.", purpose=purpose, max_tokens=max_tokens)


def test_rate_limiter_allows_a_burst_then_refills(clock: ManualClock) -> None:
    rate = RateLimiter(60, burst=3, clock=clock.monotonic)
    assert [rate.try_acquire() for _ in range(4)] == [True, True, True, False]
    assert rate.wait_time() == pytest.approx(1.0)
    clock.advance_wall(0.5)
    assert not rate.try_acquire()
    assert rate.wait_time() == pytest.approx(0.5)
    clock.advance_wall(0.5)
    assert rate.try_acquire()
    clock.advance_wall(3600)
    assert rate.available == 3  # never more than the burst


def test_rate_limiter_default_burst_is_small() -> None:
    assert RateLimiter(600).capacity == 10
    assert RateLimiter(3).capacity == 3


def test_rate_limiter_survives_a_clock_stepping_back() -> None:
    now = [100.0]
    rate = RateLimiter(60, burst=1, clock=lambda: now[0])
    assert rate.try_acquire()
    now[0] = 50.0
    assert not rate.try_acquire()
    assert rate.available >= 0


async def test_rate_limiter_acquire_waits_up_to_max_wait(clock: ManualClock) -> None:
    rate = RateLimiter(60, burst=1, clock=clock.monotonic)
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.advance_wall(seconds)

    await rate.acquire(sleep=fake_sleep)
    await rate.acquire(max_wait=2.0, sleep=fake_sleep)
    assert slept == [pytest.approx(1.0)]
    with pytest.raises(LLMRateLimited) as info:
        await rate.acquire(max_wait=0.5, sleep=fake_sleep)
    assert info.value.local


def test_token_budget_rolls_over_the_window(clock: ManualClock) -> None:
    budget = TokenBudget(1000, window_seconds=3600, clock=clock.monotonic)
    assert budget.window_seconds == 3600
    budget.record(600)
    clock.advance_wall(1800)
    budget.record(400)
    assert budget.used() == 1000
    assert budget.remaining() == 0
    assert budget.exhausted
    assert budget.seconds_until_recovery() == pytest.approx(1800)
    clock.advance_wall(1800)  # the first 600 roll off
    assert budget.used() == 400
    assert budget.remaining() == 600
    assert not budget.exhausted
    clock.advance_wall(1800)
    assert budget.used() == 0
    assert budget.remaining() == 1000


def test_token_budget_reservations_hold_tokens_until_settled(clock: ManualClock) -> None:
    budget = TokenBudget(1000, clock=clock.monotonic)
    first = budget.reserve(700)
    assert budget.remaining() == 300
    second = budget.reserve(700)
    assert budget.exhausted  # concurrent callers cannot all slip in
    first.settle(120)
    first.settle(999)  # settling twice changes nothing
    second.settle(0)
    assert budget.reserved == 0
    assert budget.used() == 120
    assert budget.remaining() == 880


def test_zero_budget_allows_nothing(clock: ManualClock) -> None:
    budget = TokenBudget(0, clock=clock.monotonic)
    assert budget.exhausted
    assert budget.remaining() == 0
    assert budget.seconds_until_recovery() == float("inf")


def test_invalid_limits_are_rejected() -> None:
    with pytest.raises(ValueError, match="limit must be >= 0"):
        TokenBudget(-1)
    with pytest.raises(ValueError, match="window_seconds must be positive"):
        TokenBudget(10, window_seconds=0)
    with pytest.raises(ValueError, match="requests_per_minute must be positive"):
        RateLimiter(0)


async def test_exhausted_budget_raises_without_calling_the_model(clock: ManualClock) -> None:
    limiter = LLMLimiter.from_limits(600, 500, window_seconds=60, clock=clock.monotonic)
    provider = ScriptedProvider(
        [LLMResult("A tale.", prompt_tokens=400, completion_tokens=200)],
        default="Another.",
        limiter=limiter,
    )
    await provider.complete(req())
    assert limiter.budget is not None
    assert limiter.budget.exhausted
    rate_before = limiter.rate.available if limiter.rate else 0
    with pytest.raises(LLMBudgetExhausted) as info:
        await provider.complete(req(purpose="narration"))
    assert info.value.purpose == "narration"
    assert len(provider.requests) == 1
    # An exhausted budget does not burn rate-limit slots either.
    assert limiter.rate is not None
    assert limiter.rate.available == pytest.approx(rate_before)
    clock.advance_wall(60)
    assert (await provider.complete(req())).text == "Another."


async def test_one_limiter_is_shared_by_every_llm_user(clock: ManualClock) -> None:
    limiter = LLMLimiter.from_limits(600, 1000, clock=clock.monotonic)
    quests = ScriptedProvider(
        default=LLMResult("q", prompt_tokens=300, completion_tokens=300), limiter=limiter
    )
    narration = ScriptedProvider(
        default=LLMResult("n", prompt_tokens=200, completion_tokens=200), limiter=limiter
    )
    await quests.complete(req())
    await narration.complete(req(purpose="narration"))
    with pytest.raises(LLMBudgetExhausted):
        await quests.complete(req())
    with pytest.raises(LLMBudgetExhausted):
        await narration.complete(req(purpose="narration"))


async def test_limiter_status_and_gauge(clock: ManualClock) -> None:
    metrics = EngineMetrics()
    limiter = LLMLimiter.from_limits(60, 1000, clock=clock.monotonic)
    provider = ScriptedProvider(
        default=LLMResult("x", prompt_tokens=100, completion_tokens=150),
        limiter=limiter,
        metrics=metrics,
    )
    await provider.complete(req())
    status = limiter.status()
    assert status["budget_used"] == 250
    assert status["budget_remaining"] == 750
    assert status["budget_exhausted"] is False
    assert status["requests_per_minute"] == 60
    gauge = "maid_llm_budget_remaining_tokens"
    assert metrics.registry.get_sample_value(gauge) == 750
    clock.advance_wall(3600)
    # The gauge is computed at scrape time, so it recovers without any new call.
    assert metrics.registry.get_sample_value(gauge) == 1000


async def test_limiter_can_wait_for_a_rate_slot(clock: ManualClock) -> None:
    async def fake_sleep(seconds: float) -> None:
        clock.advance_wall(seconds)
        await asyncio.sleep(0)

    limiter = LLMLimiter.from_limits(
        30, 10_000, clock=clock.monotonic, burst=1, max_wait=5.0, sleep=fake_sleep
    )
    provider = ScriptedProvider(default="ok", limiter=limiter)
    await provider.complete(req())
    start = clock.monotonic()
    await provider.complete(req())
    assert clock.monotonic() - start == pytest.approx(2.0)
