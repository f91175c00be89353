"""LiteLLMProvider against the local FakeOpenAIServer, through real LiteLLM."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeOpenAIServer
from llm.llm_helpers import TEST_KEY, TEST_MODEL

from maid_engine.clock import ManualClock
from maid_engine.llm import (
    LiteLLMProvider,
    LLMBadResponse,
    LLMBudgetExhausted,
    LLMError,
    LLMLimiter,
    LLMRateLimited,
    LLMRejected,
    LLMRequest,
    LLMServerError,
    LLMTimeout,
    LLMTruncated,
    LLMUnavailable,
)
from maid_engine.metrics import EngineMetrics

pytestmark = pytest.mark.usefixtures("litellm_ready")

ROOT = Path(__file__).resolve().parents[2]


def make_provider(
    srv: FakeOpenAIServer,
    *,
    timeout: float = 5.0,
    limiter: LLMLimiter | None = None,
    metrics: EngineMetrics | None = None,
) -> LiteLLMProvider:
    return LiteLLMProvider(
        TEST_MODEL,
        api_base=srv.url,
        api_key=TEST_KEY,
        timeout=timeout,
        limiter=limiter,
        metrics=metrics,
    )


def request(text: str = "Describe the tavern.", **kw: Any) -> LLMRequest:
    return LLMRequest.from_prompt(text, system="You narrate a fantasy MUD.", **kw)


def sample(metrics: EngineMetrics, name: str, **labels: str) -> float:
    value = metrics.registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


def assert_no_warning_in_chain(exc: BaseException) -> None:
    """warnings are errors in this suite: make sure no warning raised inside LiteLLM
    was mistaken for the failure under test."""
    current: BaseException | None = exc
    while current is not None:
        assert not isinstance(current, Warning), f"a warning caused the error: {current!r}"
        current = current.__cause__ or current.__context__


class Ticker:
    """Counts event-loop wake-ups and the longest stall while it runs."""

    def __init__(self, interval: float = 0.01) -> None:
        self.interval = interval
        self.ticks = 0
        self.max_gap = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(self.interval)
            now = time.perf_counter()
            self.ticks += 1
            self.max_gap = max(self.max_gap, now - last)
            last = now

    async def __aenter__(self) -> Ticker:
        self._task = asyncio.create_task(self._run())
        await asyncio.sleep(0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def test_success_returns_text_and_counts_usage(
    fake_llm: FakeOpenAIServer, metrics: EngineMetrics
) -> None:
    limiter = LLMLimiter.from_limits(60, 10_000)
    provider = make_provider(fake_llm, limiter=limiter, metrics=metrics)
    fake_llm.ok("The tavern smells of ale.", prompt_tokens=42, completion_tokens=7)

    result = await provider.complete(request(purpose="narration", max_tokens=120, temperature=0.3))

    assert result.text == "The tavern smells of ale."
    assert result.finish_reason == "stop"
    assert (result.prompt_tokens, result.completion_tokens, result.total_tokens) == (42, 7, 49)
    assert result.model.endswith("test-model")
    assert result.latency > 0
    assert not result.cached
    assert limiter.budget is not None
    assert limiter.budget.used() == 49
    assert limiter.budget.reserved == 0

    body = fake_llm.last_request
    assert body["model"] == "test-model"
    assert body["messages"][0] == {"role": "system", "content": "You narrate a fantasy MUD."}
    assert body["messages"][1]["content"] == "Describe the tavern."
    assert body["max_tokens"] == 120
    assert body["temperature"] == 0.3
    assert "response_format" not in body

    assert sample(metrics, "maid_llm_requests_total", purpose="narration", outcome="ok") == 1
    assert sample(metrics, "maid_llm_tokens_total", purpose="narration", kind="prompt") == 42
    assert sample(metrics, "maid_llm_tokens_total", purpose="narration", kind="completion") == 7
    assert sample(metrics, "maid_llm_latency_seconds_count", purpose="narration") == 1
    assert sample(metrics, "maid_llm_budget_remaining_tokens") == 10_000 - 49


async def test_json_mode_asks_for_a_json_object(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.ok('{"title": "The Lost Ring"}')
    result = await make_provider(fake_llm).complete(request(json_mode=True))
    assert result.text == '{"title": "The Lost Ring"}'
    assert fake_llm.last_request["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize(
    ("status", "error", "kind"),
    [
        (500, LLMServerError, "server_error"),
        (503, LLMServerError, "server_error"),
        (429, LLMRateLimited, "rate_limited"),
        (401, LLMRejected, "rejected"),
        (400, LLMRejected, "rejected"),
    ],
)
async def test_http_errors_map_to_typed_errors_without_retries(
    fake_llm: FakeOpenAIServer,
    metrics: EngineMetrics,
    status: int,
    error: type[LLMError],
    kind: str,
) -> None:
    fake_llm.status(status)
    provider = make_provider(fake_llm, metrics=metrics)
    with pytest.raises(error) as info:
        await provider.complete(request(purpose="quest_narrative"))
    assert info.value.status == status
    assert info.value.purpose == "quest_narrative"
    assert_no_warning_in_chain(info.value)
    if isinstance(info.value, LLMRateLimited):
        assert not info.value.local
    # Retries are off: one failure costs one request, and the caller falls back at once.
    assert fake_llm.request_count == 1
    assert sample(metrics, "maid_llm_errors_total", purpose="quest_narrative", kind=kind) == 1
    assert sample(metrics, "maid_llm_requests_total", purpose="quest_narrative", outcome=kind) == 1


@pytest.mark.parametrize(
    "body",
    [
        b"<html>502 proxy error</html>",
        b"",
        b'{"foo": 1}',
        b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": null},'
        b' "finish_reason": "stop"}]}',
    ],
    ids=["html", "empty-body", "no-choices", "null-content"],
)
async def test_garbage_is_a_bad_response(fake_llm: FakeOpenAIServer, body: bytes) -> None:
    fake_llm.garbage(body)
    with pytest.raises(LLMBadResponse) as info:
        await make_provider(fake_llm).complete(request())
    assert fake_llm.request_count == 1
    assert_no_warning_in_chain(info.value)


async def test_empty_completion_is_a_bad_response(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.ok("   ")
    with pytest.raises(LLMBadResponse):
        await make_provider(fake_llm).complete(request())


async def test_truncated_completion_raises_and_still_counts_tokens(
    fake_llm: FakeOpenAIServer, metrics: EngineMetrics
) -> None:
    limiter = LLMLimiter.from_limits(60, 1_000)
    fake_llm.truncated("The dragon said: I will", prompt_tokens=30, completion_tokens=20)
    provider = make_provider(fake_llm, limiter=limiter, metrics=metrics)
    with pytest.raises(LLMTruncated) as info:
        await provider.complete(request(purpose="narration"))
    assert_no_warning_in_chain(info.value)
    assert info.value.result is not None
    assert info.value.result.text == "The dragon said: I will"
    assert limiter.budget is not None
    assert limiter.budget.used() == 50
    assert sample(metrics, "maid_llm_tokens_total", purpose="narration", kind="completion") == 20


async def test_hang_times_out_within_the_timeout_and_loop_stays_responsive(
    fake_llm: FakeOpenAIServer, metrics: EngineMetrics
) -> None:
    limiter = LLMLimiter.from_limits(60, 10_000)
    fake_llm.hang()
    provider = make_provider(fake_llm, timeout=1.0, limiter=limiter, metrics=metrics)
    async with Ticker() as ticker:
        started = time.perf_counter()
        with pytest.raises(LLMTimeout) as info:
            await provider.complete(request(purpose="narration"))
        elapsed = time.perf_counter() - started
    assert_no_warning_in_chain(info.value)
    # Margins leave room for a loaded CI machine; a blocked loop would show
    # a gap of the whole second and almost no ticks.
    assert 0.9 <= elapsed < 2.0
    assert ticker.ticks >= 20
    assert ticker.max_gap < 0.5
    assert limiter.budget is not None
    assert limiter.budget.reserved == 0
    assert sample(metrics, "maid_llm_errors_total", purpose="narration", kind="timeout") == 1


async def test_request_timeout_overrides_the_provider_default(
    fake_llm: FakeOpenAIServer,
) -> None:
    fake_llm.delay(2.0, "too late")
    started = time.perf_counter()
    with pytest.raises(LLMTimeout):
        await make_provider(fake_llm, timeout=30.0).complete(request(timeout=0.5))
    assert time.perf_counter() - started < 1.5


async def test_slow_answer_within_the_timeout_succeeds_while_the_loop_runs(
    fake_llm: FakeOpenAIServer,
) -> None:
    fake_llm.delay(0.4, "Worth the wait.")
    async with Ticker() as ticker:
        result = await make_provider(fake_llm, timeout=2.0).complete(request())
    assert result.text == "Worth the wait."
    assert result.latency >= 0.4
    assert ticker.ticks >= 10
    assert ticker.max_gap < 0.3


async def test_concurrent_calls_run_in_parallel(fake_llm: FakeOpenAIServer) -> None:
    for i in range(3):
        fake_llm.delay(0.8, f"answer {i}")
    provider = make_provider(fake_llm)
    started = time.perf_counter()
    results = await asyncio.gather(*(provider.complete(request(f"q{i}")) for i in range(3)))
    assert sorted(r.text for r in results) == ["answer 0", "answer 1", "answer 2"]
    assert time.perf_counter() - started < 2.0  # one after another: at least 2.4 s


async def test_unreachable_server_is_a_server_error() -> None:
    with FakeOpenAIServer() as srv:
        url = srv.url
    provider = LiteLLMProvider(TEST_MODEL, api_base=url, api_key=TEST_KEY, timeout=2.0)
    with pytest.raises(LLMServerError) as info:
        await provider.complete(request())
    assert_no_warning_in_chain(info.value)


async def test_budget_exhaustion_blocks_calls_until_the_window_rolls(
    fake_llm: FakeOpenAIServer, metrics: EngineMetrics, clock: ManualClock
) -> None:
    limiter = LLMLimiter.from_limits(600, 100, window_seconds=3600, clock=clock.monotonic)
    provider = make_provider(fake_llm, limiter=limiter, metrics=metrics)
    fake_llm.ok("first", prompt_tokens=80, completion_tokens=30)
    await provider.complete(request(purpose="quest_narrative"))
    budget = limiter.budget
    assert budget is not None
    assert budget.exhausted
    assert budget.remaining() == 0
    assert sample(metrics, "maid_llm_budget_remaining_tokens") == 0

    for _ in range(3):
        with pytest.raises(LLMBudgetExhausted):
            await provider.complete(request(purpose="quest_narrative"))
    assert fake_llm.request_count == 1  # no HTTP call while exhausted
    assert (
        sample(metrics, "maid_llm_errors_total", purpose="quest_narrative", kind="budget_exhausted")
        == 3
    )

    clock.advance_wall(3599)
    assert budget.exhausted
    assert budget.seconds_until_recovery() == pytest.approx(1.0)
    clock.advance_wall(1)
    assert not budget.exhausted
    assert budget.remaining() == 100
    fake_llm.ok("again", prompt_tokens=5, completion_tokens=5)
    assert (await provider.complete(request(purpose="quest_narrative"))).text == "again"
    assert fake_llm.request_count == 2


async def test_rate_limit_refuses_locally_and_refills(
    fake_llm: FakeOpenAIServer, metrics: EngineMetrics, clock: ManualClock
) -> None:
    limiter = LLMLimiter.from_limits(60, 100_000, clock=clock.monotonic, burst=2)
    provider = make_provider(fake_llm, limiter=limiter, metrics=metrics)
    await provider.complete(request())
    await provider.complete(request())
    with pytest.raises(LLMRateLimited) as info:
        await provider.complete(request())
    assert info.value.local
    assert fake_llm.request_count == 2
    assert (
        sample(metrics, "maid_llm_errors_total", purpose="general", kind="rate_limited_local") == 1
    )
    clock.advance_wall(1.0)
    await provider.complete(request())
    assert fake_llm.request_count == 3


async def test_cancelled_call_releases_its_budget_reservation(
    fake_llm: FakeOpenAIServer,
) -> None:
    limiter = LLMLimiter.from_limits(60, 10_000)
    fake_llm.hang()
    task = asyncio.create_task(make_provider(fake_llm, limiter=limiter).complete(request()))
    await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    assert limiter.budget is not None
    assert limiter.budget.reserved > 0
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert limiter.budget.reserved == 0
    assert limiter.budget.used() == 0


async def test_no_model_means_unavailable() -> None:
    provider = LiteLLMProvider("", api_key=TEST_KEY)
    with pytest.raises(LLMUnavailable):
        await provider.complete(request())
    await provider.warm_up()  # nothing to warm up: must not fail


async def test_repr_hides_the_api_key(fake_llm: FakeOpenAIServer) -> None:
    assert TEST_KEY not in repr(make_provider(fake_llm))


async def test_warm_up_reuses_the_imported_module(
    fake_llm: FakeOpenAIServer, litellm_ready: Any
) -> None:
    await make_provider(fake_llm).warm_up()
    # No second import: the module object in sys.modules is still the first one.
    assert sys.modules["litellm"] is litellm_ready


def test_import_happened_off_the_event_loop() -> None:
    # In a fresh interpreter, so LiteLLM is surely not imported yet (in this process
    # another test may already have imported it).
    code = (
        "import asyncio, json\n"
        "from llm.llm_helpers import import_while_ticking\n"
        "stats = asyncio.run(import_while_ticking())\n"
        "print(json.dumps({'before': stats.was_imported_before, 'seconds': stats.seconds,\n"
        "    'gap': stats.max_loop_gap, 'ticks': stats.ticks,\n"
        "    'quiet': stats.module.suppress_debug_info}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAID_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "tests")])
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(proc.stdout.strip().splitlines()[-1])
    assert stats["before"] is False
    assert stats["quiet"] is True
    # The import takes seconds; the loop must have kept ticking meanwhile. Had the
    # import run on the loop, the longest gap would be the whole import. The bound is
    # relative: on a loaded machine the importing thread holds the GIL for longer
    # stretches, and an absolute one-second bound failed there though nothing was wrong.
    assert stats["ticks"] >= 10
    assert stats["gap"] < stats["seconds"] / 2


def test_importing_the_package_does_not_import_litellm() -> None:
    code = (
        "import sys\n"
        "from maid_engine.config import Settings\n"
        "from maid_engine.llm import build_provider\n"
        "assert build_provider(Settings(_env_file=None, llm_model='')) is None\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAID_")}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


async def test_aclose_releases_clients_and_the_provider_stays_usable(
    fake_llm: FakeOpenAIServer,
) -> None:
    provider = make_provider(fake_llm)
    await provider.complete(request())
    await provider.aclose()
    fake_llm.ok("still here")
    assert (await provider.complete(request())).text == "still here"


def test_a_module_litellm_imports_after_the_test_that_imported_it_does_not_fail(
    tmp_path: Path,
) -> None:
    """LiteLLM adds warning filters when imported; pytest drops them after the test
    that imported it. A LiteLLM module imported in a later test (its GitHub Copilot
    authenticator, which pydantic warns about) must still import under the suite's
    warning filters: once it failed, every LiteLLM call of the run failed with it."""
    (tmp_path / "test_order.py").write_text(
        "import importlib\n"
        "def test_first_imports_litellm():\n"
        "    importlib.import_module('litellm')\n"
        "def test_then_a_module_of_it():\n"
        "    importlib.import_module('litellm.llms.github_copilot.authenticator')\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAID_")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-cov"]
    command += ["-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path)]
    proc = subprocess.run(
        [*command, str(tmp_path / "test_order.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout
