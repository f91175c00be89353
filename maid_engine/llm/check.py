"""Is the configured model usable? Asked once, before the server starts.

A model that is configured but cannot answer (LiteLLM missing, the server down,
the key refused, the model unknown) used to be found out by players ("No
storyteller is configured") while the reason sat in the server log. ``maid run``
now asks the model for a few tokens first and, when it cannot answer, stops with
one line that says what to fix, unless the operator chose to run on templates
(``llm_on_failure = "templates"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from maid_engine.config import Settings
from maid_engine.llm.errors import (
    LLMError,
    LLMRateLimited,
    LLMRejected,
    LLMTimeout,
    LLMTruncated,
    LLMUnavailable,
)
from maid_engine.llm.factory import api_key_for
from maid_engine.llm.litellm_provider import LiteLLMProvider
from maid_engine.llm.request import LLMRequest
from maid_engine.llm.router import RouterConfig, RouterConfigError, RouterProvider

__all__ = ["FALLBACK_HINT", "ModelProblem", "check_model"]

#: How an operator runs on templates when the model fails (named in every problem).
FALLBACK_HINT = "or set MAID_LLM_ON_FAILURE=templates to start on templates"

#: Seconds the check may take at most, whatever ``llm_timeout`` says.
CHECK_TIMEOUT = 20.0


@dataclass(frozen=True)
class ModelProblem:
    """Why the configured model cannot be used, and what fixes it."""

    cause: str
    fix: str

    def line(self) -> str:
        """The one line ``maid run`` stops with."""
        return f"error: {self.cause}: {self.fix}, {FALLBACK_HINT}."

    def warning(self) -> str:
        """The console line when the operator chose to start on templates."""
        return (
            f"MAID warning: {self.cause}; starting on templates "
            f"(MAID_LLM_ON_FAILURE=templates) until it is fixed ({self.fix}) and the "
            "server restarted."
        )


async def check_model(settings: Settings) -> ModelProblem | None:
    """None when ``settings`` names no model or the model answers; otherwise why it
    cannot be used and how to fix it."""
    model = settings.llm_model.strip()
    router_file = settings.llm_router_config.strip()
    if not model and not router_file:
        return None
    where = f" at {settings.llm_api_base}" if settings.llm_api_base else ""
    timeout = min(settings.llm_timeout, CHECK_TIMEOUT)
    # No limiter: the check is not a game request and must not spend the budget.
    provider: LiteLLMProvider | RouterProvider
    if router_file:
        try:
            provider = RouterProvider(RouterConfig.load(router_file), model, timeout=timeout)
        except RouterConfigError as exc:
            return ModelProblem(
                f"the LLM router file is not usable ({exc})",
                "fix MAID_LLM_ROUTER_CONFIG or the file",
            )
        model = f"{provider.model} (router: {', '.join(provider.config.deployments)})"
    else:
        provider = LiteLLMProvider(
            model,
            api_base=settings.llm_api_base or None,
            api_key=api_key_for(settings),
            timeout=timeout,
        )
    request = LLMRequest.from_prompt(
        "Reply with the single word: ready.", purpose="startup_check", max_tokens=8
    )
    try:
        await provider.complete(request)
    except (LLMTruncated, LLMRateLimited):
        return None  # it answered (cut short, or busy right now): it is usable
    except LLMUnavailable:
        return ModelProblem(
            f"MAID_LLM_MODEL is {model} but LiteLLM is not installed",
            "start with ./scripts/run (it installs the llm extra) or run pip install -e '.[llm]'",
        )
    except LLMRejected as exc:
        return ModelProblem(
            f"the LLM model {model}{where} refused the check ({_short(exc)})",
            "fix MAID_LLM_MODEL or MAID_LLM_API_KEY",
        )
    except LLMTimeout as exc:
        return ModelProblem(
            f"the LLM model {model}{where} did not answer in time ({_short(exc)})",
            "start the model server or fix MAID_LLM_API_BASE",
        )
    except LLMError as exc:
        return ModelProblem(
            f"the LLM model {model}{where} cannot be used ({_short(exc)})",
            "start the model server or fix MAID_LLM_API_BASE and MAID_LLM_MODEL",
        )
    finally:
        await provider.aclose()
    return None


#: LiteLLM's wrapping of an error ("litellm.InternalServerError: InternalServerError:
#: OpenAIException - "): noise in a line meant for an operator.
_WRAPPING = re.compile(r"litellm\.\w+: (?:\w+: )?(?:\w+Exception - )?")


def _short(exc: LLMError) -> str:
    """The error on one line, at most 160 characters."""
    text = _WRAPPING.sub("", " ".join(str(exc).split())).strip() or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."
