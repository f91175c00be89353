"""Several model deployments behind one provider: a LiteLLM ``Router``.

The router is configured from a YAML file in the format LiteLLM's proxy reads
(``model_list`` with each deployment's ``litellm_params``, ``weight``, ``rpm`` and
``tpm``, ``model_info.id``; ``router_settings`` with ``routing_strategy``,
``num_retries``, ``fallbacks``, ``timeout``, ``allowed_fails``, ``cooldown_time``
...; from ``litellm_settings`` only the router's keys are read). It spreads the
calls over the deployments by weight, keeps each under its own rate limits,
retries, cools a failing one down and falls back to another group. MAID's limiter
still admits each request once, before the router picks a deployment, and settles
what the serving deployment used: the token budget, the quotas and the request
rate count across all deployments.

Every answer says which deployment served it (``LLMResult.deployment``,
``maid_llm_deployment_requests_total``); the attempts a deployment failed are
counted in ``maid_llm_deployment_failures_total`` (reported by LiteLLM's callback,
shortly after the attempt).
"""

from __future__ import annotations

import logging
import os
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import yaml

from maid_engine.llm.errors import LLMError, LLMUnavailable
from maid_engine.llm.limiter import LLMLimiter
from maid_engine.llm.litellm_provider import (
    close_litellm_clients,
    completion_result,
    import_litellm,
    load_litellm,
    map_litellm_error,
)
from maid_engine.llm.metrics import LLMMetrics
from maid_engine.llm.provider import BaseProvider
from maid_engine.llm.request import LLMRequest, LLMResult
from maid_engine.metrics import EngineMetrics

__all__ = ["RouterConfig", "RouterConfigError", "RouterProvider"]

log = logging.getLogger("maid.llm")

#: ``router_settings`` keys MAID passes to ``litellm.Router`` (others are refused:
#: a typo must not be ignored silently).
ROUTER_KEYS: Final = frozenset(
    {
        "routing_strategy",
        "routing_strategy_args",
        "num_retries",
        "max_fallbacks",
        "timeout",
        "fallbacks",
        "default_fallbacks",
        "context_window_fallbacks",
        "content_policy_fallbacks",
        "allowed_fails",
        "allowed_fails_policy",
        "cooldown_time",
        "disable_cooldowns",
        "retry_after",
        "retry_policy",
        "enable_pre_call_checks",
        "default_max_parallel_requests",
        "model_group_alias",
    }
)
#: ``litellm_settings`` keys the proxy also accepts for its router.
LITELLM_SETTINGS_KEYS: Final = frozenset(
    {"num_retries", "fallbacks", "context_window_fallbacks", "request_timeout", "allowed_fails"}
)
#: What a value ``os.environ/NAME`` is read from (the proxy's convention for keys).
ENV_PREFIX: Final = "os.environ/"
#: OpenAI-compatible clients insist on a key even when a local server ignores it.
PLACEHOLDER_API_KEY: Final = "sk-no-key-required"


class RouterConfigError(ValueError):
    """The router file cannot be used; the message names the file and the entry."""


