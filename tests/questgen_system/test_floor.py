"""The daily floor: a day short of quests widens the search -- signals turned down
for their importance judged again at a lower threshold, the situations the story
layer still sees -- and never finds what the world does not hold."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from uuid import uuid4

import pytest
from kits.engines import metric, qg_of, questgen_of
from pydantic import ValidationError
from questgen_system.qskit import pipeline_of, seed_for, started, threat, ticks, until

from maid_engine.clock import GAME_HOUR, ManualClock
from maid_engine.engine import GameEngine
from maid_stdlib.living.components import Goal, GoalsComponent
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import StorySignalLike
from maid_stdlib.story.signals import StorySignal


class Story:
    """The story layer's answer: the situations it still sees."""

    def __init__(self, signals: list[StorySignal]) -> None:
        self.signals = signals
        self.asked: list[Collection[str]] = []

    def situations_later(self, signal_types: Collection[str]) -> SimpleNamespace:
        self.asked.append(signal_types)
        found: list[StorySignalLike] = [s for s in self.signals if s.signal_type in signal_types]
        return SimpleNamespace(done=True, signals=found)

    def is_active(self, situation_key: str) -> bool:
        return any(s.situation_key == situation_key for s in self.signals)


def live_story(engine: GameEngine, monkeypatch: pytest.MonkeyPatch, story: Story) -> None:
    monkeypatch.setattr(pipeline_of(engine).stages.floor, "_live", lambda: story)


async def test_a_short_day_judges_a_signal_turned_down_again_at_a_lower_threshold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path) as quiet:
        system = questgen_of(quiet)
        quiet_signal = threat(quiet, "pell", importance=0.3)
        live_story(quiet, monkeypatch, Story([quiet_signal]))  # the wolves are still there
        turned_down = await system.accept_signal(quiet_signal)
        assert isinstance(turned_down, Rejection)
        assert turned_down.rules == ("importance_below_threshold",)
        assert (
            metric(
                quiet, "maid_questgen_signal_rejections_total", rule="importance_below_threshold"
            )
            == 1
        )
        # No quest yet today: the day is short of its floor of two, and the next
        # cycle looks again at what it turned down.
        await ticks(quiet, 3)
        assert metric(quiet, "maid_questgen_floor_seeds_total", source="turned_down") == 1
        [record] = system.build_records()
        assert record.outcome == "registered"


def regrouping(engine: GameEngine) -> StorySignal:
    """The wolves driven off the road regroup: a finished quest's follow-up, about a
    situation the story layer never tracked."""
    signal = threat(engine, "pell", importance=0.3)
    signal.context.update({"previous_quest_id": "gen-wolves", "chain_depth": 1})
    signal.chain_depth = 1
    signal.situation_key = "chain:gen-wolves:retaliation"
    return signal


async def test_a_short_day_takes_up_a_follow_up_the_story_layer_never_saw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path) as quiet:
        system = questgen_of(quiet)
        live_story(quiet, monkeypatch, Story([]))
        assert isinstance(await system.accept_signal(regrouping(quiet)), Rejection)
        await ticks(quiet, 3)
        assert metric(quiet, "maid_questgen_floor_seeds_total", source="turned_down") == 1
        [record] = system.build_records()
        assert record.outcome == "registered"


async def test_a_short_day_leaves_a_signal_whose_situation_the_story_layer_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path) as quiet:
        system = questgen_of(quiet)
        live_story(quiet, monkeypatch, Story([]))  # the wolves are gone
        assert isinstance(
            await system.accept_signal(threat(quiet, "pell", importance=0.3)), Rejection
        )
        await ticks(quiet, 3)
        assert metric(quiet, "maid_questgen_floor_seeds_total", source="turned_down") == 0
        assert system.build_records() == []


