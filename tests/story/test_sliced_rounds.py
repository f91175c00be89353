"""Detection rounds sliced over ticks: the same situations as a whole round, work per
tick bounded in units, whole rounds when a tick covers ``round_seconds``, plain
detectors unchanged, resolution once a pass is over, entities destroyed mid-pass."""

from __future__ import annotations

import asyncio
import copy
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, cast
from uuid import UUID

import pytest
from kits.engines import make_engine as kits_engine
from kits.engines import skip
from kits.quests import SignalLog
from living.livingkit import LIVING, hamlet_pack, make_engine, npc, story_of

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_engine.sessions import Session
from maid_stdlib.living import api
from maid_stdlib.story import (
    Detection,
    DetectionContext,
    StoryDetectors,
    StorySignalSystem,
    StorySituationResolvedEvent,
)
from maid_stdlib.story.detectors import DetectorWork, run_whole
from maid_stdlib.story.register import builtin_detectors
from maid_stdlib.world.components import NPC

#: A game second per tick, as a real server at a slow time scale.
SHORT = 2.4


def _rich_living() -> dict[str, Any]:
    """Hamlet data with a crisis rule, a faction with a leader, and NPCs in fear."""
    data = copy.deepcopy(LIVING)
    data["crises"] = [{"need": "safety", "below": 0.3, "min_npcs": 3, "crisis_type": "fear"}]
    for key in ("pell", "tamsin", "marta"):
        data["npcs"][key]["needs"] = {"safety": {"value": 0.1}}
    data["factions"]["guard"] = {"name": "the guard"}
    data["npcs"]["tamsin"].update(factions={"guard": "leader"}, influence=0.5)
    data["npcs"]["pell"].update(factions={"guard": "member"}, influence=0.3)
    return data


async def _start(engine: GameEngine) -> None:
    """The same history in every engine: a rivalry, then half an hour of life."""
    trader, keeper = npc(engine, "pell"), npc(engine, "marta")
    api.adjust_relationship(engine.world, trader, keeper, trust=-0.4)
    await engine.run_ticks(30)


def _change(engine: GameEngine) -> None:
    """New, escalated and ended situations for the next round to find."""
    world = engine.world
    smith, trader = npc(engine, "hollin"), npc(engine, "pell")
    keeper, captain = npc(engine, "marta"), npc(engine, "tamsin")
    api.adjust_relationship(world, trader, keeper, trust=1.4)  # reconciled: resolves
    api.adjust_relationship(world, captain, smith, trust=-0.8)  # a new rivalry
    rel = api.adjust_relationship(world, smith, keeper, affinity=0.8)
    rel.kind = "romantic"
    api.adjust_relationship(world, keeper, smith, affinity=0.05)
    api.adjust_faction_relation(world, "village", "bandits", -0.7, "raids on the road")
    api.adjust_influence(world, trader, 0.4)  # out-influences the captain


async def _sliced_round(engine: GameEngine, delta: float = SHORT) -> int:
    """Run one detection round with only the story system ticking (the world holds
    still) at ``delta`` game seconds per tick; returns the ticks it took."""
    story = story_of(engine)
    skip(engine, story.interval)
    ticks = 0
    while True:
        skip(engine, delta)
        await story.update(delta)
        await engine.dispatch_events()
        ticks += 1
        if not story.round_in_progress:
            return ticks
        assert ticks < 10_000


def _table(story: StorySignalSystem) -> dict[str, tuple[str, str, str]]:
    return {k: (s.signal_type, s.band, s.detector) for k, s in story.active.items()}


def _content(signals: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (
            s.signal_type,
            s.situation_key,
            s.band,
            s.importance,
            s.involved_npcs,
            s.involved_players,
            s.context,
        )
        for s in signals
    ]


async def test_a_sliced_round_finds_what_a_whole_round_finds(tmp_path: Path) -> None:
    outcome: dict[str, Any] = {}
    for mode in ("sliced", "whole"):
        root = tmp_path / mode
        engine = make_engine(root, [hamlet_pack(root / "p", _rich_living())])
        resolved: list[str] = []

        def on_resolved(e: StorySituationResolvedEvent, out: list[str] = resolved) -> None:
            out.append(e.situation_key)

        engine.events.subscribe(StorySituationResolvedEvent, on_resolved)
        async with engine.lifespan():
            await _start(engine)
            story = story_of(engine)
            before = _table(story)
            signals = SignalLog(engine).signals
            resolved.clear()
            _change(engine)
            if mode == "sliced":
                story.work_per_second = 0.4  # 1 unit per tick: every pass over many ticks
                outcome["ticks"] = await _sliced_round(engine)
                assert story.last_round is not None
                assert story.last_round.ticks > 40
            else:
                story.detect_now()
                await engine.dispatch_events()
            outcome[mode] = (_content(signals), resolved, _table(story))
    sliced, whole = outcome["sliced"], outcome["whole"]
    assert sliced == whole
    types = {s[0] for s in sliced[0]}
    assert {"RIVALRY_ESCALATION", "UNREQUITED", "FACTION_TENSION", "POWER_SHIFT"} <= types
    assert any(k.startswith("rivalry:") for k in sliced[1])  # the reconciled pair
    assert any(v[0] == "CRISIS" for v in sliced[2].values())
    assert before != sliced[2]


