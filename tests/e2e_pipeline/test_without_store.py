"""The QuestGenerationSystem and the consequence layer together on an engine with no
store: the side-table lives only in memory, and consequences still happen."""

from __future__ import annotations

from pathlib import Path

import pytest
from ironvale.ironkit import CLEARED_NEWS, play_iron_crisis
from kits.engines import plain, qm
from kits.heroes import new_hero
from kits.quests import consequences_of
from questgen_system.qskit import ticks

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_stdlib.consequences import GeneratedQuestIndex
from maid_stdlib.living import KnownGossip


@pytest.mark.slow
async def test_generated_quests_have_consequences_without_a_store(tmp_path: Path) -> None:
    engine = GameEngine(
        Settings(data_dir=tmp_path, random_seed=4),
        clock=ManualClock(tick_game_seconds=600.0),
        packs=["ironvale"],
        use_store=False,
    )
    async with engine.lifespan():
        # Whoever the world has ask first for the bandits to be dealt with: who that
        # is depends on the seeded world, and is not what this test is about.
        for _ in range(400):
            await ticks(engine)
            ours = [
                q
                for q in qm(engine).quests()
                if q.source == "generated" and "threat_elimination" in q.tags
            ]
            if ours:
                break
        else:
            raise AssertionError("no quest against the bandits")
        giver = ours[0].giver_npc_id
        assert giver is not None
        quest = engine.services.get(GeneratedQuestIndex).cached(ours[0].quest_id)
        assert quest is not None  # learnt when the QuestManager announced it
        clock = engine.clock
        assert isinstance(clock, ManualClock)
        clock.tick_game_seconds = 1.0
        hero = new_hero(engine)
        assert "Quest complete" in plain(await play_iron_crisis(engine, hero, quest, giver=giver))
        await engine.dispatch_events()
        result = consequences_of(engine).recent[-1]
        assert result.quest_id == quest.id
        assert result.status == "applied"
        known = engine.world.get_component(giver, KnownGossip)
        assert any(i.content == CLEARED_NEWS for i in known.items.values())