@dataclass(frozen=True)
class RouterConfig:
    """A checked router file: the deployments and the router's settings."""

    path: str
    model_list: list[dict[str, Any]]
    settings: dict[str, Any]

    @property
    def groups(self) -> list[str]:
        """The model groups (``model_name``), in file order."""
        return list(dict.fromkeys(d["model_name"] for d in self.model_list))

    @property
    def deployments(self) -> list[str]:
        """Every deployment's id (``model_info.id``)."""
        return [d["model_info"]["id"] for d in self.model_list]

    @classmethod
    def load(cls, path: str | Path, environ: dict[str, str] | None = None) -> RouterConfig:
        """Read and check ``path``. ``os.environ/NAME`` values are read from
        ``environ`` (the process environment by default)."""
        where = str(path)
        try:
            raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise RouterConfigError(f"{where}: cannot be read ({exc.strerror})") from exc
        except yaml.YAMLError as exc:
            raise RouterConfigError(f"{where}: not valid YAML ({exc})") from exc
        return cls.parse(raw, where, os.environ if environ is None else environ)

    @classmethod
    def parse(cls, raw: Any, where: str, environ: Any) -> RouterConfig:
        if not isinstance(raw, dict):
            raise RouterConfigError(f"{where}: expected a mapping with a model_list")
        models = raw.get("model_list")
        if not isinstance(models, list) or not models:
            raise RouterConfigError(f"{where}: model_list must list at least one deployment")
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        for n, entry in enumerate(models, 1):
            out.append(_deployment(entry, f"{where}: model_list entry {n}", environ, seen))
        settings: dict[str, Any] = {}
        extra = raw.get("litellm_settings") or {}
        if not isinstance(extra, dict):
            raise RouterConfigError(f"{where}: litellm_settings must be a mapping")
        for key in LITELLM_SETTINGS_KEYS & extra.keys():
            settings["timeout" if key == "request_timeout" else key] = extra[key]
        router = raw.get("router_settings") or {}
        if not isinstance(router, dict):
            raise RouterConfigError(f"{where}: router_settings must be a mapping")
        unknown = sorted(set(router) - ROUTER_KEYS)
        if unknown:
            raise RouterConfigError(
                f"{where}: router_settings: unknown key(s) {', '.join(unknown)} "
                f"(known: {', '.join(sorted(ROUTER_KEYS))})"
            )
        settings.update(router)
        groups = {d["model_name"] for d in out}
        for fallback in settings.get("fallbacks") or []:
            if not isinstance(fallback, dict):
                raise RouterConfigError(f"{where}: each fallback is a mapping group: [groups]")
            for group, targets in fallback.items():
                names = [group, *(targets if isinstance(targets, list) else [targets])]
                missing = [g for g in names if g not in groups]
                if missing:
                    raise RouterConfigError(
                        f"{where}: fallbacks name {', '.join(map(str, missing))}, which no "
                        f"deployment's model_name is ({', '.join(sorted(groups))})"
                    )
        return cls(where, out, settings)


def _deployment(entry: Any, where: str, environ: Any, seen: set[str]) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise RouterConfigError(f"{where}: expected a mapping")
    name = entry.get("model_name")
    params = entry.get("litellm_params")
    if not isinstance(name, str) or not name.strip():
        raise RouterConfigError(f"{where}: model_name is missing")
    if not isinstance(params, dict) or not isinstance(params.get("model"), str):
        raise RouterConfigError(f"{where} ({name}): litellm_params.model is missing")
    resolved: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, str) and value.startswith(ENV_PREFIX):
            var = value[len(ENV_PREFIX) :]
            if var not in environ:
                raise RouterConfigError(
                    f"{where} ({name}): litellm_params.{key} reads {var}, which is not set"
                )
            value = environ[var]
        resolved[key] = value
    # The router retries and falls back itself: the OpenAI client must not retry
    # behind its back (three silent attempts at a dead server).
    resolved.setdefault("max_retries", 0)
    if (
        resolved["model"].startswith("openai/")
        and resolved.get("api_base")
        and not resolved.get("api_key")
    ):
        resolved["api_key"] = PLACEHOLDER_API_KEY
    info = dict(entry.get("model_info") or {})
    ident = str(info.get("id") or "")
    if not ident:
        base = resolved.get("api_base")
        ident = f"{resolved['model']}@{base}" if base else resolved["model"]
    if ident in seen:
        n = 2
        while f"{ident}#{n}" in seen:
            n += 1
        ident = f"{ident}#{n}"
    seen.add(ident)
    info["id"] = ident
    out = {k: v for k, v in entry.items() if k not in ("litellm_params", "model_info")}
    out.update(model_name=name, litellm_params=resolved, model_info=info)
    return out


