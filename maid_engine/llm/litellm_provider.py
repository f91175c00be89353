"""The real provider: any model LiteLLM supports (OpenAI-compatible servers included).

LiteLLM is imported lazily, in a worker thread: the import takes seconds and
hundreds of MB, and a server without a model configured never pays for it.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import threading
from typing import Any

from maid_engine.llm.errors import (
    LLMBadResponse,
    LLMError,
    LLMRateLimited,
    LLMRejected,
    LLMServerError,
    LLMTimeout,
    LLMUnavailable,
)
from maid_engine.llm.limiter import LLMLimiter
from maid_engine.llm.metrics import LLMMetrics
from maid_engine.llm.provider import BaseProvider
from maid_engine.llm.request import LLMRequest, LLMResult
from maid_engine.metrics import EngineMetrics

log = logging.getLogger("maid.llm")

_litellm: Any = None
_import_lock = threading.Lock()
_LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")


def import_litellm() -> Any:
    """Import and configure LiteLLM once. Blocks for seconds: from async code use
    :func:`load_litellm`. Raises LLMUnavailable when it cannot be imported."""
    global _litellm
    if _litellm is not None:
        return _litellm
    with _import_lock:
        if _litellm is None:
            # Without this LiteLLM downloads a price list from the internet on import.
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            try:
                module = importlib.import_module("litellm")
            except ImportError as exc:
                raise LLMUnavailable("litellm is not installed (install the 'llm' extra)") from exc
            except Exception as exc:
                log.exception("importing litellm failed")
                raise LLMUnavailable(f"litellm could not be imported: {exc}") from exc
            _configure(module)
            _litellm = module
    return _litellm


async def load_litellm() -> Any:
    """:func:`import_litellm` without blocking the event loop."""
    if _litellm is not None:
        return _litellm
    return await asyncio.to_thread(import_litellm)


async def close_litellm_clients() -> None:
    """Close every HTTP client LiteLLM has cached and forget them.

    LiteLLM caches one client per event loop and never closes them itself. Call
    this before the loop that used them ends (server shutdown, the end of an async
    test): afterwards they can no longer be closed cleanly and their sockets wait
    for the garbage collector, with ResourceWarnings. Later calls create new clients.
    """
    if _litellm is None:
        return
    try:
        await _litellm.close_litellm_async_clients()
        # Closed clients must not be handed out again.
        _litellm.in_memory_llm_clients_cache.flush_cache()
    except Exception:
        log.debug("closing LiteLLM's HTTP clients failed", exc_info=True)


def _configure(litellm: Any) -> None:
    # LiteLLM prints "Give Feedback / Get Help" banners to stdout on every error.
    litellm.suppress_debug_info = True
    if hasattr(litellm, "telemetry"):
        litellm.telemetry = False
    # LiteLLM installs its own stderr handler and logs every call at INFO; let the
    # server's logging configuration decide instead (LITELLM_LOG still wins).
    own_handler = getattr(getattr(litellm, "_logging", None), "handler", None)
    for name in _LITELLM_LOGGERS:
        logger = logging.getLogger(name)
        if own_handler is not None and own_handler in logger.handlers:
            logger.removeHandler(own_handler)
        if "LITELLM_LOG" not in os.environ:
            logger.setLevel(logging.WARNING)


class LiteLLMProvider(BaseProvider):
    """``litellm.acompletion`` behind the shared limiter, with typed errors.

    ``model`` uses LiteLLM's names, e.g. ``"openai/llama3"`` with ``api_base`` set
    to an OpenAI-compatible server. Retries are off (``num_retries=0`` and the
    OpenAI client's ``max_retries=0``): a failed call falls back to a template at
    once instead of costing three timeouts.
    """

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        limiter: LLMLimiter | None = None,
        metrics: EngineMetrics | LLMMetrics | None = None,
        *,
        extra_params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(timeout=timeout, limiter=limiter, metrics=metrics)
        self.model = model.strip()
        self.api_base = api_base or None
        self.api_key = api_key or None
        self.extra_params = dict(extra_params or {})

    def __repr__(self) -> str:
        # Never show the API key.
        return f"LiteLLMProvider(model={self.model!r}, api_base={self.api_base!r})"

    async def warm_up(self) -> None:
        """Import LiteLLM now (off the event loop) so the first request is not slow."""
        if self.model:
            await load_litellm()

    async def aclose(self) -> None:
        """Release LiteLLM's cached HTTP clients (at shutdown; the provider stays usable)."""
        await close_litellm_clients()

    async def _prepare(self) -> None:
        if not self.model:
            raise LLMUnavailable("no LLM model is configured")
        await load_litellm()

    async def _call(self, request: LLMRequest, time_limit: float) -> LLMResult:
        litellm = await load_litellm()
        kwargs: dict[str, Any] = {
            **self.extra_params,
            "model": self.model,
            "messages": request.messages,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "timeout": time_limit,
            "num_retries": 0,
            "max_retries": 0,
            # Some models reject temperature or response_format: drop what the
            # backend does not support instead of failing the request.
            "drop_params": True,
        }
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self.api_key:
            kwargs["api_key"] = self.api_key
        if request.json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            response = await litellm.acompletion(**kwargs)
        except LLMError:
            raise
        except Exception as exc:
            raise map_litellm_error(litellm, exc) from exc
        return self._to_result(request, response)

    def _to_result(self, request: LLMRequest, response: Any) -> LLMResult:
        return completion_result(self.model, request, response)


def completion_result(model: str, request: LLMRequest, response: Any) -> LLMResult:
    """A LiteLLM chat completion as an LLMResult (``model`` when it names none)."""
    choices = getattr(response, "choices", None)
    if not choices:
        raise LLMBadResponse("the response has no choices")
    choice = choices[0]
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None)
    if content is not None and not isinstance(content, str):
        raise LLMBadResponse(f"the completion content is a {type(content).__name__}")
    text = content or ""
    finish_reason = str(getattr(choice, "finish_reason", None) or "stop")
    usage = getattr(response, "usage", None)
    prompt_tokens = _int(getattr(usage, "prompt_tokens", 0))
    completion_tokens = _int(getattr(usage, "completion_tokens", 0))
    if prompt_tokens == 0 and completion_tokens == 0:
        # Some servers omit usage; an estimate keeps the budget honest.
        prompt_tokens = request.estimated_prompt_tokens()
        completion_tokens = len(text) // 4 + 1
    return LLMResult(
        text=text,
        finish_reason=finish_reason,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        model=str(getattr(response, "model", None) or model),
    )