async def test_without_a_floor_a_signal_turned_down_stays_turned_down(tmp_path: Path) -> None:
    async with started(tmp_path, QuestGenerationConfig(min_quests_per_day=0)) as quiet:
        system = questgen_of(quiet)
        assert isinstance(
            await system.accept_signal(threat(quiet, "pell", importance=0.3)), Rejection
        )
        await ticks(quiet, 3)
        assert system.build_records() == []
        assert metric(quiet, "maid_questgen_floor_seeds_total", source="turned_down") == 0


async def test_a_signal_below_even_the_floors_threshold_is_not_taken(tmp_path: Path) -> None:
    async with started(tmp_path) as quiet:
        system = questgen_of(quiet)
        await system.accept_signal(threat(quiet, "pell", importance=0.1))
        await ticks(quiet, 3)
        assert system.build_records() == []


async def test_a_short_day_takes_up_a_situation_the_story_layer_still_sees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path) as quiet:
        system = questgen_of(quiet)
        # The wolves were signalled long ago (no seed waits for them); they are
        # still on the road.
        story = Story([threat(quiet, "pell", "tamsin")])
        live_story(quiet, monkeypatch, story)
        await ticks(quiet, 3)
        assert story.asked
        assert "THREAT_DETECTED" in story.asked[0]
        assert metric(quiet, "maid_questgen_floor_seeds_total", source="live_situation") == 1
        # Queued now, built at the next generation cycle.
        await until(quiet, system.build_records)
        [record] = system.build_records()
        assert record.outcome == "registered"
        # Searched once an hour at most while the day stays short.
        await ticks(quiet, 5)
        assert len(story.asked) == 1
        assert isinstance(quiet.clock, ManualClock)
        quiet.clock.skip(GAME_HOUR)
        await ticks(quiet, 2)
        assert len(story.asked) == 2
        # The giver's quest is open: the same situation is not taken up again.
        assert metric(quiet, "maid_questgen_floor_seeds_total", source="live_situation") == 1


async def test_a_world_with_nothing_wrong_stays_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path) as quiet:
        live_story(quiet, monkeypatch, Story([]))
        await ticks(quiet, 10)
        assert questgen_of(quiet).build_records() == []
        assert pipeline_of(quiet).stages.floor.short(quiet.clock.game_time)


async def test_a_day_with_its_floor_met_does_not_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path, QuestGenerationConfig(min_quests_per_day=1)) as quiet:
        story = Story([threat(quiet, "pell", "tamsin")])
        live_story(quiet, monkeypatch, story)
        await ticks(quiet, 3)
        assert len(questgen_of(quiet).build_records()) == 1
        assert isinstance(quiet.clock, ManualClock)
        quiet.clock.skip(2 * GAME_HOUR)
        await ticks(quiet, 2)
        assert len(story.asked) == 1  # one quest today meets a floor of one


def test_the_floor_cannot_be_above_the_cap() -> None:
    assert QuestGenerationConfig().min_quests_per_day == 2
    assert QuestGenerationConfig().max_giver_share == 0.3
    with pytest.raises(ValidationError, match="min_quests_per_day"):
        QuestGenerationConfig(min_quests_per_day=6, max_quests_per_day=5)
    QuestGenerationConfig(min_quests_per_day=6, max_quests_per_day=None)


def test_one_quest_from_a_giver_is_always_allowed_and_then_its_share() -> None:
    config = QuestGenerationConfig()
    assert not config.giver_at_share(given=0, day_total=0)
    assert config.giver_at_share(given=1, day_total=1)  # 2 of 2
    assert config.giver_at_share(given=1, day_total=5)  # 2 of 6 is over 30%
    assert not config.giver_at_share(given=1, day_total=6)  # 2 of 7 is not


def _follow_up(engine: GameEngine, giver: str) -> QuestSeed:
    seed = seed_for(engine, giver, "consequence_chain", importance=0.5)
    seed.chain_depth = 1
    return seed


