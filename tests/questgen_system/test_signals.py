"""Signal intake: dedup window, global throttle, evaluation, composition."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from kits.engines import HAMLET, hv, metric, questgen_of
from questgen_system.qskit import blocked, grain_crisis, pipeline_of, started, threat, ticks

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_stdlib.questgen.generation_config import QuestGenerationConfig, SignalGate
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import BasicSignal
from maid_stdlib.story.signals import StorySignalEvent, StorySituationResolvedEvent


@pytest.fixture
async def quiet(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Hamlet, the neutral test world, without story detectors: only the signals a
    test feeds."""
    async with started(tmp_path, world=HAMLET) as engine:
        yield engine


def test_the_gate_suppresses_repeats_within_the_dedup_window() -> None:
    gate = SignalGate(dedup_window=60.0, global_window=300.0, global_max=30)
    a = BasicSignal("THREAT_DETECTED", 0.6, ["npc-a"])  # type: ignore[list-item]
    b = BasicSignal("THREAT_DETECTED", 0.6, ["npc-b"])  # type: ignore[list-item]
    assert gate.admit(a, 100.0) == "accepted"
    assert gate.admit(a, 159.0) == "duplicate"
    assert gate.admit(b, 159.0) == "accepted"  # another NPC is another situation
    assert gate.admit(BasicSignal("CRISIS", 0.6, ["npc-a"]), 159.0) == "accepted"  # type: ignore[list-item]
    assert gate.admit(a, 160.0) == "accepted"  # the window is over


def test_the_gate_caps_accepted_signals_world_wide_per_rolling_window() -> None:
    gate = SignalGate(dedup_window=60.0, global_window=300.0, global_max=3)
    signals = [BasicSignal("X", 0.5, [f"n{i}"]) for i in range(5)]  # type: ignore[list-item]
    assert [gate.admit(s, 10.0 * i) for i, s in enumerate(signals)] == [
        "accepted",
        "accepted",
        "accepted",
        "throttled",
        "throttled",
    ]
    assert gate.in_window(40.0) == 3
    # The first acceptance (t=0) rolls out at t=300: one more fits, then none.
    assert gate.admit(signals[3], 300.0) == "accepted"
    assert gate.admit(signals[4], 300.0) == "throttled"
    assert gate.admit(signals[4], 310.0) == "accepted"


async def test_signals_are_counted_by_outcome_on_the_metrics(tmp_path: Path) -> None:
    async with started(tmp_path, QuestGenerationConfig(global_signal_max=2), world=HAMLET) as quiet:
        signal = threat(quiet, "pell")
        quiet.events.emit(StorySignalEvent(signal))
        quiet.events.emit(StorySignalEvent(signal))  # same type and first NPC: a duplicate
        quiet.events.emit(StorySignalEvent(threat(quiet, "tamsin")))
        quiet.events.emit(StorySignalEvent(threat(quiet, "marta")))  # over the global cap
        await quiet.dispatch_events()
        assert metric(quiet, "maid_questgen_signals_total", outcome="accepted") == 2
        assert metric(quiet, "maid_questgen_signals_total", outcome="duplicate") == 1
        assert metric(quiet, "maid_questgen_signals_total", outcome="throttled") == 1
        await ticks(quiet)
        assert metric(quiet, "maid_questgen_signals_in_window") == 2


async def test_a_goal_and_a_threat_compose_and_the_compound_supersedes_the_single(
    quiet: GameEngine,
) -> None:
    system = questgen_of(quiet)
    grain_crisis(quiet)
    queue = pipeline_of(quiet).stages.queue
    first = await system.accept_signal(threat(quiet, "pell", "tamsin"))
    assert not isinstance(first, Rejection), first
    assert first.source_signals
    assert len(first.source_signals) == 1
    queue.drain_incoming(system.in_flight_ids())
    assert [s.id for s in system.pending_seeds()] == [first.id]
    compound = await system.accept_signal(blocked(quiet))
    assert not isinstance(compound, Rejection), compound
    assert len(compound.source_signals) == 2
    assert compound.primary_npc == hv("hollin")
    assert compound.importance > 0.8  # boosted by composition
    queue.drain_incoming(system.in_flight_ids())
    # The single threat seed is part of the compound: only the compound waits.
    assert [s.id for s in system.pending_seeds()] == [compound.id]
    assert metric(quiet, "maid_questgen_seeds_total", outcome="superseded") == 1


async def test_a_signal_a_compound_takes_is_not_written_on_its_own(
    quiet: GameEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Writing a seed is most of an evaluation's cost. The blocked goal's own seed
    # would be superseded by its compound with the threat at once: it draws its id
    # (the world's dice stay those of writing it) and is never written.
    system = questgen_of(quiet)
    grain_crisis(quiet)
    first = await system.accept_signal(threat(quiet, "pell", "tamsin"))
    assert not isinstance(first, Rejection), first
    evaluator = pipeline_of(quiet).stages.intake.evaluator
    written: list[int] = []
    drawn: list[UUID] = []
    built, new_uuid = evaluator._built, evaluator.facts.new_uuid

    def writing(*args: Any, **kwargs: Any) -> QuestSeed:
        written.append(len(args[0]))
        return built(*args, **kwargs)

    def drawing() -> UUID:
        drawn.append(new_uuid())
        return drawn[-1]

    monkeypatch.setattr(evaluator, "_built", writing)
    monkeypatch.setattr(evaluator.facts, "new_uuid", drawing)
    compound = await system.accept_signal(blocked(quiet))
    assert not isinstance(compound, Rejection), compound
    assert len(compound.source_signals) == 2
    assert written == [2]  # the compound only
    assert len(drawn) == 2
    assert drawn[1] == compound.id  # the single's id was drawn first


async def test_a_resolved_situation_makes_its_seeds_stale(tmp_path: Path) -> None:
    async with started(
        tmp_path,
        QuestGenerationConfig(generation_interval=3600.0, urgent_importance=1.0),
        world=HAMLET,
    ) as quiet:
        system = questgen_of(quiet)
        await ticks(quiet)  # the first cycle runs at once; the next one is an hour away
        seed = await system.accept_signal(threat(quiet, "pell", "tamsin"))
        assert not isinstance(seed, Rejection), seed
        quiet.events.emit(
            StorySituationResolvedEvent("threat:wolves:hamlet:mill_road", "THREAT_DETECTED")
        )
        await quiet.dispatch_events()
        assert system.screen(seed) is not None
        assert isinstance(quiet.clock, ManualClock)
        quiet.clock.skip(3600.0)
        await ticks(quiet)
        assert system.pending_seeds() == []
        assert not system.build_records()
        assert metric(quiet, "maid_questgen_seeds_total", outcome="stale") == 1