def _int(value: Any) -> int:
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 20:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def map_litellm_error(litellm: Any, exc: BaseException) -> LLMError:
    """Translate a LiteLLM/OpenAI/httpx exception into the typed errors.

    LiteLLM reports an unparseable body as InternalServerError (status 500), just
    like a real 500; the cause chain tells them apart: a real HTTP status comes
    with an ``httpx.HTTPStatusError``, a garbage body with a JSON/parse error.
    """
    import httpx

    message = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
    chain = _chain(exc)
    timeout_types: tuple[type[BaseException], ...] = (TimeoutError, httpx.TimeoutException)
    litellm_timeout = getattr(litellm, "Timeout", None)
    if isinstance(litellm_timeout, type):
        timeout_types += (litellm_timeout,)
    if any(isinstance(e, timeout_types) for e in chain):
        return LLMTimeout(message)

    http = next((e for e in chain if isinstance(e, httpx.HTTPStatusError)), None)
    if http is not None:
        return _by_status(http.response.status_code, message)

    below = chain[1:]
    litellm_api_error = getattr(litellm, "APIError", None)
    if any(
        isinstance(e, ValueError | KeyError | TypeError | AttributeError)
        or (isinstance(litellm_api_error, type) and isinstance(e, litellm_api_error))
        for e in below
    ):
        return LLMBadResponse(message)
    if any(isinstance(e, httpx.TransportError | ConnectionError) for e in chain):
        return LLMServerError(f"the LLM server is unreachable: {message}")

    for name, error_type in (
        ("RateLimitError", LLMRateLimited),
        ("AuthenticationError", LLMRejected),
        ("PermissionDeniedError", LLMRejected),
        ("NotFoundError", LLMRejected),
        ("BadRequestError", LLMRejected),
        ("UnprocessableEntityError", LLMRejected),
    ):
        cls = getattr(litellm, name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return error_type(message, status=getattr(exc, "status_code", None))
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and status != 500:
        return _by_status(status, message)
    return LLMServerError(message, status=status if isinstance(status, int) else None)


def _by_status(status: int, message: str) -> LLMError:
    if status == 429:
        return LLMRateLimited(message, status=status)
    if status in (408, 504):
        return LLMTimeout(message, status=status)
    if status >= 500:
        return LLMServerError(message, status=status)
    if 400 <= status < 500:
        return LLMRejected(message, status=status)
    if 200 <= status < 300:
        return LLMBadResponse(message, status=status)
    return LLMServerError(message, status=status)