class RouterProvider(BaseProvider):
    """``litellm.Router.acompletion`` behind the shared limiter, with typed errors.

    ``model`` is the model group asked (a ``model_name`` of the file; by default
    the first). The router is built on the first call (LiteLLM is imported then,
    off the event loop)."""

    def __init__(
        self,
        config: RouterConfig,
        model: str = "",
        *,
        timeout: float = 30.0,
        limiter: LLMLimiter | None = None,
        metrics: EngineMetrics | LLMMetrics | None = None,
    ) -> None:
        super().__init__(timeout=timeout, limiter=limiter, metrics=metrics)
        self.config = config
        self.model = model.strip() or config.groups[0]
        if self.model not in config.groups:
            raise RouterConfigError(
                f"{config.path}: no deployment is called {self.model!r} "
                f"(model_name: {', '.join(config.groups)})"
            )
        self._router: Any = None
        self.metrics.deployments_known(config.deployments)

    def __repr__(self) -> str:
        return f"RouterProvider(model={self.model!r}, deployments={self.config.deployments!r})"

    async def warm_up(self) -> None:
        await self._prepare()

    async def _prepare(self) -> None:
        # (Again after aclose: the provider stays usable.)
        _ROUTERS[id(self)] = self
        if self._router is not None:
            return
        litellm = await load_litellm()
        settings = dict(self.config.settings)
        settings.setdefault("timeout", self.timeout)
        try:
            with warnings.catch_warnings():
                # LiteLLM's own types warn pydantic about themselves on first use:
                # nothing an operator can act on.
                warnings.simplefilter("ignore", UserWarning)
                self._router = litellm.Router(model_list=self.config.model_list, **settings)
        except Exception as exc:
            raise LLMUnavailable(f"{self.config.path}: the router cannot be built: {exc}") from exc
        _install_failure_logger(litellm)

    async def aclose(self) -> None:
        """Stop reporting failures and release LiteLLM's HTTP clients."""
        _ROUTERS.pop(id(self), None)
        await close_litellm_clients()

    async def _call(self, request: LLMRequest, time_limit: float) -> LLMResult:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "drop_params": True,
            # Tells this provider's failure callback the attempt is its own.
            "metadata": {"maid_router": id(self), "maid_purpose": request.purpose},
        }
        if request.json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        litellm = await load_litellm()
        try:
            response = await self._router.acompletion(**kwargs)
        except LLMError:
            raise
        except Exception as exc:
            raise map_litellm_error(litellm, exc) from exc
        result = completion_result(self.model, request, response)
        hidden = getattr(response, "_hidden_params", None) or {}
        deployment = str(hidden.get("model_id") or "")
        self.metrics.deployment_served(deployment or "unknown", request.purpose)
        return replace(result, deployment=deployment)

    def attempt_failed(self, deployment: str, error: BaseException) -> None:
        """An attempt on ``deployment`` failed (the router may have moved on)."""
        # Only LiteLLM calls this, so it is imported: no wait here.
        kind = map_litellm_error(import_litellm(), error).kind
        self.metrics.deployment_failed(deployment or "unknown", kind)


#: Routers whose failed attempts the one failure callback reports, by id.
_ROUTERS: dict[int, RouterProvider] = {}
#: The failure callback, installed in LiteLLM once per process (LiteLLM copies its
#: callbacks into lists of its own: one removed later would still be called).
_LOGGER: list[Any] = []


def _install_failure_logger(litellm: Any) -> None:
    if _LOGGER:
        return
    from litellm.integrations.custom_logger import CustomLogger

    class FailureLogger(CustomLogger):
        async def async_log_failure_event(
            self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
        ) -> None:
            params = kwargs.get("litellm_params") or {}
            metadata = params.get("metadata") or {}
            provider = _ROUTERS.get(metadata.get("maid_router") or 0)
            if provider is None:
                return
            info = metadata.get("model_info") or {}
            error = kwargs.get("exception")
            provider.attempt_failed(
                str(info.get("id") or ""),
                error if isinstance(error, BaseException) else RuntimeError(str(error)),
            )

    _LOGGER.append(FailureLogger())
    litellm.callbacks.append(_LOGGER[0])
