"""build_provider(): None without a model, otherwise a limited LiteLLM provider."""

from __future__ import annotations

from typing import Any

import pytest

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.llm import (
    CachingProvider,
    LiteLLMProvider,
    LLMBudgetExhausted,
    LLMRequest,
    NarrativeContextCache,
    build_limiter,
    build_provider,
)
from maid_engine.llm.factory import PLACEHOLDER_API_KEY
from maid_engine.metrics import EngineMetrics


def settings(**kw: Any) -> Settings:
    return Settings(_env_file=None, **kw)  # type: ignore[call-arg]


@pytest.mark.parametrize("model", ["", "   "])
def test_no_model_means_no_provider(model: str) -> None:
    assert build_provider(settings(llm_model=model), EngineMetrics()) is None


def test_provider_uses_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    provider = build_provider(
        settings(
            llm_model="openai/llama3",
            llm_api_base="http://127.0.0.1:9/v1",
            llm_api_key="sk-real",
            llm_timeout=12.5,
            llm_requests_per_minute=30,
            llm_tokens_per_hour=5000,
        ),
        EngineMetrics(),
    )
    assert isinstance(provider, LiteLLMProvider)
    assert provider.model == "openai/llama3"
    assert provider.api_base == "http://127.0.0.1:9/v1"
    assert provider.api_key == "sk-real"
    assert provider.timeout == 12.5
    limiter = provider.limiter
    assert limiter is not None
    assert limiter.rate is not None
    assert limiter.budget is not None
    assert limiter.rate.requests_per_minute == 30
    assert limiter.budget.limit == 5000
    assert limiter.budget.window_seconds == 3600


def test_local_openai_compatible_server_gets_a_placeholder_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    provider = build_provider(
        settings(llm_model="openai/llama3", llm_api_base="http://127.0.0.1:9/v1")
    )
    assert isinstance(provider, LiteLLMProvider)
    assert provider.api_key == PLACEHOLDER_API_KEY
    hosted = build_provider(settings(llm_model="anthropic/claude"))
    assert isinstance(hosted, LiteLLMProvider)
    assert hosted.api_key is None


def test_shared_limiter_and_cache(clock: ManualClock) -> None:
    s = settings(llm_model="openai/x", llm_tokens_per_hour=0)
    limiter = build_limiter(s, clock=clock.monotonic)
    first = build_provider(s, limiter=limiter)
    second = build_provider(s, limiter=limiter, cache=NarrativeContextCache())
    assert isinstance(first, LiteLLMProvider)
    assert first.limiter is limiter
    assert isinstance(second, CachingProvider)
    assert second.limiter is limiter


async def test_zero_budget_never_calls_the_model(clock: ManualClock) -> None:
    provider = build_provider(
        settings(llm_model="openai/x", llm_tokens_per_hour=0), clock=clock.monotonic
    )
    assert provider is not None
    # Raised before LiteLLM would be needed for the call itself.
    with pytest.raises(LLMBudgetExhausted):
        await provider.complete(LLMRequest.from_prompt("hi"))
