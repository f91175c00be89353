"""The typed LLM errors: every failure to get usable text is an :class:`LLMError`.

Callers treat any of them as "use the template instead"; ``kind`` is the metrics
label. The limiter raises the budget and rate errors, providers the rest.
"""

from __future__ import annotations

from typing import Any, ClassVar

from maid_engine.llm.request import LLMResult


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
    """The rolling token budget (or the part of it this request may use) is spent;
    no call was made. ``retry_after``: seconds until it would be admitted, if known."""

    kind = "budget_exhausted"

    def __init__(
        self, message: str = "", *, retry_after: float | None = None, **kwargs: Any
    ) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class LLMQuotaExceeded(LLMError):
    """A player's own share is used up; no call was made and nothing was charged.

    ``scope`` says which share: ``"character"`` or ``"account"`` (tokens per quota
    window), or ``"queue"`` (the account already has as many requests waiting as it
    may). ``retry_after`` is the wait in seconds until a request would be admitted
    again, computed from the window (None when it depends on requests in flight).
    """

    kind = "quota_exceeded"

    def __init__(
        self, message: str = "", *, scope: str, retry_after: float | None = None, **kwargs: Any
    ) -> None:
        super().__init__(message, **kwargs)
        self.scope = scope
        self.retry_after = retry_after


class LLMUnavailable(LLMError):
    """No model is configured (or the LLM library is not installed)."""

    kind = "unavailable"
