"""SignalIntake: a burst of admitted signals is taken over ticks, in order, into the
composition window and evaluated a batch at a time, composed together; a long tick
evaluates at once. A seed no archetype can build is turned down when its signal
comes, by its rule, instead of being planned and rejected at every retry."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from kits.engines import metric, npc, qg_of, questgen_of
from questgen_system.qskit import blocked, grain_crisis, make_engine, pipeline_of, threat

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_engine.slicing import TickSlice, run_steps
from maid_stdlib.questgen.contract import SeedGrounding, SignalContract
from maid_stdlib.questgen.evaluator import GroundedSignal
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import BasicSignal, StorySignalLike
from maid_stdlib.story.signals import StorySignal, StorySignalEvent

#: Every signal passes the gate, none is evaluated twice by the test's doing.
OPEN_GATE = dict(signal_dedup_window=0.0, global_signal_max=1000)
NAMES = ("pell", "hollin", "tamsin", "marta")


def _spread(**extra: object) -> QuestGenerationConfig:
    return QuestGenerationConfig(**OPEN_GATE, **extra)  # type: ignore[arg-type]


@asynccontextmanager
async def _short(tmp_path: Path, config: QuestGenerationConfig) -> AsyncIterator[GameEngine]:
    """Production-like ticks of 2.4 game seconds, no story detectors."""
    engine = make_engine(tmp_path, tick=2.4, quiet=True, config=config)
    async with engine.lifespan():
        yield engine


@pytest.fixture
async def short_ticks(tmp_path: Path) -> AsyncIterator[GameEngine]:
    async with _short(tmp_path, _spread(signal_spread=60.0, signals_per_tick=2)) as engine:
        yield engine


def _burst(engine: GameEngine, n: int) -> list[StorySignal]:
    return [
        StorySignal(
            "RIVALRY_ESCALATION",
            0.5,
            [npc(engine, NAMES[i % len(NAMES)])],
            context={"n": i},
            situation_key=f"burst:{i}",
        )
        for i in range(n)
    ]


def _record(engine: GameEngine) -> list[tuple[float, StorySignalLike]]:
    """(game time, signal) of every signal taken into the composition window, in order."""
    intake = pipeline_of(engine).stages.intake
    seen: list[tuple[float, StorySignalLike]] = []
    take = intake._take

    def recording(arrived: float, signal: StorySignalLike) -> None:
        seen.append((engine.clock.game_time, signal))
        take(arrived, signal)

    intake._take = recording  # type: ignore[method-assign]
    return seen


def _batches(engine: GameEngine) -> list[tuple[float, int]]:
    """(game time, signals) of every composition of the taken signals begun, in order."""
    intake = pipeline_of(engine).stages.intake
    batches: list[tuple[float, int]] = []
    begin = intake._begin_composition

    def recording() -> None:
        batches.append((engine.clock.game_time, len(intake._taken)))
        begin()

    intake._begin_composition = recording  # type: ignore[method-assign]
    return batches


def _queued(engine: GameEngine) -> list[QuestSeed]:
    """Every seed the intake queues, in order."""
    queue = pipeline_of(engine).stages.queue
    queued: list[QuestSeed] = []
    enqueue = queue.enqueue

    def recording(seed: QuestSeed) -> None:
        queued.append(seed)
        enqueue(seed)

    queue.enqueue = recording  # type: ignore[method-assign]
    return queued


async def test_a_burst_is_evaluated_over_ticks_in_arrival_order(
    short_ticks: GameEngine,
) -> None:
    engine, system = short_ticks, questgen_of(short_ticks)
    await engine.run_ticks(1)  # the system has seen one tick's length
    seen = _record(engine)
    batches = _batches(engine)
    burst = _burst(engine, 60)
    for signal in burst:
        engine.events.emit(StorySignalEvent(signal))
    await engine.dispatch_events()
    # The dispatch gates them, one by one; the update sees the whole burst.
    assert seen == []
    assert system.signals_waiting() == 60
    await engine.run_ticks(1)
    # 60 waiting * 2.4 s / 60 s: 3 a tick at first, never fewer than 2, and they
    # wait for the rest of their batch.
    assert len(seen) == 3
    assert batches == []
    assert system.signals_waiting() == 60  # the 3 taken wait for their batch
    for _ in range(40):
        await engine.run_ticks(1)
    assert system.signals_waiting() == 0
    assert [s for _, s in seen] == burst  # first come, first evaluated
    # Eight at a time (compose_batch), the rest when the burst was through: none
    # composed alone.
    assert [n for _, n in batches] == [8] * 7 + [4]
    per_tick: dict[float, int] = {}
    for when, _ in seen:
        per_tick[when] = per_tick.get(when, 0) + 1
    assert max(per_tick.values()) == 3
    assert min(per_tick.values()) >= 1
    assert len(per_tick) >= 20  # spread: no tick took the whole burst


async def test_a_lone_signal_is_evaluated_in_the_tick_it_comes(short_ticks: GameEngine) -> None:
    engine = short_ticks
    await engine.run_ticks(1)
    batches = _batches(engine)
    queued = _queued(engine)
    signal = threat(engine, "pell", "tamsin")
    engine.events.emit(StorySignalEvent(signal))
    await engine.dispatch_events()
    assert batches == []  # gated only
    tick = engine.clock.game_time
    await engine.run_ticks(1)
    assert [n for _, n in batches] == [1]
    assert batches[0][0] > tick  # in the tick's update
    assert [s.source_signals for s in queued] == [[signal]]


async def test_a_tick_as_long_as_the_spread_evaluates_everything_as_it_arrives(
    tmp_path: Path,
) -> None:
    engine = make_engine(
        tmp_path, tick=60.0, quiet=True, config=_spread(signal_spread=60.0, signals_per_tick=1)
    )
    async with engine.lifespan():
        await engine.run_ticks(1)
        seen = _record(engine)
        for signal in _burst(engine, 25):
            engine.events.emit(StorySignalEvent(signal))
        await engine.dispatch_events()
        assert len(seen) == 25
        assert questgen_of(engine).signals_waiting() == 0


async def test_a_spread_of_zero_evaluates_at_once_whatever_the_tick(tmp_path: Path) -> None:
    engine = make_engine(
        tmp_path, tick=2.4, quiet=True, config=_spread(signal_spread=0.0, signals_per_tick=1)
    )
    async with engine.lifespan():
        seen = _record(engine)
        for signal in _burst(engine, 25):
            engine.events.emit(StorySignalEvent(signal))
        await engine.dispatch_events()
        assert len(seen) == 25


async def test_signals_are_gated_when_they_arrive_not_when_evaluated(tmp_path: Path) -> None:
    """A repeat within the dedup window is refused at arrival even while the first
    one still waits for its turn."""
    config = QuestGenerationConfig(
        signal_dedup_window=60.0, global_signal_max=1000, signal_spread=60.0, signals_per_tick=1
    )
    async with _short(tmp_path, config) as engine:
        await engine.run_ticks(1)
        burst = _burst(engine, 8)  # 4 NPCs: the second round repeats the first
        for signal in burst:
            engine.events.emit(StorySignalEvent(signal))
        await engine.dispatch_events()
        waiting = [s for _, s in pipeline_of(engine).stages.intake.waiting]
        assert waiting == burst[:4]  # 4 were duplicates


async def test_a_late_evaluation_composes_with_what_arrived_before_it(tmp_path: Path) -> None:
    """The composition window is measured from arrival: a signal evaluated a few
    ticks after it came still meets the signals that came with it."""
    config = _spread(signal_spread=600.0, signals_per_tick=1, compose_window=1.0)
    async with _short(tmp_path, config) as engine:
        await engine.run_ticks(1)
        grain_crisis(engine)
        seen = _record(engine)
        queued = _queued(engine)
        signals = [threat(engine, "pell", "tamsin"), *_burst(engine, 3), blocked(engine)]
        for signal in signals:
            engine.events.emit(StorySignalEvent(signal))
        await engine.dispatch_events()
        for _ in range(10):
            await engine.run_ticks(1)
        assert [s for _, s in seen] == signals
        assert seen[-1][0] - seen[0][0] == pytest.approx(4 * 2.4)  # well past the 1 s window
        compound = [s for s in queued if len(s.source_signals) == 2]
        assert [sorted(str(x.signal_type) for x in s.source_signals) for s in compound] == [
            ["GOAL_BLOCKED", "THREAT_DETECTED"]
        ]


async def test_a_bursts_signals_are_composed_together_once(tmp_path: Path) -> None:
    """In a burst each signal's compound held the burst's signals before it and was
    superseded by the next at once: the burst is composed a batch at a time, and a
    signal inside a compound is never queued alone."""
    config = _spread(signal_spread=600.0, signals_per_tick=1)
    async with _short(tmp_path, config) as engine:
        await engine.run_ticks(1)
        grain_crisis(engine)
        batches = _batches(engine)
        queued = _queued(engine)
        first, *others, last = [
            threat(engine, "pell", "tamsin"),
            *_burst(engine, 3),
            blocked(engine),
            threat(engine, "marta"),
        ]
        for signal in [first, *others, last]:
            engine.events.emit(StorySignalEvent(signal))
        await engine.dispatch_events()
        for _ in range(10):
            await engine.run_ticks(1)
        # Taken a tick apart and evaluated together when the last was taken.
        assert [n for _, n in batches] == [6]
        compounds = [s for s in queued if len(s.source_signals) > 1]
        assert len(compounds) == 1
        assert last in compounds[0].source_signals
        singles = [s.source_signals[0] for s in queued if len(s.source_signals) == 1]
        # No signal the compound holds was queued alone.
        assert not set(map(id, singles)) & set(map(id, compounds[0].source_signals))


def _ground_nowhere(signal: Any, facts: Any) -> SeedGrounding | None:
    giver = signal.involved_npcs[0]
    room = facts.room_of(giver)
    return SeedGrounding(giver, room, {}) if room is not None else None


async def test_a_seed_no_archetype_fits_is_turned_down_by_its_rule(tmp_path: Path) -> None:
    async with _short(tmp_path, _spread()) as engine:
        qg = qg_of(engine)
        qg.seed_types.register("test_unbuildable", "Nothing can be made of it")
        qg.contracts.register(
            SignalContract("TEST_UNBUILDABLE", ("test_unbuildable",), (), _ground_nowhere)
        )
        system = questgen_of(engine)
        signal = StorySignal(
            "TEST_UNBUILDABLE", 0.9, [npc(engine, "hollin")], situation_key="test:nothing"
        )
        seed = await system.accept_signal(signal)
        assert isinstance(seed, Rejection)
        assert seed.rules == ("no_archetype",)
        assert "test_unbuildable" in seed.reason
        assert system.pending_seeds() == []
        assert metric(engine, "maid_questgen_signal_rejections_total", rule="no_archetype") == 1
        # A signal some archetype can build is queued as before.
        assert isinstance(await system.accept_signal(threat(engine, "pell")), QuestSeed)


async def _compose_burst(tmp_path: Path, step: float) -> tuple[list[tuple[Any, ...]], int, float]:
    """The burst of ``test_a_bursts_signals_are_composed_together_once`` on a machine
    where each grounding, each seed's checks and each seed's writing take ``step``
    real seconds (a manual clock moved by the step): what was queued, the ticks the
    composition was under way at their end, and the updates cut by the system's
    share."""
    config = _spread(signal_spread=600.0, signals_per_tick=1)
    async with _short(tmp_path, config) as engine:
        clock = engine.clock
        assert isinstance(clock, ManualClock)
        await engine.run_ticks(1)
        grain_crisis(engine)
        intake = pipeline_of(engine).stages.intake
        evaluator = intake.evaluator
        for name in ("ground_cached", "_checked", "_built"):
            setattr(evaluator, name, _slowed(getattr(evaluator, name), clock, step))
        seen = _record(engine)
        queued = _queued(engine)
        signals = [
            threat(engine, "pell", "tamsin"),
            *_burst(engine, 3),
            blocked(engine),
            threat(engine, "marta"),
        ]
        for signal in signals:
            engine.events.emit(StorySignalEvent(signal))
        await engine.dispatch_events()
        under_way = 0
        for _ in range(20):
            taken = len(seen)
            was_composing = intake._composing is not None
            await engine.run_ticks(1)
            if was_composing:
                # Nothing is taken while a composition is under way: order is kept.
                assert len(seen) == taken
            under_way += intake._composing is not None
        assert intake._composing is None
        content = [
            (
                s.seed_type,
                [next(i for i, y in enumerate(signals) if y is x) for x in s.source_signals],
                s.primary_npc,
                s.importance,
            )
            for s in queued
        ]
        return (
            content,
            under_way,
            metric(engine, "maid_tick_slices_spent_total", system="QuestGenerationSystem"),
        )


def _slowed(work: Callable[..., Any], clock: ManualClock, step: float) -> Callable[..., Any]:
    def slow(*args: Any, **kwargs: Any) -> Any:
        clock.advance_wall(step)
        return work(*args, **kwargs)

    return slow


async def test_a_composition_goes_on_over_ticks_once_the_share_is_spent(tmp_path: Path) -> None:
    whole, whole_ticks, whole_cuts = await _compose_burst(tmp_path / "whole", 0.0)
    assert whole_ticks == 0
    assert whole_cuts == 0
    # 0.7 ms a step against the 2-ms share: three steps a tick. Six groundings fill
    # two ticks; the third checks and writes the compound and the first signal's
    # best seed; the fourth the others' and queues.
    sliced, sliced_ticks, sliced_cuts = await _compose_burst(tmp_path / "sliced", 0.0007)
    assert sliced_ticks == 3
    assert sliced_cuts == 3
    # The same seeds, in the same order, whether composed in one tick or several.
    assert sliced == whole
    assert any(len(sources) > 1 for _, sources, _, _ in whole)


async def test_an_evaluation_at_once_finishes_the_composition_under_way_first(
    tmp_path: Path,
) -> None:
    config = _spread(signal_spread=600.0, signals_per_tick=1)
    async with _short(tmp_path, config) as engine:
        await engine.run_ticks(1)
        grain_crisis(engine)
        intake = pipeline_of(engine).stages.intake
        queued = _queued(engine)
        first, second = blocked(engine), threat(engine, "pell")
        await intake.receive(first)
        intake._take(*intake._waiting.popleft())
        intake._begin_composition()
        now = [0.0]
        spent = TickSlice(lambda: now[0], 0.002)
        now[0] += 1.0
        assert intake._compose_on(spent) is None  # one step, then the share is out
        assert intake._composing is not None
        seed = await intake.accept(second)
        assert intake._composing is None
        assert isinstance(seed, QuestSeed)
        # The composition under way queued its seed before the new signal's.
        assert [s.source_signals[0] for s in queued][:1] == [first]
        assert queued[-1] is seed


async def test_a_failing_step_ends_the_composition(tmp_path: Path) -> None:
    config = _spread(signal_spread=600.0, signals_per_tick=1)
    async with _short(tmp_path, config) as engine:
        await engine.run_ticks(1)
        intake = pipeline_of(engine).stages.intake
        composer = intake._composer

        def broken(*_args: Any, **_kwargs: Any) -> Any:
            raise RuntimeError("a broken grounder")

        composer._grounding = broken  # type: ignore[method-assign]
        await intake.receive(blocked(engine))
        intake._take(*intake._waiting.popleft())
        intake._begin_composition()
        with pytest.raises(RuntimeError):
            intake._compose_on(None)
        assert intake._composing is None
        # The next signal is composed as usual.
        composer._grounding = type(composer)._grounding.__get__(composer)  # type: ignore[method-assign]
        seed = await intake.accept(threat(engine, "pell"))
        assert isinstance(seed, QuestSeed)


async def test_a_seed_is_checked_and_written_in_two_steps(tmp_path: Path) -> None:
    async with _short(tmp_path, _spread()) as engine:
        evaluator = pipeline_of(engine).stages.intake.evaluator
        calls: list[str] = []
        for name in ("_checked", "_built"):
            work = getattr(evaluator, name)
            setattr(evaluator, name, _noting(work, calls, name))
        giver = npc(engine, "pell")
        grounding = SeedGrounding(giver, "hamlet:road_copse", {"threat_source": "wolves"})
        part = GroundedSignal(BasicSignal("TEST", 0.9, [giver]), "threat_response", grounding, 0)
        steps = evaluator.build_seed_steps([part], part, 0.9)
        next(steps)
        # The compound composer may wait for the next tick here.
        assert calls == ["_checked"]
        seed = run_steps(steps)
        assert calls == ["_checked", "_built"]
        assert isinstance(seed, QuestSeed)
        assert seed.primary_npc == giver


def _noting(work: Callable[..., Any], calls: list[str], name: str) -> Callable[..., Any]:
    def noted(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return work(*args, **kwargs)

    return noted
