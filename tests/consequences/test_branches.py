"""Branch consequences: the player's choice, made in game with ``choose``, is recorded
in ``quest_branch_choices`` and decides which option's consequences apply."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest
from kits.engines import hamlet_engine, hv, plain, qm, ws_of
from kits.heroes import new_hero, walk
from kits.quests import applied_delta, assert_trust, build, deliver

from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.consequences import AUDIT_COLLECTION, BRANCH_CHOICES_COLLECTION, BranchChoices
from maid_stdlib.living import KnownGossip
from maid_stdlib.living.api import get_influence
from maid_stdlib.questgen import BasicSignal, GeneratedQuest


async def rivalry_quest(engine: GameEngine) -> GeneratedQuest:
    """Pell blames Tamsin for the road: a branching quest (back one side, or not)."""
    pell, tamsin = hv("pell"), hv("tamsin")
    signal = BasicSignal(
        "RIVALRY_ESCALATION",
        0.7,
        [pell, tamsin],
        {
            "npc_a": str(pell),
            "npc_b": str(tamsin),
            "trust_level": -0.35,
            "cause": "Pell blames the warden for leaving the road to the wolves",
        },
    )
    quest = await build(engine, [signal])
    assert quest.quest_giver_id == pell
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
    async with hamlet_engine(tmp_path, rpg=True, db_url=db_url).lifespan() as engine:
        pell, tamsin = hv("pell"), hv("tamsin")
        quest = await rivalry_quest(engine)
        branch = quest.branches[0] if quest.branches else None
        assert branch is not None
        labels = [o.label for o in branch.options]
        assert labels[:2] == ["Side with Pell", "Side with Warden Tamsin"]
        hero = new_hero(engine)

        assert "Quest offered" in plain(await talk_to(engine, hero, pell, "pell"))
        await cmd(engine, hero, f"accept {quest.id}")
        out = await cmd(engine, hero, "choose 1")
        assert "None of your quests asks a decision of you right now" in out
        await talk_to(engine, hero, pell, "pell")
        await talk_to(engine, hero, tamsin, "tamsin")

        out = plain(await cmd(engine, hero, "choose"))
        assert branch.description in out
        assert "1. Side with Pell" in out
        assert "2. Side with Warden Tamsin" in out
        influence_before = get_influence(engine.world, tamsin)
        out = plain(await cmd(engine, hero, "choose 2"))
        assert "You decide: Side with Warden Tamsin." in out
        entry = qm(engine).entry(hero, quest.id)
        assert entry is not None
        assert entry.objectives[branch.trigger_objective].completed

        # recorded durably, under <quest>:<character>
        doc = await engine.store.documents.get(BRANCH_CHOICES_COLLECTION, f"{quest.id}:{hero}")
        assert doc is not None
        assert doc["option_id"] == str(branch.options[1].id)
        assert doc["choices"] == {str(branch.id): str(branch.options[1].id)}
        assert "asks a decision" in await cmd(engine, hero, "choose 1")  # decided already

        out = plain(await talk_to(engine, hero, pell, "pell"))
        assert "Quest complete" in out
        assert "(perfect)" in out

        # The chosen option's consequences, on top of the quest's own (x1.25 PERFECT):
        # Tamsin +0.2; Pell +0.3 (giver) - 0.15 (betrayed), merged.
        assert applied_delta(engine, "relationship_change", tamsin) == pytest.approx(0.25)
        assert applied_delta(engine, "relationship_change", pell) == pytest.approx(0.1875)
        assert_trust(engine, tamsin, hero, 0.25, talks=1)
        assert_trust(engine, pell, hero, 0.1875, talks=3)
        assert get_influence(engine.world, tamsin) > get_influence(engine.world, pell)
        assert get_influence(engine.world, tamsin) > influence_before
        known = engine.world.get_component(tamsin, KnownGossip)
        assert any("backed Warden Tamsin against Pell" in i.content for i in known.items.values())
        audit = await engine.store.documents.query(AUDIT_COLLECTION, {"quest_id": quest.id})
        assert [a["status"] for a in audit] == ["applied"]
        assert audit[0]["outcome"] == "perfect"


async def test_the_recorded_choice_survives_a_restart(tmp_path: Path, db_url: str) -> None:
    async with hamlet_engine(tmp_path, rpg=True, db_url=db_url).lifespan() as engine:
        hero = new_hero(engine)
        choices = engine.services.get(BranchChoices)
        await choices.record("some-quest", hero, "b1", "o2", "Side with Warden Tamsin")
    async with hamlet_engine(tmp_path, rpg=True, db_url=db_url).lifespan() as engine:
        choices = engine.services.get(BranchChoices)
        assert await choices.get("some-quest", hero) == {"b1": "o2"}
