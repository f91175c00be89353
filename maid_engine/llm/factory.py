"""Building the process's one LLM provider from settings."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Collection

from maid_engine.config import Settings, llm_configured
from maid_engine.llm.cache import CachingProvider, NarrativeContextCache
from maid_engine.llm.limiter import Clock, LLMLimiter, Sleep
from maid_engine.llm.litellm_provider import LiteLLMProvider
from maid_engine.llm.metrics import LLMMetrics
from maid_engine.llm.provider import LLMProvider
from maid_engine.llm.router import RouterConfig, RouterProvider
from maid_engine.metrics import EngineMetrics

#: The token budget window: settings give tokens per hour.
BUDGET_WINDOW_SECONDS = 3600.0
#: How long a request may wait for its turn under ``llm_requests_per_minute``. The
#: bucket holds a burst of ten: a request arriving just after a burst would be
#: refused though a slot comes a second later (a few milliseconds at a high rate),
#: and a narrated turn refused shows the player the turn's failure. Past this, the
#: rate is truly exceeded and the request is refused at once.
RATE_WAIT_SECONDS = 2.0
#: OpenAI-compatible clients insist on a key even when the local server ignores it.
PLACEHOLDER_API_KEY = "sk-no-key-required"


def build_limiter(
    settings: Settings,
    metrics: EngineMetrics | LLMMetrics | None = None,
    *,
    clock: Clock = time.monotonic,
    sleep: Sleep = asyncio.sleep,
) -> LLMLimiter:
    """The shared limiter for ``settings`` (use one per process)."""
    limiter = LLMLimiter.from_limits(
        settings.llm_requests_per_minute,
        settings.llm_tokens_per_hour,
        BUDGET_WINDOW_SECONDS,
        clock=clock,
        max_wait=RATE_WAIT_SECONDS,
        sleep=sleep,
        character_tokens=settings.llm_character_tokens_per_window,
        account_tokens=settings.llm_account_tokens_per_window,
        quota_window_seconds=settings.llm_quota_window,
        max_concurrent=settings.llm_max_concurrent,
        max_waiting_per_account=settings.llm_queue_per_account,
        quest_reserve=int(settings.llm_tokens_per_hour * settings.llm_quest_reserve),
    )
    limiter.bind_metrics(LLMMetrics.of(metrics))
    return limiter


def api_key_for(settings: Settings) -> str | None:
    """The key sent with each call: the configured one, else a placeholder for an
    ``openai/`` model on an ``api_base`` when ``OPENAI_API_KEY`` is not set either."""
    if settings.llm_api_key:
        return settings.llm_api_key
    if (
        settings.llm_api_base
        and settings.llm_model.strip().startswith("openai/")
        and not os.environ.get("OPENAI_API_KEY")
    ):
        return PLACEHOLDER_API_KEY
    return None


def build_provider(
    settings: Settings,
    metrics: EngineMetrics | LLMMetrics | None = None,
    *,
    clock: Clock = time.monotonic,
    limiter: LLMLimiter | None = None,
    cache: NarrativeContextCache | None = None,
    cache_purposes: Collection[str] | None = None,
) -> LLMProvider | None:
    """The configured provider, or None when neither ``settings.llm_model`` nor
    ``settings.llm_router_config`` is set.

    With None the server runs fully on templates and LiteLLM is never imported.
    Otherwise: a LiteLLMProvider (or, with a router file, a RouterProvider over its
    deployments) behind one shared limiter (requests per minute and a rolling
    tokens-per-hour budget), wrapped in a CachingProvider when a ``cache`` is given.
    ``clock`` is real time (``engine.clock.monotonic``); a test may pass a
    ManualClock's. A router file that cannot be used raises RouterConfigError.
    """
    if not llm_configured(settings):
        return None
    model = settings.llm_model.strip()
    llm_metrics = LLMMetrics.of(metrics)
    if limiter is None:
        limiter = build_limiter(settings, llm_metrics, clock=clock)
    provider: LLMProvider
    if settings.llm_router_config.strip():
        provider = RouterProvider(
            RouterConfig.load(settings.llm_router_config.strip()),
            model,
            timeout=settings.llm_timeout,
            limiter=limiter,
            metrics=llm_metrics,
        )
    else:
        provider = LiteLLMProvider(
            model,
            api_base=settings.llm_api_base or None,
            api_key=api_key_for(settings),
            timeout=settings.llm_timeout,
            limiter=limiter,
            metrics=llm_metrics,
        )
    if cache is not None:
        provider = CachingProvider(provider, cache, purposes=cache_purposes, metrics=llm_metrics)
    return provider
