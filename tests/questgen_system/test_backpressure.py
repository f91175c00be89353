"""Backpressure and telemetry: the rolling token budget from real
usage, queue-spike template-only mode with recovery, the latency auto-throttle,
alerts, and the metrics on the engine's registry."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from kits.engines import metric, qg_of, questgen_of
from questgen_system.qskit import (
    answer_for,
    no_holds,
    pipeline_of,
    scripted,
    seed_for,
    started,
    ticks,
    until,
)

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.metrics import AutoThrottle, ThrottleLimits

GIVERS = ("pell", "tamsin", "marta", "wenna", "hollin")


def no_quality_filter(engine: GameEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Several wolf quests in a row would trip combat fatigue; these tests are
    about throughput, not variety."""
    monkeypatch.setattr(qg_of(engine).quality_filter, "check", lambda _quest: [])
    monkeypatch.setattr(qg_of(engine).quality_filter, "check_plan", lambda _quest: [])
    monkeypatch.setattr(qg_of(engine).quality_filter, "archetype_blocked", lambda _a: [])
    no_holds(engine, monkeypatch)


async def test_the_token_budget_counts_real_usage_and_recovers_when_the_window_rolls(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with started(
        tmp_path, QuestGenerationConfig(token_budget_limit=1000, token_budget_window=3600.0)
    ) as quiet:
        system = questgen_of(quiet)
        no_quality_filter(quiet, monkeypatch)
        provider = scripted(quiet, lambda request: answer_for(request, tokens=1200))
        system.enqueue(seed_for(quiet, "pell"))
        await ticks(quiet, 2)
        first = system.build_records()[-1]
        assert (first.narrative_source, first.tokens) == ("llm", 1200)
        assert (
            pipeline_of(quiet).stages.backpressure.throttle.tokens.used() == 1200
        )  # what the provider reported, not an estimate
        await ticks(quiet)
        assert metric(quiet, "maid_questgen_token_budget_remaining_tokens") == 0
        assert (
            metric(quiet, "maid_questgen_throttle_active", action="template_only_token_budget") == 1
        )
        system.enqueue(seed_for(quiet, "tamsin"))
        await until(quiet, lambda: len(system.build_records()) == 2)
        second = system.build_records()[-1]
        assert (second.narrative_source, second.fallback_reason) == ("template", "template_only")
        assert len(provider.requests) == 1  # no call was made
        assert isinstance(quiet.clock, ManualClock)
        quiet.clock.advance_wall(3600.0)  # the window rolls (monotonic time, like the limiter's)
        system.enqueue(seed_for(quiet, "marta"))
        await until(quiet, lambda: len(system.build_records()) == 3)
        assert system.build_records()[-1].narrative_source == "llm"
        assert len(provider.requests) == 2
        # Only the newest build is in the window now (and it spent the budget again).
        assert pipeline_of(quiet).stages.backpressure.throttle.tokens.used() == 1200


async def test_a_queue_spike_switches_to_templates_until_the_queue_drains(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with started(
        tmp_path,
        QuestGenerationConfig(
            queue_spike_threshold=3,
            queue_spike_recover=1,
            max_quests_per_cycle=1,
            max_active_quests_per_region=10,
        ),
    ) as quiet:
        system = questgen_of(quiet)
        no_quality_filter(quiet, monkeypatch)
        provider = scripted(quiet)
        for giver in GIVERS:
            system.enqueue(seed_for(quiet, giver))
        await ticks(quiet)
        assert system.throttle_state().template_only
        assert system.throttle_state().reason == "queue_spike"
        assert metric(quiet, "maid_questgen_seed_queue_depth") == 5
        assert (
            metric(quiet, "maid_questgen_throttle_active", action="template_only_queue_spike") == 1
        )
        await ticks(quiet, 6)
        sources = [r.narrative_source for r in system.build_records()]
        # Hysteresis: template-only while the backlog is above the recovery level.
        assert sources == ["template", "template", "template", "template", "llm"]
        assert {r.fallback_reason for r in list(system.build_records())[:4]} == {"template_only"}
        assert len(provider.requests) == 1
        assert not system.throttle_state().template_only
        assert (
            metric(quiet, "maid_questgen_throttle_active", action="template_only_queue_spike") == 0
        )


async def test_slow_llm_calls_reduce_quests_per_cycle(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with started(tmp_path, QuestGenerationConfig(max_active_quests_per_region=10)) as quiet:
        system = questgen_of(quiet)
        no_quality_filter(quiet, monkeypatch)
        pipeline_of(quiet).stages.backpressure.throttle.record_latency(25.0)
        for giver in GIVERS[:3]:
            system.enqueue(seed_for(quiet, giver))
        await quiet.tick()
        assert system.throttle_state().max_quests_per_cycle == 1
        assert len(system.in_flight_ids()) == 1
        assert metric(quiet, "maid_questgen_llm_latency_p99_seconds") == 25.0
        assert metric(quiet, "maid_questgen_throttle_active", action="reduced_cycle") == 1


def test_the_p99_and_the_ratios_roll_with_the_alert_window(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    throttle = AutoThrottle(
        ThrottleLimits(alert_window=3600.0, alert_min_samples=4), lambda: now[0]
    )
    for i in range(100):
        throttle.record_latency(1.0 + i / 10)
    assert throttle.p99() == pytest.approx(10.8)
    for template in (True, True, True, False):
        throttle.record_built(template)
    with caplog.at_level(logging.WARNING, "maid.questgen.metrics"):
        state = throttle.evaluate(0, 0)
    assert state.alerts == {"template_fallback_rate"}
    assert "template_fallback_rate" in caplog.text
    for _ in range(20):
        throttle.record_rejection()
    assert throttle.evaluate(0, 0).alerts == {"template_fallback_rate", "rejection_rate"}
    now[0] = 3601.0
    assert throttle.evaluate(0, 0).alerts == set()
    assert throttle.p99() is None
    assert throttle.fallback_ratio() is None


async def test_the_seed_metrics_are_on_the_engine_registry(quiet: GameEngine) -> None:
    system = questgen_of(quiet)
    system.enqueue(seed_for(quiet, "pell"))
    await ticks(quiet, 2)
    text = quiet.metrics.render().decode()
    for name in (
        "maid_questgen_seed_queue_depth",
        "maid_questgen_in_flight_builds",
        "maid_questgen_llm_latency_seconds_bucket",
        "maid_questgen_llm_latency_p99_seconds",
        "maid_questgen_token_budget_remaining_tokens",
        "maid_questgen_template_fallbacks_total",
        "maid_questgen_template_fallback_ratio",
        "maid_questgen_rejection_ratio",
        "maid_questgen_signals_in_window",
        "maid_questgen_grounding_score_avg",
        "maid_questgen_chain_depth_max",
        "maid_questgen_quests_built_total",
        "maid_questgen_throttle_active",
        "maid_questgen_alert_active",
    ):
        assert name in text, name
    assert metric(quiet, "maid_questgen_quests_built_total", narrative="template") == 1
    assert metric(quiet, "maid_questgen_template_fallbacks_total", reason="no_model") == 1
    assert 0.6 <= metric(quiet, "maid_questgen_grounding_score_avg") <= 1.0
