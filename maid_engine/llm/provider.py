"""The provider protocol, request/result types, typed errors and shared plumbing.

Every LLM user (quest generation, narration, ...) talks to an :class:`LLMProvider`
and treats any :class:`LLMError` as "use the template instead". Nothing here
imports LiteLLM: a server without a model configured never pays for it.
"""

from __future__ import annotations

import abc
import asyncio
import logging
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

if TYPE_CHECKING:
    from prometheus_client import Counter, Gauge, Histogram

    from maid_engine.llm.limiter import LLMLimiter
    from maid_engine.metrics import EngineMetrics

log = logging.getLogger("maid.llm")

_ROLES = frozenset({"system", "user", "assistant", "tool", "developer"})
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0)


# -- requests and results -------------------------------------------------------------
@dataclass(frozen=True)
class LLMRequest:
    """One chat completion request.

    ``purpose`` labels metrics and logs ("quest_narrative", "narration", ...).
    ``timeout`` overrides the provider's default; ``json_mode`` asks the model for
    a JSON object where the backend supports it (callers still parse defensively).
    """

    messages: list[dict[str, Any]]
    purpose: str = "general"
    max_tokens: int = 500
    temperature: float = 0.7
    timeout: float | None = None
    json_mode: bool = False

    def __post_init__(self) -> None:
        # A malformed request is a programming error, not an LLM failure: raise
        # ValueError so it is not silently swallowed by a template fallback.
        if not self.messages:
            raise ValueError("an LLMRequest needs at least one message")
        for message in self.messages:
            if not isinstance(message, dict) or message.get("role") not in _ROLES:
                raise ValueError(f"invalid chat message {message!r}")
            if not isinstance(message.get("content"), str):
                raise ValueError("chat message content must be a string")
        if self.max_tokens <= 0:
            raise ValueError("max_tokens must be positive")
        if not 0.0 <= self.temperature <= 2.0:
            raise ValueError("temperature must be between 0 and 2")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError("timeout must be positive")
        if not self.purpose:
            raise ValueError("purpose must be a non-empty string")

    @classmethod
    def from_prompt(cls, prompt: str, *, system: str | None = None, **kwargs: Any) -> LLMRequest:
        """A request with an optional system message and one user message."""
        messages: list[dict[str, Any]] = []
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": prompt})
        return cls(messages=messages, **kwargs)

    def estimated_prompt_tokens(self) -> int:
        """A cheap upper-ish estimate (4 characters per token plus framing)."""
        chars = sum(len(str(m.get("content", ""))) for m in self.messages)
        return chars // 4 + 4 * len(self.messages) + 3

    def estimated_tokens(self) -> int:
        """What this request may cost at most, roughly: prompt plus ``max_tokens``."""
        return self.estimated_prompt_tokens() + self.max_tokens


@dataclass(frozen=True)
class LLMResult:
    """A completion. ``latency`` is wall seconds; ``cached`` results cost 0 tokens."""

    text: str
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    latency: float = 0.0
    cached: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "finish_reason": self.finish_reason,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "model": self.model,
            "latency": self.latency,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LLMResult:
        return cls(
            text=str(data["text"]),
            finish_reason=str(data.get("finish_reason", "stop")),
            prompt_tokens=int(data.get("prompt_tokens", 0)),
            completion_tokens=int(data.get("completion_tokens", 0)),
            model=str(data.get("model", "")),
            latency=float(data.get("latency", 0.0)),
        )


# -- errors ---------------------------------------------------------------------------
class LLMError(Exception):
    """Any failure to get usable text. Callers fall back to templates on it.

    ``kind`` is the metrics label; ``result`` carries what came back when there
    was a response (e.g. the cut-off text of a truncated completion).
    """

    kind: ClassVar[str] = "error"

    def __init__(
        self,
        message: str = "",
        *,
        purpose: str | None = None,
        result: LLMResult | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message or self.__class__.__doc__ or self.kind)
        self.purpose = purpose
        self.result = result
        self.status = status


class LLMTimeout(LLMError):
    """The model did not answer within the timeout."""

    kind = "timeout"


