"""Generation cycles: interval and adaptive scheduling, seed eviction,
freshness, the concurrent-build cap, and update() never awaiting the LLM."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from kits.engines import metric, npc, qg_of, questgen_of
from questgen_system.qskit import (
    answer_for,
    grain_crisis,
    no_holds,
    scripted,
    seed_for,
    started,
    ticks,
)

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.quality import QuestQualityFilter


def clock(engine: GameEngine) -> ManualClock:
    assert isinstance(engine.clock, ManualClock)
    return engine.clock


async def test_cycles_run_every_interval_and_at_once_for_an_urgent_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three threat quests in a row would make the third seed wait for another kind
    # of quest (the history rules); this test is about when cycles run.
    monkeypatch.setattr(QuestQualityFilter, "archetype_blocked", lambda self, a: [])
    async with started(tmp_path, QuestGenerationConfig(generation_interval=600.0)) as quiet:
        system = questgen_of(quiet)
        no_holds(quiet, monkeypatch)
        await ticks(quiet)  # the first cycle runs at once; the next is 600 game seconds away
        calm = seed_for(quiet, "pell", importance=0.6)
        system.enqueue(calm)
        await ticks(quiet, 5)  # 300 game seconds
        assert calm.attempt_count == 0
        assert not system.build_records()
        urgent = seed_for(quiet, "tamsin", importance=0.9)
        system.enqueue(urgent)
        await ticks(quiet)
        # The urgent seed did not wait for the interval, and its cycle launched both;
        # the next tick collects them.
        assert urgent.attempt_count == 1
        assert calm.attempt_count == 1
        await ticks(quiet)
        assert {r.seed_id for r in system.build_records()} == {calm.id, urgent.id}
        late = seed_for(quiet, "marta", importance=0.6)
        system.enqueue(late)
        await ticks(quiet, 8)
        assert late.attempt_count == 0
        await ticks(quiet)  # 600 game seconds after the urgent cycle
        assert late.attempt_count == 1


async def test_a_seed_that_keeps_failing_is_evicted_after_max_attempts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(
        tmp_path, QuestGenerationConfig(max_seed_attempts=3, seed_retry_backoff=0.0)
    ) as quiet:
        system = questgen_of(quiet)
        no_holds(quiet, monkeypatch)  # the missing threat is a build failure here
        # No backoff: the attempts come one cycle after the other.
        # Nothing called "dragons" threatens the road: every build finds no targets.
        seed = seed_for(quiet, "pell", threat_source="dragons", importance=0.9)
        system.enqueue(seed)
        await ticks(quiet, 3)
        assert seed.attempt_count == 3
        assert seed in system.pending_seeds()
        assert metric(quiet, "maid_questgen_rejections_total", stage="plan") == 3
        await ticks(quiet)
        assert seed not in system.pending_seeds()
        assert metric(quiet, "maid_questgen_seeds_total", outcome="evicted_attempts") == 1


async def test_expired_seeds_are_evicted(tmp_path: Path) -> None:
    async with started(
        tmp_path, QuestGenerationConfig(generation_interval=3600.0, urgent_importance=1.0)
    ) as quiet:
        system = questgen_of(quiet)
        await ticks(quiet)
        seed = seed_for(quiet, "pell", importance=0.9)
        system.enqueue(seed)
        clock(quiet).skip(seed.expires_at - quiet.clock.game_time + 3600.0)
        await ticks(quiet)
        assert system.pending_seeds() == []
        assert seed.attempt_count == 0
        assert metric(quiet, "maid_questgen_seeds_total", outcome="evicted_expired") == 1


async def test_freshness_drops_seeds_whose_giver_died_or_already_got_a_quest(
    quiet: GameEngine,
) -> None:
    system = questgen_of(quiet)
    grain_crisis(quiet)
    dead = seed_for(quiet, "pell", importance=0.9)
    first = seed_for(quiet, "hollin", importance=0.9)
    double = seed_for(quiet, "hollin", importance=0.8)
    quiet.world.destroy_entity(npc(quiet, "pell"))
    await quiet.dispatch_events()
    assert system.screen(dead) is not None
    system.enqueue(first)
    await ticks(quiet, 2)
    assert [r.outcome for r in system.build_records()] == ["registered"]
    assert system.screen(double) is not None  # Hollin's quest exists now
    system.enqueue(dead)
    system.enqueue(double)
    await ticks(quiet)
    assert metric(quiet, "maid_questgen_seeds_total", outcome="stale") == 2
    assert system.pending_seeds() == []
    assert len(system.build_records()) == 1


async def test_update_never_waits_for_the_llm_and_caps_concurrent_builds(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with started(
        tmp_path, QuestGenerationConfig(max_concurrent_builds=2, max_quests_per_cycle=4)
    ) as quiet:
        system = questgen_of(quiet)
        # Four wolf quests in a row: planning would skip the third (combat fatigue);
        # this test is about concurrency, not variety.
        monkeypatch.setattr(qg_of(quiet).quality_filter, "archetype_blocked", lambda _a: [])
        monkeypatch.setattr(qg_of(quiet).quality_filter, "check_plan", lambda _quest: [])
        no_holds(quiet, monkeypatch)
        release = asyncio.Event()

        async def slow(request: Any) -> Any:
            await release.wait()
            return answer_for(request)

        provider = scripted(quiet, slow)
        seeds = [seed_for(quiet, g, importance=0.9) for g in ("pell", "tamsin", "marta", "wenna")]
        for seed in seeds:
            system.enqueue(seed)
        began = time.perf_counter()
        await quiet.tick()
        await asyncio.sleep(0.01)  # the builds run and hang on the model
        await quiet.tick()
        assert time.perf_counter() - began < 1.0
        assert len(system.in_flight_ids()) == 2
        assert len(provider.requests) == 2
        assert metric(quiet, "maid_questgen_in_flight_builds") == 2
        assert metric(quiet, "maid_questgen_throttle_active", action="launches_blocked") == 1
        release.set()
        await system.drain()
        await quiet.tick()
        # Two collected, two more launched in the same tick (the seeds are urgent).
        assert [r.narrative_source for r in system.build_records()] == ["llm", "llm"]
        assert len(system.in_flight_ids()) == 2
        assert len(provider.requests) == 2
        await system.drain()
        assert len(provider.requests) == 4  # one call per quest: narrative and dialogue


async def test_no_builds_while_too_many_quests_wait_unaccepted(tmp_path: Path) -> None:
    async with started(tmp_path, QuestGenerationConfig(max_pending_quests=1)) as quiet:
        system = questgen_of(quiet)
        system.enqueue(seed_for(quiet, "pell", importance=0.9))
        await ticks(quiet, 2)
        assert system.unaccepted_quests() == 1
        waiting = seed_for(quiet, "tamsin", importance=0.9)
        system.enqueue(waiting)
        await ticks(quiet, 2)
        assert waiting.attempt_count == 0
        assert waiting in system.pending_seeds()
