"""A provider that answers from a script: for tests and offline simulations.

    provider = ScriptedProvider(['{"title": "The Lost Ring", ...}', LLMTimeout()])
    provider = ScriptedProvider(lambda req: "ok" if req.purpose == "narration" else "{}")

It goes through the same limiter, metrics and result checks as the real
provider (empty text -> LLMBadResponse, finish_reason "length" -> LLMTruncated),
so budget exhaustion and fallbacks can be simulated without any network.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from typing import TypeAlias

from maid_engine.llm.errors import LLMUnavailable
from maid_engine.llm.limiter import LLMLimiter
from maid_engine.llm.metrics import LLMMetrics
from maid_engine.llm.provider import BaseProvider
from maid_engine.llm.request import LLMRequest, LLMResult
from maid_engine.metrics import EngineMetrics

#: One scripted answer: text, a full result, or an exception (instance or class) to raise.
Answer: TypeAlias = str | LLMResult | BaseException | type[BaseException]
Responder: TypeAlias = Callable[[LLMRequest], Answer | Awaitable[Answer]]


class ScriptedProvider(BaseProvider):
    """Answers in order from ``responses`` (or computed by a callable); no network.

    When a list runs out, ``default`` answers; without one, LLMUnavailable is
    raised (callers fall back to templates, and ``exhausted`` tells the test).
    """

    def __init__(
        self,
        responses: Iterable[Answer] | Responder = (),
        *,
        default: Answer | None = None,
        model: str = "scripted",
        latency: float = 0.0,
        timeout: float = 30.0,
        limiter: LLMLimiter | None = None,
        metrics: EngineMetrics | LLMMetrics | None = None,
    ) -> None:
        super().__init__(timeout=timeout, limiter=limiter, metrics=metrics)
        self.model = model
        #: Simulated model latency in seconds (asyncio.sleep, so it can time out).
        self.latency = latency
        self.default = default
        self._responder: Responder | None = None
        self._queue: deque[Answer] = deque()
        self._exhausted = False
        if callable(responses) and not isinstance(responses, (str, bytes)):
            self._responder = responses
        else:
            self._queue.extend(responses)
        #: Every request that reached the "model" (not those the limiter refused).
        self.requests: list[LLMRequest] = []

    def push(self, *answers: Answer) -> None:
        self._queue.extend(answers)

    @property
    def remaining(self) -> int:
        return len(self._queue)

    @property
    def exhausted(self) -> bool:
        """True once a request found the script empty with no default."""
        return self._exhausted

    @staticmethod
    def truncated(text: str = "The tale breaks off mid") -> LLMResult:
        """A scripted answer that hit the token limit."""
        return LLMResult(text=text, finish_reason="length")

    async def _call(self, request: LLMRequest, time_limit: float) -> LLMResult:
        self.requests.append(request)
        if self.latency > 0:
            await asyncio.sleep(self.latency)
        answer = await self._next(request)
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, type) and issubclass(answer, BaseException):
            raise answer()
        if isinstance(answer, LLMResult):
            result = answer
            if not result.model:
                result = replace(result, model=self.model)
        else:
            result = LLMResult(text=str(answer), model=self.model)
        if result.prompt_tokens == 0 and result.completion_tokens == 0:
            # Plausible usage so budgets behave as they would with a real model.
            result = replace(
                result,
                prompt_tokens=request.estimated_prompt_tokens(),
                completion_tokens=len(result.text) // 4 + 1,
            )
        return result

    async def _next(self, request: LLMRequest) -> Answer:
        if self._queue:
            return self._queue.popleft()
        if self._responder is not None:
            answer = self._responder(request)
            if inspect.isawaitable(answer):
                answer = await answer
            return answer
        if self.default is not None:
            return self.default
        self._exhausted = True
        return LLMUnavailable("the script has no more answers")
