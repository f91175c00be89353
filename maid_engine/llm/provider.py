"""The provider protocol and the shared call path every backend goes through.

Every LLM user (quest generation, narration, ...) talks to an :class:`LLMProvider`
and treats any :class:`~maid_engine.llm.errors.LLMError` as "use the template
instead". Requests and results live in :mod:`maid_engine.llm.request`, the errors
in :mod:`maid_engine.llm.errors`, the metrics in :mod:`maid_engine.llm.metrics`.
Nothing here imports LiteLLM: a server without a model configured never pays for it.
"""

from __future__ import annotations

import abc
import asyncio
import logging
import time
from dataclasses import replace
from typing import Protocol, runtime_checkable

from maid_engine.llm.errors import (
    LLMBadResponse,
    LLMError,
    LLMTimeout,
    LLMTruncated,
    LLMUnavailable,
)
from maid_engine.llm.limiter import LLMLimiter
from maid_engine.llm.metrics import LLMMetrics
from maid_engine.llm.request import LLMRequest, LLMResult
from maid_engine.metrics import EngineMetrics

log = logging.getLogger("maid.llm")


# -- the protocol -----------------------------------------------------------------------
@runtime_checkable
class LLMProvider(Protocol):
    async def complete(self, request: LLMRequest) -> LLMResult: ...


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
