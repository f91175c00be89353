"""A seed of a stand-alone type (an errand of its own) waits while its giver has
another request open, or is on cooldown; any other seed from a busy giver is its
request's double and is dropped."""

from __future__ import annotations

from pathlib import Path

from kits.engines import qg_of, questgen_of
from questgen_system.qskit import make_engine, seed_for, ticks

ERRAND = "test_errand"


async def test_a_stand_alone_seed_waits_for_its_busy_giver(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, quiet=True)
    async with engine.lifespan():
        qg_of(engine).seed_types.register(ERRAND, "An errand of its own", merge=False)
        system = questgen_of(engine)
        # Made before the first quest (whose giver is then on cooldown).
        first = seed_for(engine, "hollin", importance=0.9)
        errand = seed_for(engine, "hollin", importance=0.9)
        errand.seed_type = ERRAND
        double = seed_for(engine, "hollin", importance=0.9)
        system.enqueue(first)
        await ticks(engine, 3)
        (open_quest,) = system.open_quests().values()
        assert open_quest.quest.seed_id == first.id
        assert errand.primary_npc == double.primary_npc == open_quest.quest.quest_giver_id
        system.enqueue(errand)
        system.enqueue(double)
        await ticks(engine, 3)
        # The double is dropped as stale; the errand waits, no attempt spent.
        assert [s.id for s in system.pending_seeds()] == [errand.id]
        assert errand.attempt_count == 0
