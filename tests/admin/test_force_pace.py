"""An admin's ``@quest force-generate`` is a request, not the world's pacing: the
daily cap that holds the world's own seeds back does not hold a forced seed, nor
reject its quest; the forced quest still counts in the day, so the world's own
seeds wait."""

from __future__ import annotations

from pathlib import Path
from uuid import uuid4

from kits.engines import qg_of
from kits.heist import character, force, make_engine, ticks

from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.history import QuestHistoryEntry


async def test_a_forced_seed_is_built_when_the_day_is_full(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, store=False, config=QuestGenerationConfig(max_quests_per_day=2))
    async with engine.lifespan():
        await ticks(engine, 2)
        history = qg_of(engine).history
        now = engine.clock.game_time
        for n in range(2):  # the day's two quests were given an hour ago
            history._sequence += 1
            history._put(
                QuestHistoryEntry(
                    quest_id=f"q-{uuid4().hex[:8]}",
                    seed_type="threat_response",
                    archetype_id="threat_elimination",
                    quest_giver_id=uuid4(),
                    created_at=now - 3600.0 + n,
                    sequence=history._sequence,
                )
            )
        boss = character(engine, "Morgan", level=10)
        quest_id = await force(engine, boss, "rivalry_intervention", "--ignore-cooldown")
        generated = [e for e in history.entries() if e.quest_id == quest_id]
        assert generated, "the forced quest was not registered"
        assert len(history.since(now - 24 * 3600.0)) >= 3  # over the cap, and counted