async def test_a_follow_up_waits_for_its_givers_open_quest_and_is_asked_by_a_content_giver(
    tmp_path: Path,
) -> None:
    async with started(tmp_path) as quiet:
        screen = pipeline_of(quiet).stages.screen
        open_quests = pipeline_of(quiet).stages.open_quests
        follow_up, errand = _follow_up(quiet, "pell"), seed_for(quiet, "pell", importance=0.5)
        pell = errand.primary_npc
        assert not screen.waits(follow_up)
        # Pell's request is open: another of his own would be its double, while
        # what a finished quest left him with waits for him to be free.
        busy: Any = SimpleNamespace(quest=SimpleNamespace(quest_giver_id=pell, seed_id=uuid4()))
        open_quests["gen-open"] = busy
        assert screen.waits(follow_up)
        assert not screen.waits(errand)
        rejection = screen.screen(errand)
        assert rejection is not None
        assert rejection.rules == ("giver_has_open_quest",)
        del open_quests["gen-open"]
        # Pell has what he wanted: his own errand is stale, the follow-up is not.
        quiet.world.add_component(
            pell, GoalsComponent([Goal("road", description="a safe road", status="done")])
        )
        assert not any(s.unmet for s in qg_of(quiet).facts.needs(pell).values())
        rejection = screen.screen(errand)
        assert rejection is not None
        assert rejection.rules == ("giver_content",)
        assert screen.screen(follow_up) is None


class SlowStory(Story):
    """A story layer whose search of the world is done only after a few ticks."""

    def __init__(self, signals: list[StorySignal]) -> None:
        super().__init__(signals)
        self.searches: list[SimpleNamespace] = []

    def situations_later(self, signal_types: Collection[str]) -> SimpleNamespace:
        self.asked.append(signal_types)
        search = SimpleNamespace(done=False, signals=[])
        self.searches.append(search)
        return search


async def test_the_situations_found_by_a_search_over_ticks_are_taken_up_when_it_is_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path) as quiet:
        system = questgen_of(quiet)
        wolves = threat(quiet, "pell", "tamsin")
        story = SlowStory([wolves])
        live_story(quiet, monkeypatch, story)
        await ticks(quiet, 3)
        [search] = story.searches
        assert system.build_records() == []  # nothing found yet
        await ticks(quiet, 3)
        assert len(story.searches) == 1  # one search at a time
        search.signals, search.done = [wolves], True
        await ticks(quiet, 3)
        assert metric(quiet, "maid_questgen_floor_seeds_total", source="live_situation") == 1
        # Queued now, built at the next generation cycle.
        await until(quiet, system.build_records)
        [record] = system.build_records()
        assert record.outcome == "registered"


async def test_a_wider_search_judges_a_few_candidates_a_tick_on_a_real_servers_short_ticks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path) as quiet:
        signals = []
        for i, seer in enumerate(("pell", "tamsin", "hollin", "pell", "tamsin")):
            signal = threat(quiet, seer, importance=0.1)  # below even the floor's threshold
            signal.situation_key = f"threat:wolves:{i}"
            signals.append(signal)
        live_story(quiet, monkeypatch, Story(signals))
        floor = pipeline_of(quiet).stages.floor
        judged: list[str] = []
        take = floor._take

        async def counted(signal: StorySignalLike, *args: Any) -> bool:
            judged.append(str(getattr(signal, "situation_key", "")))
            return await take(signal, *args)

        monkeypatch.setattr(floor, "_take", counted)
        floor.tick_started(2.4)  # a real server's tick
        await floor.widen(quiet.clock.game_time)
        per_tick = [len(judged)]
        while floor._search is not None:
            before = len(judged)
            await floor.collect()
            per_tick.append(len(judged) - before)
            assert len(per_tick) < 50
        assert max(per_tick) == 1  # signals_per_tick
        assert judged == [s.situation_key for s in signals]
        # A tick as long as the spread (a simulation's) judges them all at once.
        judged.clear()
        floor.tick_started(60.0)
        assert isinstance(quiet.clock, ManualClock)
        quiet.clock.skip(GAME_HOUR)
        await floor.widen(quiet.clock.game_time)
        assert judged == [s.situation_key for s in signals]
        assert floor._search is None
