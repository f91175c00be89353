"""The LiteLLM Router over several deployments (two local OpenAI-compatible
servers, ``tests/fakellm.py``): weights, per-deployment rate limits, retries,
cooldowns and fallbacks; MAID's limiter counting across them; the metrics saying
which deployment served what."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakellm import FakeOpenAIServer

from maid_engine.clock import ManualClock
from maid_engine.config import Settings, needed_extras
from maid_engine.llm import LLMLimiter, LLMRequest, LLMServerError
from maid_engine.llm.check import check_model
from maid_engine.llm.factory import build_provider
from maid_engine.llm.router import (
    PLACEHOLDER_API_KEY,
    RouterConfig,
    RouterConfigError,
    RouterProvider,
)
from maid_engine.metrics import EngineMetrics

pytestmark = pytest.mark.usefixtures("litellm_ready")


def deployment(
    srv: FakeOpenAIServer, ident: str, group: str = "maid", **params: Any
) -> dict[str, Any]:
    return {
        "model_name": group,
        "litellm_params": {"model": "openai/test-model", "api_base": srv.url, **params},
        "model_info": {"id": ident},
    }


def write(tmp_path: Path, config: dict[str, Any]) -> Path:
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def provider_for(
    tmp_path: Path,
    config: dict[str, Any],
    *,
    metrics: EngineMetrics | None = None,
    limiter: LLMLimiter | None = None,
    model: str = "",
) -> RouterProvider:
    return RouterProvider(
        RouterConfig.load(write(tmp_path, config)),
        model,
        timeout=10.0,
        limiter=limiter,
        metrics=metrics,
    )


def request(text: str = "Describe the tavern.") -> LLMRequest:
    return LLMRequest.from_prompt(text, purpose="narration")


def served(metrics: EngineMetrics, deployment: str, purpose: str = "narration") -> float:
    value = metrics.registry.get_sample_value(
        "maid_llm_deployment_requests_total", {"deployment": deployment, "purpose": purpose}
    )
    return value or 0.0


async def failures(metrics: EngineMetrics, deployment: str, kind: str) -> float:
    # LiteLLM reports failed attempts from a callback it runs after the attempt.
    for _ in range(200):
        value = metrics.registry.get_sample_value(
            "maid_llm_deployment_failures_total", {"deployment": deployment, "kind": kind}
        )
        if value:
            return value
        await asyncio.sleep(0)
    return 0.0


@pytest.mark.parametrize("trouble", ["500", "429", "slow"])
async def test_a_failing_slow_or_limited_deployment_leaves_the_load_to_the_other(
    tmp_path: Path, trouble: str
) -> None:
    metrics = EngineMetrics()
    with FakeOpenAIServer() as local, FakeOpenAIServer() as hosted:
        if trouble == "slow":
            local.delay(5.0, "too late")
        else:
            local.status(int(trouble))
        hosted.ok("The tavern is warm.", prompt_tokens=10, completion_tokens=5)
        provider = provider_for(
            tmp_path,
            {
                "model_list": [
                    deployment(local, "local", weight=1000, timeout=0.5),
                    deployment(hosted, "hosted", weight=1),
                ],
                "router_settings": {"num_retries": 2, "allowed_fails": 0, "cooldown_time": 60},
            },
            metrics=metrics,
        )
        random.seed(1)
        result = await provider.complete(request())
        assert result.text == "The tavern is warm."
        assert result.deployment == "hosted"
        assert served(metrics, "hosted") == 1
        assert served(metrics, "local") == 0
        kind = {"500": "server_error", "429": "rate_limited", "slow": "timeout"}[trouble]
        assert await failures(metrics, "local", kind) >= 1
        await provider.aclose()


async def test_a_group_falls_back_to_another_and_the_budget_counts_both(tmp_path: Path) -> None:
    metrics = EngineMetrics()
    clock = ManualClock()
    limiter = LLMLimiter.from_limits(60, 10_000, clock=clock.monotonic)
    with FakeOpenAIServer() as local, FakeOpenAIServer() as hosted:
        local.ok("Local prose.", prompt_tokens=10, completion_tokens=5)
        local.status(503)
        hosted.ok("Hosted prose.", prompt_tokens=20, completion_tokens=10)
        provider = provider_for(
            tmp_path,
            {
                "model_list": [
                    deployment(local, "local", "local"),
                    deployment(hosted, "hosted", "hosted"),
                ],
                "router_settings": {"num_retries": 0, "fallbacks": [{"local": ["hosted"]}]},
            },
            metrics=metrics,
            limiter=limiter,
        )
        assert provider.model == "local"  # the file's first group
        first = await provider.complete(request())
        second = await provider.complete(request())
        assert (first.deployment, first.text) == ("local", "Local prose.")
        assert (second.deployment, second.text) == ("hosted", "Hosted prose.")
        # One limiter for every deployment: both answers are in the budget.
        assert limiter.budget is not None
        assert limiter.budget.used() == 45
        assert served(metrics, "local") == 1
        assert served(metrics, "hosted") == 1
        await provider.aclose()


async def test_when_every_deployment_fails_the_caller_gets_a_typed_error(tmp_path: Path) -> None:
    with FakeOpenAIServer() as local, FakeOpenAIServer() as hosted:
        local.status(500)
        hosted.status(500)
        provider = provider_for(
            tmp_path,
            {
                "model_list": [deployment(local, "local"), deployment(hosted, "hosted")],
                "router_settings": {"num_retries": 1, "allowed_fails": 0},
            },
        )
        with pytest.raises(LLMServerError):
            await provider.complete(request())
        await provider.aclose()


async def test_a_deployment_is_kept_under_its_own_requests_per_minute(tmp_path: Path) -> None:
    metrics = EngineMetrics()
    with FakeOpenAIServer() as local, FakeOpenAIServer() as hosted:
        provider = provider_for(
            tmp_path,
            {
                "model_list": [
                    deployment(local, "local", rpm=1),
                    deployment(hosted, "hosted", rpm=100),
                ],
                "router_settings": {"routing_strategy": "usage-based-routing-v2"},
            },
            metrics=metrics,
        )
        for _ in range(5):
            await provider.complete(request())
        assert served(metrics, "local") <= 1
        assert local.request_count <= 1
        assert served(metrics, "local") + served(metrics, "hosted") == 5
        await provider.aclose()


async def test_weights_spread_the_calls(tmp_path: Path) -> None:
    metrics = EngineMetrics()
    with FakeOpenAIServer() as local, FakeOpenAIServer() as hosted:
        provider = provider_for(
            tmp_path,
            {
                "model_list": [
                    deployment(local, "local", weight=1000),
                    deployment(hosted, "hosted", weight=1),
                ]
            },
            metrics=metrics,
        )
        random.seed(3)
        for _ in range(20):
            await provider.complete(request())
        # 1000 to 1: the odds of the light one serving even five are nil.
        assert served(metrics, "local") >= 15
        await provider.aclose()


# -- the file ---------------------------------------------------------------------------
def test_the_file_reads_the_proxys_format(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "model_list": [
                {
                    "model_name": "maid",
                    "litellm_params": {
                        "model": "openai/llama3",
                        "api_base": "http://127.0.0.1:11434/v1",
                        "rpm": 30,
                    },
                },
                {
                    "model_name": "maid",
                    "litellm_params": {
                        "model": "openai/llama3",
                        "api_base": "http://127.0.0.1:11434/v1",
                    },
                },
                {
                    "model_name": "hosted",
                    "litellm_params": {
                        "model": "gpt-4o-mini",
                        "api_key": "os.environ/MAID_TEST_KEY",
                    },
                    "model_info": {"id": "openai"},
                },
            ],
            "litellm_settings": {"num_retries": 3, "request_timeout": 12, "drop_params": True},
            "router_settings": {"fallbacks": [{"maid": ["hosted"]}], "cooldown_time": 30},
        },
    )
    config = RouterConfig.load(path, environ={"MAID_TEST_KEY": "sk-real"})
    assert config.groups == ["maid", "hosted"]
    assert config.deployments == [
        "openai/llama3@http://127.0.0.1:11434/v1",
        "openai/llama3@http://127.0.0.1:11434/v1#2",
        "openai",
    ]
    local = config.model_list[0]["litellm_params"]
    assert local["api_key"] == PLACEHOLDER_API_KEY
    assert local["max_retries"] == 0
    assert local["rpm"] == 30
    assert config.model_list[2]["litellm_params"]["api_key"] == "sk-real"
    assert config.settings == {
        "num_retries": 3,
        "timeout": 12,
        "fallbacks": [{"maid": ["hosted"]}],
        "cooldown_time": 30,
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("model_list: [", "not valid YAML"),
        ("[1, 2]", "expected a mapping with a model_list"),
        ("model_list: []", "model_list must list at least one deployment"),
        ("model_list: [3]", "model_list entry 1: expected a mapping"),
        ("model_list: [{litellm_params: {model: x}}]", "model_list entry 1: model_name is missing"),
        (
            "model_list: [{model_name: m, litellm_params: {}}]",
            "(m): litellm_params.model is missing",
        ),
        (
            "model_list: [{model_name: m, litellm_params: "
            "{model: x, api_key: os.environ/NOPE_KEY}}]",
            "litellm_params.api_key reads NOPE_KEY, which is not set",
        ),
        (
            "model_list: [{model_name: m, litellm_params: {model: x}}]\n"
            "router_settings: {retries: 2}",
            "router_settings: unknown key(s) retries",
        ),
        (
            "model_list: [{model_name: m, litellm_params: {model: x}}]\n"
            "router_settings: {fallbacks: [{m: [other]}]}",
            "fallbacks name other, which no deployment's model_name is (m)",
        ),
        (
            "model_list: [{model_name: m, litellm_params: {model: x}}]\nrouter_settings: [1]",
            "router_settings must be a mapping",
        ),
        (
            "model_list: [{model_name: m, litellm_params: {model: x}}]\nlitellm_settings: 3",
            "litellm_settings must be a mapping",
        ),
        (
            "model_list: [{model_name: m, litellm_params: {model: x}}]\n"
            "router_settings: {fallbacks: [m]}",
            "each fallback is a mapping",
        ),
    ],
)
def test_a_bad_file_is_refused_with_the_reason(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "router.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RouterConfigError) as caught:
        RouterConfig.load(path, environ={})
    assert message in str(caught.value)
    assert str(path) in str(caught.value)


def test_a_missing_file_and_an_unknown_group_are_refused(tmp_path: Path) -> None:
    with pytest.raises(RouterConfigError, match="cannot be read"):
        RouterConfig.load(tmp_path / "nope.yaml")
    path = write(tmp_path, {"model_list": [{"model_name": "m", "litellm_params": {"model": "x"}}]})
    with pytest.raises(RouterConfigError, match="no deployment is called 'other'"):
        RouterProvider(RouterConfig.load(path), "other")


async def test_settings_build_a_router_and_the_start_up_check_asks_it(tmp_path: Path) -> None:
    with FakeOpenAIServer() as local, FakeOpenAIServer() as hosted:
        local.status(500)
        path = write(
            tmp_path,
            {
                "model_list": [deployment(local, "local"), deployment(hosted, "hosted", "backup")],
                "router_settings": {"num_retries": 0, "fallbacks": [{"maid": ["backup"]}]},
            },
        )
        settings = Settings(llm_router_config=str(path), data_dir=tmp_path)
        assert needed_extras(settings) == ["llm"]
        provider = build_provider(settings)
        assert isinstance(provider, RouterProvider)
        assert provider.model == "maid"
        assert provider.limiter is not None
        assert "local" in repr(provider)
        # The check succeeds through the fallback.
        assert await check_model(settings) is None
        hosted.status(401)
        local.status(500)
        problem = await check_model(settings)
        assert problem is not None
        assert "maid (router: local, hosted)" in problem.line()
        bad = tmp_path / "bad.yaml"
        bad.write_text("model_list: []", encoding="utf-8")
        problem = await check_model(settings.model_copy(update={"llm_router_config": str(bad)}))
        assert problem is not None
        assert "the LLM router file is not usable" in problem.line()
        assert "MAID_LLM_ROUTER_CONFIG" in problem.line()
