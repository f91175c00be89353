"""``@quest force-generate`` of a pack's seed type grounds it with the pack's own
grounder, on a situation the pack's detector sees now: the giver is the one with the
grudge, not the nearest NPC of a generic shape."""

from __future__ import annotations

from pathlib import Path

from kits.heist import admin, character, make_engine, ticks

from maid_stdlib.questgen import QuestGen
from maid_stdlib.story.system import StorySignalSystem


async def test_a_pack_seed_type_is_grounded_by_its_own_grounder(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, store=False)
    async with engine.lifespan():
        boss = character(engine, "Morgan", level=10)
        story = engine.get_system(StorySignalSystem)
        for _ in range(120):
            if story.situations_now(["VAULT_UNGUARDED"]):
                break
            await ticks(engine, 1)
        [situation, *_] = story.situations_now(["VAULT_UNGUARDED"])
        grounded = engine.services.get(QuestGen).evaluator().ground(situation)
        giver = grounded.grounding.primary_npc  # type: ignore[union-attr]
        # Naming someone else as the giver is refused with the grounder's choice.
        out = await admin(engine, boss, "@quest force-generate heist_opportunity hobb")
        assert "its grounder chose" in out, out
        out = await admin(engine, boss, "@quest force-generate heist_opportunity --ignore-cooldown")
        assert "Queued seed" in out, out
        assert "plans as archetype 'heist'" in out
        name = engine.services.get(QuestGen).facts.name(giver)
        assert f"from {name} at" in out
