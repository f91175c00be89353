"""Branch consequences: the player's choice, made in game with ``choose``, is recorded
in ``quest_branch_choices`` and decides which option's consequences apply."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest
from consequences.ckit import applied_delta, assert_trust, build, deliver, new_hero
from kits.engines import ironvale_engine, iv, plain, qm, ws_of
from kits.heroes import walk

from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.consequences import AUDIT_COLLECTION, BRANCH_CHOICES_COLLECTION, BranchChoices
from maid_stdlib.living import KnownGossip
from maid_stdlib.living.api import get_influence
from maid_stdlib.questgen import BasicSignal, GeneratedQuest


async def rivalry_quest(engine: GameEngine) -> GeneratedQuest:
    """Selena blames Voss for the road: a branching quest (back one side, or not)."""
    selena, voss = iv("selena"), iv("voss")
    signal = BasicSignal(
        "RIVALRY_ESCALATION",
        0.7,
        [selena, voss],
        {
            "npc_a": str(selena),
            "npc_b": str(voss),
            "trust_level": -0.35,
            "cause": "Selena blames the guard for leaving the road to the bandits",
        },
    )
    quest = await build(engine, [signal])
    assert quest.quest_giver_id == selena
    assert quest.branches
    await deliver(engine, quest)
    return quest


async def talk_to(engine: GameEngine, hero: UUID, npc: UUID, keyword: str) -> str:
    room = ws_of(engine).room_key_of(npc)
    assert room is not None
    await walk(engine, hero, room)
    return await cmd(engine, hero, f"talk {keyword}")


async def test_the_choice_made_in_game_decides_the_consequences(
    tmp_path: Path, db_url: str
) -> None:
    async with ironvale_engine(tmp_path, db_url=db_url).lifespan() as engine:
        selena, voss = iv("selena"), iv("voss")
        quest = await rivalry_quest(engine)
        branch = quest.branches[0] if quest.branches else None
        assert branch is not None
        labels = [o.label for o in branch.options]
        assert labels[:2] == ["Side with Selena", "Side with Captain Voss"]
        hero = new_hero(engine)

        assert "Quest offered" in plain(await talk_to(engine, hero, selena, "selena"))
        await cmd(engine, hero, f"accept {quest.id}")
        out = await cmd(engine, hero, "choose 1")
        assert "None of your quests asks a decision of you right now" in out
        await talk_to(engine, hero, selena, "selena")
        await talk_to(engine, hero, voss, "voss")

        out = plain(await cmd(engine, hero, "choose"))
        assert branch.description in out
        assert "1. Side with Selena" in out
        assert "2. Side with Captain Voss" in out
        out = plain(await cmd(engine, hero, "choose 2"))
        assert "You decide: Side with Captain Voss." in out
        entry = qm(engine).entry(hero, quest.id)
        assert entry is not None
        assert entry.objectives[branch.trigger_objective].completed

        # recorded durably, under <quest>:<character>
        doc = await engine.store.documents.get(BRANCH_CHOICES_COLLECTION, f"{quest.id}:{hero}")
        assert doc is not None
        assert doc["option_id"] == str(branch.options[1].id)
        assert doc["choices"] == {str(branch.id): str(branch.options[1].id)}
        assert "asks a decision" in await cmd(engine, hero, "choose 1")  # decided already

        out = plain(await talk_to(engine, hero, selena, "selena"))
        assert "Quest complete" in out
        assert "(perfect)" in out

        # The chosen option's consequences, on top of the quest's own (x1.25 PERFECT):
        # Voss +0.2; Selena +0.3 (giver) - 0.15 (betrayed), merged.
        assert applied_delta(engine, "relationship_change", voss) == pytest.approx(0.25)
        assert applied_delta(engine, "relationship_change", selena) == pytest.approx(0.1875)
        assert_trust(engine, voss, hero, 0.25, talks=1)
        assert_trust(engine, selena, hero, 0.1875, talks=3)
        assert get_influence(engine.world, voss) > get_influence(engine.world, selena)
        known = engine.world.get_component(voss, KnownGossip)
        assert any("backed Captain Voss against Selena" in i.content for i in known.items.values())
        audit = await engine.store.documents.query(AUDIT_COLLECTION, {"quest_id": quest.id})
        assert [a["status"] for a in audit] == ["applied"]
        assert audit[0]["outcome"] == "perfect"


async def test_the_recorded_choice_survives_a_restart(tmp_path: Path, db_url: str) -> None:
    async with ironvale_engine(tmp_path, db_url=db_url).lifespan() as engine:
        hero = new_hero(engine)
        choices = engine.services.get(BranchChoices)
        await choices.record("some-quest", hero, "b1", "o2", "Side with Captain Voss")
    async with ironvale_engine(tmp_path, db_url=db_url).lifespan() as engine:
        choices = engine.services.get(BranchChoices)
        assert await choices.get("some-quest", hero) == {"b1": "o2"}
