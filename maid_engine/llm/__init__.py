"""The LLM provider layer: one shared, budgeted, cached, safe way to ask a model.

    provider = build_provider(settings, engine.metrics)      # None: templates only
    try:
        result = await provider.complete(LLMRequest(
            messages=[{"role": "system", "content": SYSTEM_ISOLATION_NOTE},
                      {"role": "user", "content": prompt + isolate("npc_memories", memories)}],
            purpose="quest_narrative", max_tokens=500, json_mode=True))
        data = extract_json(result.text)                    # then validate with pydantic
    except LLMError:
        ...                                                 # fall back to the template

Importing this package never imports LiteLLM; that happens on the first call
(in a worker thread) or on ``await provider.warm_up()``. See docs/llm.md.
"""

from maid_engine.llm.cache import CachingProvider, NarrativeContextCache, request_key
from maid_engine.llm.errors import (
    LLMBadResponse,
    LLMBudgetExhausted,
    LLMError,
    LLMQuotaExceeded,
    LLMRateLimited,
    LLMRejected,
    LLMServerError,
    LLMTimeout,
    LLMTruncated,
    LLMUnavailable,
)
from maid_engine.llm.factory import build_limiter, build_provider
from maid_engine.llm.limiter import LLMLimiter, RateLimiter, TokenBudget
from maid_engine.llm.litellm_provider import LiteLLMProvider
from maid_engine.llm.metrics import LLMMetrics
from maid_engine.llm.parsing import extract_json, parse_model
from maid_engine.llm.provider import LLMProvider, NullProvider
from maid_engine.llm.quota import FairQueue, QuotaBook
from maid_engine.llm.request import KIND_PLAYER, KIND_QUEST, KIND_SYSTEM, LLMRequest, LLMResult
from maid_engine.llm.router import RouterConfig, RouterConfigError, RouterProvider
from maid_engine.llm.safety import (
    SYSTEM_ISOLATION_NOTE,
    ContentFilter,
    SafetyVerdict,
    isolate,
    neutralize,
    sanitize_generated,
)
from maid_engine.llm.scripted import ScriptedProvider

__all__ = [
    "KIND_PLAYER",
    "KIND_QUEST",
    "KIND_SYSTEM",
    "SYSTEM_ISOLATION_NOTE",
    "CachingProvider",
    "ContentFilter",
    "FairQueue",
    "LLMBadResponse",
    "LLMBudgetExhausted",
    "LLMError",
    "LLMLimiter",
    "LLMMetrics",
    "LLMProvider",
    "LLMQuotaExceeded",
    "LLMRateLimited",
    "LLMRejected",
    "LLMRequest",
    "LLMResult",
    "LLMServerError",
    "LLMTimeout",
    "LLMTruncated",
    "LLMUnavailable",
    "LiteLLMProvider",
    "NarrativeContextCache",
    "NullProvider",
    "QuotaBook",
    "RateLimiter",
    "RouterConfig",
    "RouterConfigError",
    "RouterProvider",
    "SafetyVerdict",
    "ScriptedProvider",
    "TokenBudget",
    "build_limiter",
    "build_provider",
    "extract_json",
    "isolate",
    "neutralize",
    "parse_model",
    "request_key",
    "sanitize_generated",
]
