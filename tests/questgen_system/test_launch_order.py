"""Which seeds a cycle launches when the day has less room than the world has
troubles: an errand a giver keeps for itself (a chain's follow-up, an order
standing alone) goes before a more important trouble, and keeps its giver while
its own hold clears."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kits.engines import metric, questgen_of
from questgen_system.qskit import pipeline_of, seed_for, started, ticks

from maid_stdlib.questgen import QuestSeed
from maid_stdlib.questgen.generation_config import QuestGenerationConfig

#: Room for one quest a day, no floor: whichever seed goes first takes the day.
ONE_A_DAY = QuestGenerationConfig(max_quests_per_day=1, min_quests_per_day=0)


async def test_a_follow_up_goes_before_a_more_important_trouble(tmp_path: Path) -> None:
    async with started(tmp_path, ONE_A_DAY) as engine:
        system = questgen_of(engine)
        trouble = seed_for(engine, "pell", importance=0.95)
        follow_up = seed_for(engine, "hollin", importance=0.5)
        follow_up.chain_depth = 1
        system.enqueue(trouble)
        system.enqueue(follow_up)
        await ticks(engine, 3)
        (quest,) = [oq.quest for oq in system.open_quests().values()]
        assert quest.seed_id == follow_up.id
        # The day is full: the trouble waits for the next one, no attempt spent.
        assert [s.id for s in system.pending_seeds()] == [trouble.id]
        assert trouble.attempt_count == 0


async def test_a_held_errand_keeps_its_giver(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path) as engine:
        system = questgen_of(engine)
        holds = pipeline_of(engine).stages.holds
        # A follow-up: what a quest of Hollin's left behind, which he still has
        # to ask for whatever else he asks meanwhile.
        errand = seed_for(engine, "hollin", importance=0.5)
        errand.chain_depth = 1
        newer = seed_for(engine, "hollin", importance=0.95)
        original = holds.before_plan
        area_full = {"on": True}

        def before_plan(seed: QuestSeed, *args: Any) -> str | None:
            if seed.id == errand.id and area_full["on"]:
                return "area_daily_cap"
            return original(seed, *args)

        monkeypatch.setattr(holds, "before_plan", before_plan)
        system.enqueue(errand)
        system.enqueue(newer)
        await ticks(engine, 3)
        # The errand's place is held; the giver's newer trouble waits with it
        # rather than make the giver busy the moment the errand could go.
        assert system.open_quests() == {}
        assert {s.id for s in system.pending_seeds()} == {errand.id, newer.id}
        assert metric(engine, "maid_questgen_seed_holds_total", rule="giver_reserved") > 0
        area_full["on"] = False
        await ticks(engine, 10)
        (quest,) = [oq.quest for oq in system.open_quests().values()]
        assert quest.seed_id == errand.id
