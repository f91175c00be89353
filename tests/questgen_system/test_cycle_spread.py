"""A launch cycle is spread over ticks: a tick of a real server plans at most
``plans_per_tick`` seeds and the rest of the cycle goes on over the next ticks, in
the order fixed when it began; a simulation's long tick plans it all at once. The
same seeds come to the same quests whichever way the cycle is cut."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from kits.engines import metric, questgen_of
from questgen_system.qskit import make_engine, no_holds, pipeline_of, seed_for, ticks

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_stdlib.questgen import QuestSeed
from maid_stdlib.questgen.builder import QuestPlan
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.quality import QuestQualityFilter
from maid_stdlib.questgen.rejection import Rejection

GIVERS = ("pell", "hollin", "tamsin", "marta")
#: Room in a cycle for a quest from each giver, and no day cap in the way.
ROOMY = dict(max_quests_per_cycle=4, max_concurrent_builds=4, max_quests_per_day=None)


@asynccontextmanager
async def _engine(
    tmp_path: Path, tick: float, open_to: pytest.MonkeyPatch | None = None, **config: Any
) -> AsyncIterator[tuple[GameEngine, list[tuple[float, QuestSeed]]]]:
    """A quiet engine ticking ``tick`` game seconds, and the (game time, seed) of
    every plan it makes, in order. With ``open_to``, no hold and no archetype rule
    stops a seed (every one of them is planned)."""
    if open_to is not None:
        open_to.setattr(QuestQualityFilter, "archetype_blocked", lambda self, a: [])
    engine = make_engine(
        tmp_path, tick=tick, quiet=True, config=QuestGenerationConfig(**{**ROOMY, **config})
    )
    async with engine.lifespan():
        if open_to is not None:
            no_holds(engine, open_to)
        stage = pipeline_of(engine).stages.plan
        plan = stage.plan
        planned: list[tuple[float, QuestSeed]] = []

        async def recording(seed: QuestSeed) -> QuestPlan | Rejection:
            planned.append((engine.clock.game_time, seed))
            return await plan(seed)

        stage.plan = recording  # type: ignore[method-assign]
        yield engine, planned


def _seeds(engine: GameEngine) -> list[QuestSeed]:
    system = questgen_of(engine)
    seeds = [seed_for(engine, g, importance=0.9 - i * 0.05) for i, g in enumerate(GIVERS)]
    for seed in seeds:
        system.enqueue(seed)
    return seeds


def _per_tick(planned: list[tuple[float, QuestSeed]]) -> Counter[float]:
    return Counter(when for when, _seed in planned)


async def test_a_short_tick_plans_one_seed_and_the_cycle_goes_on_next_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _engine(tmp_path, 2.4, monkeypatch) as (engine, planned):
        seeds = _seeds(engine)
        await ticks(engine)
        assert len(planned) == 1  # four seeds wait; the tick planned one
        await ticks(engine, 6)
        # Every seed was planned, most important first, one a tick, and every one
        # in the same cycle (the next is 300 game seconds away).
        assert [s.id for _, s in planned] == [s.id for s in seeds]
        assert set(_per_tick(planned).values()) == {1}
        assert len(_per_tick(planned)) == 4
        assert [s.attempt_count for s in seeds] == [1, 1, 1, 1]


async def test_a_budget_of_two_plans_two_a_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _engine(tmp_path, 2.4, monkeypatch, plans_per_tick=2) as (engine, planned):
        _seeds(engine)
        await ticks(engine, 4)
        assert sorted(_per_tick(planned).values()) == [2, 2]


async def test_a_tick_as_long_as_the_signal_spread_plans_the_whole_cycle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _engine(tmp_path, 60.0, monkeypatch) as (engine, planned):
        seeds = _seeds(engine)
        await ticks(engine)
        assert [s.id for _, s in planned] == [s.id for s in seeds]
        assert len(_per_tick(planned)) == 1


async def test_a_candidate_gone_from_the_queue_is_not_planned_later_in_its_cycle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _engine(tmp_path, 2.4, monkeypatch) as (engine, planned):
        seeds = _seeds(engine)
        await ticks(engine)
        pipeline_of(engine).stages.queue.withdraw(seeds[2])
        await ticks(engine, 6)
        assert [s.id for _, s in planned] == [seeds[0].id, seeds[1].id, seeds[3].id]
        assert seeds[2].attempt_count == 0


async def _completed_per_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: float
) -> tuple[list[int], float]:
    """A cycle of four seeds whose checks take ``step`` real seconds each (a
    manual clock moved by the step): the quests completed in each tick that
    completed any, and the updates cut by the system's share."""
    async with _engine(tmp_path, 2.4, monkeypatch) as (engine, _planned):
        system = pipeline_of(engine)
        clock = engine.clock
        assert isinstance(clock, ManualClock)
        completed: list[float] = []
        complete = system.complete

        async def slow(seed: QuestSeed, plan: QuestPlan, narrative: Any) -> Any:
            completed.append(clock.game_time)
            clock.advance_wall(step)
            return await complete(seed, plan, narrative)

        system.complete = slow  # type: ignore[method-assign]
        _seeds(engine)
        await ticks(engine, 12)
        per_tick = Counter(completed)
        return [per_tick[t] for t in sorted(per_tick)], metric(
            engine, "maid_tick_slices_spent_total", system="QuestGenerationSystem"
        )