async def test_a_tick_of_round_seconds_runs_the_whole_round(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        story = story_of(engine)
        resumed: list[float] = []

        def slow(ctx: DetectionContext) -> DetectorWork:
            for _ in range(5_000):
                resumed.append(ctx.now)
                yield 10
            return []

        # The test changes a registry of the running engine (the seam a reload would use).
        engine.registries.unlock()
        engine.services.get(StoryDetectors).register_sliced("slow", "CUSTOM", slow)
        skip(engine, story.interval)
        await engine.tick()  # 60 game seconds: round_seconds
        assert not story.round_in_progress
        assert len(resumed) == 5_000
        assert len(set(resumed)) == 1
        assert story.last_round is not None
        assert story.last_round.ticks == 1

        resumed.clear()
        await _sliced_round(engine)
        assert len(resumed) == 5_000
        assert len(set(resumed)) > 20


async def test_work_per_tick_is_bounded_in_units(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        story = story_of(engine)
        story.work_per_second = 1.0  # ceil(2.4) = 3 units per tick
        visits: Counter[float] = Counter()

        def one_by_one(ctx: DetectionContext) -> DetectorWork:
            for chunk in ctx.scan(NPC, size=1):
                for _uid, _npc in chunk:
                    visits[ctx.now] += 1
                yield len(chunk)
            return []

        detectors = engine.services.get(StoryDetectors)
        # The test changes a registry of the running engine (the seam a reload would use).
        engine.registries.unlock()
        for name in detectors.names():
            detectors.unregister(name)
        detectors.register_sliced("one_by_one", "CUSTOM", one_by_one)
        ticks = await _sliced_round(engine)
        assert sum(visits.values()) == engine.world.count(NPC)
        assert max(visits.values()) <= 3
        assert ticks >= engine.world.count(NPC) // 3


async def test_a_tick_stops_the_round_once_it_has_worked_its_share(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        story = story_of(engine)
        story.work_per_second = 1_000.0  # 2,400 units a tick: the units never bound it
        clock = engine.clock
        assert isinstance(clock, ManualClock)
        steps: Counter[float] = Counter()

        def slow(ctx: DetectionContext) -> DetectorWork:
            for _ in range(30):
                steps[ctx.now] += 1
                clock.advance_wall(0.0007)  # a slow machine: 0.7 ms a step
                yield 1
            return []

        detectors = engine.services.get(StoryDetectors)
        # The test changes a registry of the running engine (the seam a reload would use).
        engine.registries.unlock()
        for name in detectors.names():
            detectors.unregister(name)
        detectors.register_sliced("slow", "CUSTOM", slow)
        # The third step spends the tick's 2 ms: ten ticks for the thirty, and one
        # more to close the pass.
        ticks = await _sliced_round(engine)
        assert sum(steps.values()) == 30
        assert max(steps.values()) == 3
        assert ticks == 11
        # A tick covering a whole round still does it whole, however long it takes.
        steps.clear()
        skip(engine, story.interval)
        await engine.tick()
        assert list(steps.values()) == [30]
        assert not story.round_in_progress


async def test_plain_detectors_run_whole_in_one_tick(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        story = story_of(engine)
        story.work_per_second = 2.0
        smith = npc(engine, "hollin")
        calls: list[float] = []

        def plague(ctx: DetectionContext) -> list[Detection]:
            calls.append(ctx.now)
            return [
                Detection(
                    "CRISIS",
                    "crisis:plague",
                    0.7,
                    [smith],
                    {"crisis_type": "plague", "affected_area": "x", "severity": 0.5},
                )
            ]

        # The test changes a registry of the running engine (the seam a reload would use).
        engine.registries.unlock()
        engine.services.get(StoryDetectors).register("plague", "CRISIS", plague)
        signals = SignalLog(engine).signals
        ticks = await _sliced_round(engine)
        assert ticks > 1
        assert len(calls) == 1
        assert [s.situation_key for s in signals if s.signal_type == "CRISIS"] == ["crisis:plague"]


async def test_resolution_waits_for_the_end_of_the_pass(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        story = story_of(engine)
        story.work_per_second = 1.0
        smith = npc(engine, "hollin")
        state = {"report": True, "fail": False}
        steps: list[int] = []

        def feud(ctx: DetectionContext) -> DetectorWork:
            found = []
            if state["report"]:
                found.append(
                    Detection(
                        "RIVALRY_ESCALATION",
                        "feud",
                        0.5,
                        [smith],
                        {"npc_a": str(smith), "npc_b": "x", "cause": "c", "trust_level": -0.5},
                    )
                )
            for step in range(10):
                steps.append(step)
                if state["fail"] and step == 5:
                    raise RuntimeError("boom")
                yield 1
            return found

        detectors = engine.services.get(StoryDetectors)
        # The test changes a registry of the running engine (the seam a reload would use).
        engine.registries.unlock()
        for name in detectors.names():
            detectors.unregister(name)
        detectors.register_sliced("feud", "RIVALRY_ESCALATION", feud)
        await _sliced_round(engine)
        assert story.is_active("feud")

        state["report"] = False
        skip(engine, story.interval)
        steps.clear()
        while len(steps) < 8:  # the pass is under way, not finished
            skip(engine, SHORT)
            await story.update(SHORT)
        assert story.round_in_progress
        assert story.is_active("feud")
        while story.round_in_progress:
            skip(engine, SHORT)
            await story.update(SHORT)
        assert not story.is_active("feud")  # judged once the pass was over

        state.update(report=True)
        await _sliced_round(engine)
        assert story.is_active("feud")
        state.update(report=False, fail=True)  # fails mid-pass: resolves nothing
        await _sliced_round(engine)
        assert story.is_active("feud")
        assert story.detector_errors["feud"] == 1


async def test_entities_destroyed_mid_pass(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        story = story_of(engine)
        story.work_per_second = 1.0
        trader, keeper = npc(engine, "pell"), npc(engine, "marta")
        api.adjust_relationship(engine.world, trader, keeper, trust=-0.6)
        api.adjust_relationship(engine.world, keeper, trader, trust=-0.6)
        seen: list[UUID] = []

        def census(ctx: DetectionContext) -> DetectorWork:
            for chunk in ctx.scan(NPC, size=1):
                seen.extend(uid for uid, _ in chunk)
                yield len(chunk)
            return []

        detectors = engine.services.get(StoryDetectors)
        # The test changes a registry of the running engine (the seam a reload would use).
        engine.registries.unlock()
        for name in detectors.names():
            detectors.unregister(name)
        detectors.register_sliced("census", "CUSTOM", census)
        for detector in builtin_detectors():  # after the census, with the keeper gone
            detectors.add(detector)
        skip(engine, story.interval)
        while not seen:
            skip(engine, SHORT)
            await story.update(SHORT)
        assert story.round_in_progress
        doomed = [uid for uid, _ in engine.world.each(NPC)][-3:]
        for uid in (*doomed, keeper):
            engine.world.destroy_entity(uid)
        await engine.dispatch_events()
        while story.round_in_progress:
            skip(engine, SHORT)
            await story.update(SHORT)
            await engine.dispatch_events()
        assert story.detector_errors == {}
        assert not set(doomed) & set(seen)
        assert not [k for k in story.active if str(keeper) in k]


async def test_detect_now_replaces_a_round_in_progress(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        story = story_of(engine)
        story.work_per_second = 1.0
        trader, keeper = npc(engine, "pell"), npc(engine, "marta")
        api.adjust_relationship(engine.world, trader, keeper, trust=-0.4)
        skip(engine, story.interval)
        for _ in range(3):
            skip(engine, SHORT)
            await story.update(SHORT)
        assert story.round_in_progress
        emitted = story.detect_now()
        assert not story.round_in_progress
        assert [s.signal_type for s in emitted].count("RIVALRY_ESCALATION") == 1


async def test_bad_sliced_detectors_are_errors(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        story = story_of(engine)
        detectors = engine.services.get(StoryDetectors)
        # The test changes a registry of the running engine (the seam a reload would use).
        engine.registries.unlock()

        def not_a_count(ctx: DetectionContext) -> Any:
            yield Detection("CUSTOM", "k", 0.5, [], {})

        def not_a_generator(ctx: DetectionContext) -> Any:
            return []

        detectors.register_sliced("not_a_count", "CUSTOM", not_a_count)
        detectors.register_sliced("not_a_generator", "CUSTOM", not_a_generator)
        story.detect_now()
        assert story.detector_errors == {"not_a_count": 1, "not_a_generator": 1}


@pytest.mark.parametrize("name", ["threats", "crises", "rivalries", "power_shifts"])
async def test_builtin_detectors_are_sliced(tmp_path: Path, name: str) -> None:
    engine = make_engine(tmp_path, [hamlet_pack(tmp_path / "p", _rich_living())])
    async with engine.lifespan():
        await _start(engine)
        _change(engine)
        detector = engine.services.get(StoryDetectors).get(name)
        assert detector is not None
        assert detector.sliced
        ctx = DetectionContext(story_of(engine).living, engine.clock.game_time)
        work = detector.work(ctx)
        steps = 0
        while True:
            try:
                units = next(work)
            except StopIteration as stop:
                sliced = list(stop.value or ())
                break
            assert isinstance(units, int)
            assert units >= 0
            steps += 1
        result = run_whole(
            detector.work(DetectionContext(story_of(engine).living, engine.clock.game_time))
        )
        whole = list(result or ())
        assert steps >= 1
        assert [asdict(d) for d in sliced] == [asdict(d) for d in whole]


async def test_a_wider_search_over_ticks_finds_what_situations_now_finds(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [hamlet_pack(tmp_path / "p", _rich_living())])
    async with engine.lifespan():
        await _start(engine)
        _change(engine)
        story = story_of(engine)
        types = ["RIVALRY_ESCALATION", "CRISIS_EMERGING", "FACTION_TENSION", "POWER_SHIFT"]
        whole = story.situations_now(types)
        assert whole
        story.work_per_second = 1.0  # ceil(2.4) = 3 units per tick
        skip(engine, SHORT)
        await story.update(SHORT)  # a short tick, as a real server's
        search = story.situations_later(types)
        assert not search.done
        ticks = 0
        while not search.done:
            skip(engine, SHORT)
            await story.update(SHORT)
            await engine.dispatch_events()
            ticks += 1
            assert ticks < 10_000
        assert ticks > 5
        assert _content(search.signals) == _content(whole)


async def test_a_wider_search_and_the_round_share_the_storys_slice(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        story = story_of(engine)
        story.work_per_second = 1_000.0  # 2,400 units a tick: the units never bound it
        clock = engine.clock
        assert isinstance(clock, ManualClock)
        #: Steps per context (a search's or a round's) and tick.
        steps: Counter[tuple[int, int]] = Counter()
        tick = [0]

        def slow(ctx: DetectionContext) -> DetectorWork:
            for _ in range(30):
                steps[id(ctx), tick[0]] += 1
                clock.advance_wall(0.0007)  # a slow machine: 0.7 ms a step
                yield 1
            return [Detection("CUSTOM", "slow", 0.5, [], {})]

        detectors = engine.services.get(StoryDetectors)
        # The test changes a registry of the running engine (the seam a reload would use).
        engine.registries.unlock()
        for name in detectors.names():
            detectors.unregister(name)
        detectors.register_sliced("slow", "CUSTOM", slow)
        skip(engine, SHORT)
        await story.update(SHORT)  # a short tick first, as a real server's: a round starts
        # An admin's search, from a command, has its own share: three steps of 0.7 ms.
        search = story.situations_later(["CUSTOM"])
        mine = id(search.ctx)
        assert steps[mine, 0] == 3
        while not search.done:
            tick[0] += 1
            skip(engine, SHORT)
            await story.update(SHORT)
            await engine.dispatch_events()
            assert tick[0] < 100
        for t in range(1, tick[0] + 1):
            in_tick = sum(n for (_, at), n in steps.items() if at == t)
            # The search spends the story's share of the tick, and the round still
            # moves a step: four at most, where the units alone allowed all of it.
            assert steps[mine, t] <= 3
            assert in_tick <= 4
        assert sum(n for (ctx, _), n in steps.items() if ctx == mine) == 30
        assert [s.situation_key for s in search.signals] == ["slow"]


async def test_a_wider_search_is_done_at_once_when_a_tick_covers_a_round(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [hamlet_pack(tmp_path / "p", _rich_living())])
    async with engine.lifespan():
        story = story_of(engine)
        types = ["RIVALRY_ESCALATION", "CRISIS_EMERGING", "FACTION_TENSION", "POWER_SHIFT"]
        before_any_tick = story.situations_later(types)
        assert before_any_tick.done
        await _start(engine)
        _change(engine)
        await story.update(story.round_seconds)
        search = story.situations_later(types)
        assert search.done
        assert _content(search.signals) == _content(story.situations_now(types))
        assert search.signals


async def test_a_detector_failing_in_a_wider_search_is_logged_and_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        story = story_of(engine)

        def broken(ctx: DetectionContext) -> DetectorWork:
            yield 1
            raise RuntimeError("boom")

        def fine(ctx: DetectionContext) -> DetectorWork:
            for chunk in ctx.scan(NPC, size=1):
                yield len(chunk)
            return [Detection("CUSTOM", "custom:one", 0.5, [npc(engine, "pell")], {})]

        engine.registries.unlock()
        detectors = engine.services.get(StoryDetectors)
        detectors.register_sliced("broken", "CUSTOM", broken)
        detectors.register_sliced("fine", "CUSTOM", fine)
        skip(engine, SHORT)
        await story.update(SHORT)
        search = story.situations_later(["CUSTOM"])
        while not search.done:
            skip(engine, SHORT)
            await story.update(SHORT)
        assert [s.situation_key for s in search.signals] == ["custom:one"]
        assert "story detector broken failed (situations)" in caplog.text
        # A search still under way at shutdown is let go of.
        story.situations_later(["CUSTOM"])
        await story.shutdown()
        assert story._searches == []


class _Someone:
    """Enough of a session to be connected: with nobody on, no command can come in
    and the tick never lets one in."""

    def __init__(self) -> None:
        self.id = "someone"
        self.data: dict[str, Any] = {}

    def send(self, text: str) -> None:
        pass


async def _lending_engine(
    tmp_path: Path, on_step: Callable[[GameEngine, DetectionContext, int], None]
) -> tuple[GameEngine, list[str]]:
    """A started engine whose only detector visits the NPCs one step each, calling
    ``on_step`` after each; its tick lets commands in wherever it may."""
    engine = kits_engine(
        tmp_path, [hamlet_pack(tmp_path / "p")], seed=1, settings={"tick_lend_after": 0.0}
    )
    await engine.start()
    seen: list[str] = []

    def one_by_one(ctx: DetectionContext) -> DetectorWork:
        for step, chunk in enumerate(ctx.scan(NPC, size=1)):
            seen.append(f"step {step}")
            on_step(engine, ctx, step)
            yield len(chunk)
        return []

    detectors = engine.services.get(StoryDetectors)
    engine.registries.unlock()  # the seam a reload would use
    for name in detectors.names():
        detectors.unregister(name)
    detectors.register_sliced("one_by_one", "CUSTOM", one_by_one)
    await engine.sessions.session_opened(cast(Session, _Someone()))
    return engine, seen


async def test_a_command_runs_between_two_steps_of_a_round_inside_a_tick(
    tmp_path: Path,
) -> None:
    commands: list[asyncio.Task[None]] = []

    async def command(engine: GameEngine, seen: list[str]) -> None:
        async with engine.world_lock.command():
            seen.append("command")

    def on_step(engine: GameEngine, ctx: DetectionContext, step: int) -> None:
        if step == 0:  # it comes in while the round is under way
            commands.append(asyncio.create_task(command(engine, seen)))

    engine, seen = await _lending_engine(tmp_path, on_step)
    try:
        story = story_of(engine)
        await engine.tick()  # a 60 s tick: the whole round in it
        assert not story.round_in_progress
        steps = [s for s in seen if s.startswith("step")]
        assert len(steps) == engine.world.count(NPC) > 2
        # It ran right after the first step, not after the whole round.
        assert seen[:3] == ["step 0", "command", "step 1"]
        assert commands[0].done()
    finally:
        await engine.stop()


async def test_a_command_replacing_the_round_ends_the_old_one_where_it_was(
    tmp_path: Path,
) -> None:
    """``detect_now`` from a command (an admin's) while the tick's round is lent out:
    the tick does not go on with the round it dropped."""
    contexts: list[DetectionContext] = []
    commands: list[asyncio.Task[None]] = []

    async def detect(engine: GameEngine) -> None:
        async with engine.world_lock.command():
            story_of(engine).detect_now()

    def on_step(engine: GameEngine, ctx: DetectionContext, step: int) -> None:
        contexts.append(ctx)
        if step == 1 and len(set(map(id, contexts))) == 1:
            commands.append(asyncio.create_task(detect(engine)))

    engine, _ = await _lending_engine(tmp_path, on_step)
    try:
        story = story_of(engine)
        await engine.tick()
        npcs = engine.world.count(NPC)
        first, second = contexts[0], contexts[2]
        # The round's two steps, then the whole of detect_now's, and nothing more.
        assert [c is first for c in contexts] == [True, True] + [False] * npcs
        assert all(c is second for c in contexts[2:])
        assert not story.round_in_progress
        assert story.detector_errors == {}
        assert commands[0].done()
    finally:
        await engine.stop()
