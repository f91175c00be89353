"""An urgent seed that cannot launch (every build slot taken, the day's cap
reached) begins no launch cycle until the room is there -- it began one every
tick, each stopping at its first candidate -- and begins one on the tick the
room comes, without waiting for the generation interval."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from kits.engines import questgen_of
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

from maid_engine.engine import GameEngine
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.quality import QuestQualityFilter

#: Ten 60-s ticks between regular cycles.
INTERVAL = 600.0


def _count_cycles(engine: GameEngine, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The game time of every launch cycle begun from now on."""
    system = pipeline_of(engine)
    begin = system._begin
    begun: list[float] = []

    def counted(*args: Any) -> Any:
        begun.append(engine.clock.game_time)
        return begin(*args)

    monkeypatch.setattr(system, "_begin", counted)
    return begun


async def test_an_urgent_seed_waits_for_a_build_slot_without_a_cycle_a_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QuestQualityFilter, "archetype_blocked", lambda self, a: [])
    config = QuestGenerationConfig(generation_interval=INTERVAL, max_concurrent_builds=1)
    async with started(tmp_path, config) as quiet:
        system = questgen_of(quiet)
        no_holds(quiet, monkeypatch)
        release = asyncio.Event()

        async def slow(request: Any) -> Any:
            await release.wait()
            return answer_for(request)

        scripted(quiet, slow)
        first = seed_for(quiet, "pell", importance=0.9)
        system.enqueue(first)
        await quiet.tick()
        await asyncio.sleep(0)
        assert system.in_flight_ids() == {first.id}  # the one slot is taken
        begun = _count_cycles(quiet, monkeypatch)
        urgent = seed_for(quiet, "tamsin", importance=0.9)
        system.enqueue(urgent)
        for _ in range(8):
            await quiet.tick()
            await asyncio.sleep(0)
        assert begun == []  # it began one a tick: eight cycles, each stopped at once
        assert urgent.attempt_count == 0
        release.set()
        await system.drain()
        await quiet.tick()  # collects the first build, and the slot is free
        assert urgent.attempt_count == 1  # at once, not at the next interval
        assert len(begun) == 1
        await system.drain()


async def test_an_urgent_seed_waits_out_the_days_cap_without_a_cycle_a_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QuestQualityFilter, "archetype_blocked", lambda self, a: [])
    config = QuestGenerationConfig(
        generation_interval=INTERVAL, max_quests_per_day=1, min_quests_per_day=1
    )
    async with started(tmp_path, config) as quiet:
        system = questgen_of(quiet)
        no_holds(quiet, monkeypatch)
        system.enqueue(seed_for(quiet, "pell", importance=0.9))
        await until(quiet, lambda: len(system.open_quests()) == 1)
        begun = _count_cycles(quiet, monkeypatch)
        urgent = seed_for(quiet, "tamsin", importance=0.9)
        urgent.importance = 0.9  # not discounted for following the same threat
        system.enqueue(urgent)
        await ticks(quiet, 30)  # three intervals
        assert urgent.attempt_count == 0
        # The regular cycles only (each stops at the cap), not one every tick.
        assert len(begun) == 3