async def test_finished_builds_are_collected_within_the_systems_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cycle's four builds finish while it goes on and are collected when it
    # ends: all in one tick at the machine's full speed...
    fast, cuts = await _completed_per_tick(tmp_path / "fast", monkeypatch, 0.0)
    assert fast == [4]
    assert cuts == 0
    # ...and two a tick when each check takes 1.5 ms of a 2-ms share.
    slow, cuts = await _completed_per_tick(tmp_path / "slow", monkeypatch, 0.0015)
    assert slow == [2, 2]
    assert cuts == 1  # the second tick had nothing left to stop


#: Per seed: its giver, attempts, builds (archetype, outcome) and rejections' rules.
Outcome = tuple[str, int, list[tuple[str, str]], list[tuple[str, ...]]]


def _outcomes(engine: GameEngine, seeds: list[QuestSeed]) -> list[Outcome]:
    """Per seed, by giver: its attempts, its builds (archetype, outcome) and the
    rules of its rejections -- what the cycles decided. Not the prose: the
    templates draw from the world's dice, which the other systems' ticks share,
    so a quest written a tick later may get other words."""
    system, pipeline = questgen_of(engine), pipeline_of(engine)
    out: list[Outcome] = []
    for seed in seeds:
        builds = [
            (r.archetype_id, r.outcome) for r in system.build_records() if r.seed_id == seed.id
        ]
        refused = [tuple(r.rejection.rules) for r in pipeline.rejections if r.seed_id == seed.id]
        out.append((str(seed.primary_npc), seed.attempt_count, builds, refused))
    return out


@pytest.mark.parametrize("holds", [True, False])
async def test_the_same_seeds_come_to_the_same_quests_one_plan_a_tick_or_all_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, holds: bool
) -> None:
    """The cycle cut into ticks decides as the cycle planned in one tick did (a
    budget above the candidates is the old way): with every hold and quality rule
    on (one quest for the one threat, the others wait), and with none (four
    builds: two quests, and two refused for a run of fights)."""
    results = []
    for budget in (1, 50):
        async with _engine(tmp_path / str(budget), 2.4, plans_per_tick=budget) as (engine, _):
            if not holds:
                no_holds(engine, monkeypatch)
            seeds = _seeds(engine)
            await ticks(engine, 20)
            results.append(_outcomes(engine, seeds))
            assert all(oq.quest.title for oq in questgen_of(engine).open_quests().values())
    builds = [b for _giver, _n, made, _r in results[0] for b in made]
    registered = [b for b in builds if b[1] == "registered"]
    assert (len(registered), len(builds)) == ((1, 1) if holds else (2, 4)), results[0]
    assert results[0] == results[1]