class LLMRateLimited(LLMError):
    """Too many requests: the provider answered 429, or our own limiter said no."""

    kind = "rate_limited"

    def __init__(self, message: str = "", *, local: bool = False, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        #: True when our own requests-per-minute limiter refused (no HTTP call made).
        self.local = local


class LLMServerError(LLMError):
    """The provider failed (5xx) or could not be reached."""

    kind = "server_error"


class LLMRejected(LLMError):
    """The provider refused the request (401/403 credentials, 400 bad request, 404 model)."""

    kind = "rejected"


class LLMBadResponse(LLMError):
    """The answer was empty, not a completion, or not the JSON that was asked for."""

    kind = "bad_response"


class LLMTruncated(LLMError):
    """The completion stopped at the token limit (finish_reason "length")."""

    kind = "truncated"


class LLMBudgetExhausted(LLMError):
    """The rolling token budget is spent; no call was made."""

    kind = "budget_exhausted"


class LLMUnavailable(LLMError):
    """No model is configured (or the LLM library is not installed)."""

    kind = "unavailable"


# -- the protocol -----------------------------------------------------------------------
@runtime_checkable
class LLMProvider(Protocol):
    async def complete(self, request: LLMRequest) -> LLMResult: ...


# -- metrics ------------------------------------------------------------------------------
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
        if metrics is None:
            return
        self.requests = metrics.counter(
            "maid_llm_requests", "LLM requests by purpose and outcome", ["purpose", "outcome"]
        )
        self.latency = metrics.histogram(
            "maid_llm_latency_seconds",
            "Wall time of LLM calls that reached the provider",
            ["purpose"],
            buckets=LATENCY_BUCKETS,
        )
        self.tokens = metrics.counter(
            "maid_llm_tokens", "Tokens reported by the provider", ["purpose", "kind"]
        )
        self.errors = metrics.counter(
            "maid_llm_errors", "Failed LLM requests by purpose and error kind", ["purpose", "kind"]
        )
        self.cache_hits = metrics.counter(
            "maid_llm_cache_hits", "LLM requests answered from the narrative cache"
        )
        self.budget_remaining = metrics.gauge(
            "maid_llm_budget_remaining_tokens", "Tokens left in the rolling LLM budget window"
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
        self.errors.labels(purpose, kind).inc()
        if error.result is not None:
            self._usage(purpose, error.result)
        if latency is not None and self.latency is not None:
            self.latency.labels(purpose).observe(latency)

    def cache_hit(self) -> None:
        if self.cache_hits is not None:
            self.cache_hits.inc()

    def _usage(self, purpose: str, result: LLMResult) -> None:
        assert self.tokens is not None
        if result.prompt_tokens:
            self.tokens.labels(purpose, "prompt").inc(result.prompt_tokens)
        if result.completion_tokens:
            self.tokens.labels(purpose, "completion").inc(result.completion_tokens)


# -- the shared call path --------------------------------------------------------------
def timeout_grace(timeout: float) -> float:
    """Extra time the outer ``wait_for`` allows beyond the client's own timeout.

    The client library's timeout should fire first (its error is more precise);
    the outer one is the backstop for a connection that hangs where the client's
    timeout does not reach.
    """
    return min(1.0, 0.1 * timeout)


class BaseProvider(abc.ABC):
    """Limiter admission, result checks, usage accounting and metrics around ``_call``.

    Subclasses implement ``_call(request, time_limit)`` and return the raw result; the
    base turns empty text into LLMBadResponse and finish_reason "length" into
    LLMTruncated, so every backend (real or scripted) behaves alike.
    """

    model: str = ""

    def __init__(
        self,
        *,
        timeout: float = 30.0,
        limiter: LLMLimiter | None = None,
        metrics: EngineMetrics | LLMMetrics | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self.timeout = timeout
        self.limiter = limiter
        self.metrics = LLMMetrics.of(metrics)
        if limiter is not None:
            limiter.bind_metrics(self.metrics)

    async def _prepare(self) -> None:  # noqa: B027 -- optional hook, nothing by default
        """One-off setup before a call (e.g. a slow import); not counted in the timeout."""

    @abc.abstractmethod
    async def _call(self, request: LLMRequest, time_limit: float) -> LLMResult:
        """Make the one call (the LiteLLM request, a scripted answer ...)."""

    async def complete(self, request: LLMRequest) -> LLMResult:
        purpose = request.purpose
        try:
            await self._prepare()
            admission = await self.limiter.admit(request) if self.limiter is not None else None
        except LLMError as exc:
            exc.purpose = purpose
            self.metrics.failure(purpose, exc)
            raise
        timeout = request.timeout if request.timeout is not None else self.timeout
        started = time.perf_counter()
        spent = 0
        try:
            try:
                result = await asyncio.wait_for(
                    self._call(request, timeout), timeout + timeout_grace(timeout)
                )
            except LLMError:
                raise
            except TimeoutError as exc:
                raise LLMTimeout(f"no answer within {timeout:g} s") from exc
            result = replace(result, latency=time.perf_counter() - started)
            spent = result.total_tokens
            _check_result(result)
        except LLMError as exc:
            exc.purpose = purpose
            if exc.result is not None:
                spent = exc.result.total_tokens
            self.metrics.failure(purpose, exc, time.perf_counter() - started)
            log.info("LLM %s request failed (%s): %s", purpose, exc.kind, exc)
            raise
        finally:
            # Also on cancellation: a reservation must never leak, or the budget
            # would shrink for the whole window.
            if admission is not None:
                admission.settle(spent)
        self.metrics.success(purpose, result)
        return result


def _check_result(result: LLMResult) -> None:
    if result.finish_reason == "length":
        raise LLMTruncated("the completion hit the token limit", result=result)
    if result.finish_reason == "content_filter":
        raise LLMBadResponse("the provider's content filter stopped the completion", result=result)
    if not result.text.strip():
        raise LLMBadResponse("the completion is empty", result=result)


class NullProvider:
    """A provider for servers without a model: every call raises LLMUnavailable."""

    model = ""

    async def complete(self, request: LLMRequest) -> LLMResult:
        raise LLMUnavailable("no LLM model is configured", purpose=request.purpose)
