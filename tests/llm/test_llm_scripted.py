"""ScriptedProvider and the request/result types."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from maid_engine.llm import (
    LLMBadResponse,
    LLMError,
    LLMProvider,
    LLMRequest,
    LLMResult,
    LLMServerError,
    LLMTimeout,
    LLMTruncated,
    LLMUnavailable,
    NullProvider,
    ScriptedProvider,
)
from maid_engine.metrics import EngineMetrics


def req(text: str = "hello", **kw: Any) -> LLMRequest:
    return LLMRequest.from_prompt(text, **kw)


async def test_answers_in_order_and_records_requests() -> None:
    provider = ScriptedProvider(["one", LLMResult("two", prompt_tokens=3, completion_tokens=4)])
    assert isinstance(provider, LLMProvider)
    first = await provider.complete(req("a", purpose="narration"))
    second = await provider.complete(req("b"))
    assert (first.text, second.text) == ("one", "two")
    assert first.model == "scripted"
    assert first.prompt_tokens > 0
    assert first.completion_tokens > 0
    assert (second.prompt_tokens, second.completion_tokens) == (3, 4)
    assert [r.messages[-1]["content"] for r in provider.requests] == ["a", "b"]
    assert provider.requests[0].purpose == "narration"
    assert provider.remaining == 0


async def test_exceptions_in_the_script_are_raised() -> None:
    provider = ScriptedProvider([LLMServerError("down"), LLMTimeout, TimeoutError()])
    with pytest.raises(LLMServerError):
        await provider.complete(req())
    with pytest.raises(LLMTimeout):
        await provider.complete(req())
    with pytest.raises(LLMTimeout):  # a bare TimeoutError becomes the typed one
        await provider.complete(req())


async def test_running_out_raises_unavailable_unless_there_is_a_default() -> None:
    provider = ScriptedProvider(["only"])
    await provider.complete(req())
    assert not provider.exhausted
    with pytest.raises(LLMUnavailable):
        await provider.complete(req())
    assert provider.exhausted
    provider.push("more")
    assert (await provider.complete(req())).text == "more"
    assert (await ScriptedProvider(default="always").complete(req())).text == "always"


async def test_callable_and_async_callable_responders() -> None:
    provider = ScriptedProvider(lambda r: r.purpose.upper())
    assert (await provider.complete(req(purpose="narration"))).text == "NARRATION"

    async def respond(r: LLMRequest) -> str:
        await asyncio.sleep(0)
        return f"{len(r.messages)} messages"

    provider = ScriptedProvider(respond)
    assert (await provider.complete(req(system="sys"))).text == "2 messages"


async def test_checks_are_the_same_as_for_real_models() -> None:
    metrics = EngineMetrics()
    provider = ScriptedProvider(["", ScriptedProvider.truncated("cut")], metrics=metrics)
    with pytest.raises(LLMBadResponse):
        await provider.complete(req(purpose="narration"))
    with pytest.raises(LLMTruncated) as info:
        await provider.complete(req(purpose="narration"))
    assert info.value.result is not None
    assert info.value.result.text == "cut"
    errors = metrics.registry.get_sample_value(
        "maid_llm_errors_total", {"purpose": "narration", "kind": "truncated"}
    )
    assert errors == 1


async def test_latency_can_exceed_the_timeout() -> None:
    provider = ScriptedProvider(default="slow", latency=0.5)
    with pytest.raises(LLMTimeout):
        await provider.complete(req(timeout=0.05))
    fast = ScriptedProvider(default="quick", latency=0.01)
    result = await fast.complete(req(timeout=1.0))
    assert result.latency >= 0.01


async def test_null_provider_is_always_unavailable() -> None:
    with pytest.raises(LLMUnavailable) as info:
        await NullProvider().complete(req(purpose="narration"))
    assert isinstance(info.value, LLMError)
    assert info.value.purpose == "narration"


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"messages": []}, "at least one message"),
        ({"messages": [{"role": "wizard", "content": "x"}]}, "invalid chat message"),
        ({"messages": [{"role": "user", "content": None}]}, "content must be a string"),
        ({"messages": [{"role": "user", "content": "x"}], "max_tokens": 0}, "max_tokens must"),
        ({"messages": [{"role": "user", "content": "x"}], "temperature": 3.0}, "temperature must"),
        ({"messages": [{"role": "user", "content": "x"}], "timeout": 0}, "timeout must"),
        ({"messages": [{"role": "user", "content": "x"}], "purpose": ""}, "purpose must"),
    ],
)
def test_malformed_requests_are_programming_errors(kwargs: dict[str, object], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        LLMRequest(**kwargs)  # type: ignore[arg-type]


def test_result_round_trips_through_a_dict() -> None:
    result = LLMResult("t", "stop", 1, 2, "m", 0.5)
    assert LLMResult.from_dict(result.to_dict()) == result
    assert result.total_tokens == 3


def test_estimates_grow_with_the_prompt() -> None:
    short = req("x")
    long = req("x" * 4000, max_tokens=10)
    assert long.estimated_prompt_tokens() > 1000 > short.estimated_prompt_tokens()
    assert long.estimated_tokens() == long.estimated_prompt_tokens() + 10
