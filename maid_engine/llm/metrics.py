"""The ``maid_llm_*`` metrics on an engine's registry.

Built once per engine by :class:`~maid_engine.llm.service.LLMService` (so a server
without a model still exposes them, at zero) and shared by the provider, the
limiter and the cache.
"""

from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING

from maid_engine.llm.errors import LLMError, LLMQuotaExceeded, LLMRateLimited
from maid_engine.llm.request import LLMResult
from maid_engine.metrics import EngineMetrics

if TYPE_CHECKING:
    from prometheus_client import Counter, Gauge, Histogram

#: The purposes MAID's own code asks the model for; a pack's purposes appear on use.
KNOWN_PURPOSES = ("quest_narrative", "narration")
#: Every ``kind`` an LLMError carries (plus the local limiter's own).
ERROR_KINDS = (
    "timeout",
    "rate_limited",
    "rate_limited_local",
    "server_error",
    "rejected",
    "bad_response",
    "truncated",
    "budget_exhausted",
    "unavailable",
)
QUOTA_KINDS = ("character", "account", "queue", "reserve")

LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0)


class LLMMetrics:
    """The ``maid_llm_*`` metrics on an engine registry (a no-op without one)."""

    def __init__(self, metrics: EngineMetrics | None) -> None:
        self.engine_metrics = metrics
        self.requests: Counter | None = None
        self.latency: Histogram | None = None
        self.tokens: Counter | None = None
        self.errors: Counter | None = None
        self.cache_hits: Counter | None = None
        self.budget_remaining: Gauge | None = None
        self.quota_refusals: Counter | None = None
        self.deployment_requests: Counter | None = None
        self.deployment_failures: Counter | None = None
        if metrics is None:
            return
        self.requests = metrics.counter(
            "maid_llm_requests",
            "LLM requests by purpose and outcome",
            ["purpose", "outcome"],
            known=product(KNOWN_PURPOSES, ("ok", *ERROR_KINDS, "quota_exceeded")),
        )
        self.latency = metrics.histogram(
            "maid_llm_latency_seconds",
            "Wall time of LLM calls that reached the provider",
            ["purpose"],
            buckets=LATENCY_BUCKETS,
            known=KNOWN_PURPOSES,
        )
        self.tokens = metrics.counter(
            "maid_llm_tokens",
            "Tokens reported by the provider",
            ["purpose", "kind"],
            known=product(KNOWN_PURPOSES, ("prompt", "completion")),
        )
        self.errors = metrics.counter(
            "maid_llm_errors",
            "Failed LLM requests by purpose and error kind",
            ["purpose", "kind"],
            known=product(KNOWN_PURPOSES, ERROR_KINDS),
        )
        self.cache_hits = metrics.counter(
            "maid_llm_cache_hits", "LLM requests answered from the narrative cache"
        )
        self.budget_remaining = metrics.gauge(
            "maid_llm_budget_remaining_tokens", "Tokens left in the rolling LLM budget window"
        )
        self.quota_refusals = metrics.counter(
            "maid_llm_quota_refusals",
            "LLM requests refused before any call by a player's share: kind is character, "
            "account (quota spent), queue (too many waiting) or reserve (only the quest "
            "reserve is left)",
            ["purpose", "kind"],
            known=product(KNOWN_PURPOSES, QUOTA_KINDS),
        )
        self.deployment_requests = metrics.counter(
            "maid_llm_deployment_requests",
            "LLM requests a router deployment answered, by deployment (model_info.id) and purpose",
            ["deployment", "purpose"],
        )
        self.deployment_failures = metrics.counter(
            "maid_llm_deployment_failures",
            "Attempts a router deployment failed (the router may have retried or fallen "
            "back), by deployment and error kind",
            ["deployment", "kind"],
        )

    @classmethod
    def of(cls, metrics: EngineMetrics | LLMMetrics | None) -> LLMMetrics:
        return metrics if isinstance(metrics, LLMMetrics) else cls(metrics)

    def success(self, purpose: str, result: LLMResult) -> None:
        if self.requests is None:
            return
        self.requests.labels(purpose, "ok").inc()
        self._usage(purpose, result)
        assert self.latency is not None
        self.latency.labels(purpose).observe(result.latency)

    def failure(self, purpose: str, error: LLMError, latency: float | None = None) -> None:
        if self.requests is None or self.errors is None:
            return
        kind = error.kind
        if isinstance(error, LLMRateLimited) and error.local:
            kind = "rate_limited_local"
        self.requests.labels(purpose, kind).inc()
        if isinstance(error, LLMQuotaExceeded):
            # A player's share being used is not a failure of the model: it is counted
            # in maid_llm_quota_refusals_total (by the limiter), not as an error.
            return
        self.errors.labels(purpose, kind).inc()
        if error.result is not None:
            self._usage(purpose, error.result)
        if latency is not None and self.latency is not None:
            self.latency.labels(purpose).observe(latency)

    def quota_refusal(self, purpose: str, kind: str) -> None:
        if self.quota_refusals is not None:
            self.quota_refusals.labels(purpose, kind).inc()

    def deployments_known(self, deployments: list[str]) -> None:
        """A router's deployments: their series exist from the start, at zero."""
        if self.deployment_requests is None or self.deployment_failures is None:
            return
        EngineMetrics.preset(self.deployment_requests, product(deployments, KNOWN_PURPOSES))
        EngineMetrics.preset(self.deployment_failures, product(deployments, ERROR_KINDS))

    def deployment_served(self, deployment: str, purpose: str) -> None:
        if self.deployment_requests is not None:
            self.deployment_requests.labels(deployment, purpose).inc()

    def deployment_failed(self, deployment: str, kind: str) -> None:
        if self.deployment_failures is not None:
            self.deployment_failures.labels(deployment, kind).inc()

    def cache_hit(self) -> None:
        if self.cache_hits is not None:
            self.cache_hits.inc()

    def _usage(self, purpose: str, result: LLMResult) -> None:
        assert self.tokens is not None
        if result.prompt_tokens:
            self.tokens.labels(purpose, "prompt").inc(result.prompt_tokens)
        if result.completion_tokens:
            self.tokens.labels(purpose, "completion").inc(result.completion_tokens)
