"""QuestValidator (10.1): invalid quests rejected, edge cases warned, rewards checked
(gold, experience, item tier, whitelist) with the QuestReward field names, and
validation free of side effects (the clamp is a separate build step)."""

from __future__ import annotations

import copy
import dataclasses
from uuid import uuid4

from questgen.qgkit import Town, iron_quest

from maid_stdlib.questgen import (
    DifficultyTier,
    GeneratedQuest,
    ObjectiveType,
    QuestObjective,
    QuestRewards,
    RewardLimits,
    clamp_rewards,
)
from maid_stdlib.questgen.validator import ALLOWED_REWARD_TYPES


async def _valid(town: Town, quest: GeneratedQuest, accepted: bool = False) -> list[str]:
    result = await town.qg.validator.validate(quest, accepted=accepted)
    assert result.valid == (not result.errors)
    return result.errors


async def test_a_built_quest_is_valid(town: Town) -> None:
    quest = await iron_quest(town)
    result = await town.qg.validator.validate(quest)
    assert result.valid, result.errors
    assert result.warnings == []


async def test_missing_or_dead_references_are_errors(town: Town) -> None:
    quest = await iron_quest(town)
    ghost = dataclasses.replace(quest, involved_npcs={uuid4(): "informant"})
    assert "Involved NPC (informant) does not exist or is dead" in await _valid(town, ghost)
    nowhere = dataclasses.replace(quest, involved_locations=["brookhaven:moon"])
    assert "Location brookhaven:moon does not exist" in await _valid(town, nowhere)
    far = dataclasses.replace(quest, involved_locations=["brookhaven:island"])
    result = await town.qg.validator.validate(far)
    assert result.valid
    assert "Location brookhaven:island may not be reachable" in result.warnings
    town.engine.world.destroy_entity(town.hilda)
    await town.engine.dispatch_events()
    assert "Quest giver entity does not exist" in await _valid(town, quest)


async def test_kill_targets_must_exist_until_the_quest_is_under_way(town: Town) -> None:
    quest = await iron_quest(town)
    town.engine.world.destroy_entity(town.alpha)
    await town.engine.dispatch_events()
    errors = await _valid(town, quest)
    assert any("does not exist or is dead" in e for e in errors)
    # Re-validating an accepted quest (the grounding monitor): a dead target is progress.
    assert await _valid(town, quest, accepted=True) == []


async def test_collect_items_must_be_obtainable(town: Town) -> None:
    quest = await iron_quest(town)
    fetch = QuestObjective(
        id="o9-collect",
        objective_type=ObjectiveType.COLLECT,
        description="Get a unicorn horn",
        target="a unicorn horn",
        item_template="brookhaven:unicorn_horn",
        order=5,
    )
    bad = dataclasses.replace(quest, objectives=[*quest.objectives, fetch])
    assert any("cannot be obtained" in e for e in await _valid(town, bad))
    fetch.item_template = "brookhaven:iron_ore"
    assert await _valid(town, bad) == []


async def test_rewards_over_the_caps_fail_and_validation_never_mutates(town: Town) -> None:
    quest = await iron_quest(town)
    limits = town.qg.validator.limits
    greedy = dataclasses.replace(quest, rewards=QuestRewards(gold=10_000))
    before = copy.deepcopy(greedy)
    errors = await _valid(town, greedy)
    assert any(e.startswith("Gold reward 10000 exceeds 240") for e in errors)
    assert greedy == before  # untouched: clamping is not validation's job
    clamped, notes = clamp_rewards(greedy.rewards, greedy.difficulty, limits)
    assert clamped.gold == limits.max_gold(DifficultyTier.MODERATE)
    assert notes == ["gold clamped to 240"]
    assert greedy.rewards.gold == 10_000  # clamp_rewards returns a copy
    assert await _valid(town, dataclasses.replace(greedy, rewards=clamped)) == []


async def test_item_tier_and_the_reward_whitelist(town: Town) -> None:
    quest = await iron_quest(town)
    tiers = {"brookhaven:dagger": 1, "brookhaven:runeblade": 4}
    town.qg.validator.limits.item_tier = tiers.get
    items = dataclasses.replace(
        quest,
        rewards=QuestRewards(
            item_template_ids=["brookhaven:dagger", "brookhaven:runeblade", "brookhaven:rock"]
        ),
    )
    errors = await _valid(town, items)
    assert "Reward item brookhaven:runeblade is tier 4, max allowed is 2" in errors
    assert "Reward item brookhaven:rock is not a known item" in errors
    assert not any("dagger" in e for e in errors)
    extra = dataclasses.replace(
        quest, rewards=QuestRewards(extra_rewards={"reputation": 0.2, "castle": 1.0})
    )
    assert await _valid(town, extra) == ["Unknown reward type: castle"]
    clamped, notes = clamp_rewards(items.rewards, DifficultyTier.MODERATE, town.qg.validator.limits)
    assert clamped.item_template_ids == ["brookhaven:dagger"]
    assert len(notes) == 2
    # Experience is a rules layer's reward kind, not the stdlib's.
    assert ALLOWED_REWARD_TYPES == {"gold", "items", "reputation", "faction_standing"}
    assert town.qg.validator.limits.extra_reward_types == ALLOWED_REWARD_TYPES
    xp = dataclasses.replace(quest, rewards=QuestRewards(extra_rewards={"xp": 50.0}))
    assert await _valid(town, xp) == ["Unknown reward type: xp"]


def test_the_quest_model_names_no_rules_layers_terms() -> None:
    # Experience and character levels are a rules layer's (classic_rpg's quest
    # extension); the stdlib's rewards are what the giver pays.
    names = [f.name for f in dataclasses.fields(QuestRewards)]
    assert names == ["gold", "item_template_ids", "extra_rewards"]
    model = {
        f.name
        for cls in (GeneratedQuest, QuestRewards, QuestObjective)
        for f in dataclasses.fields(cls)
    }
    rpg_words = {"level", "experience", "xp", "hp", "health"}
    assert not {n for n in model if rpg_words & set(n.split("_"))}
    limits = RewardLimits()
    assert limits.max_gold(DifficultyTier.EASY) == 100


async def test_text_heuristics(town: Town) -> None:
    quest = await iron_quest(town)
    long_title = dataclasses.replace(quest, title="A" * 61, detailed_description="Too short.")
    result = await town.qg.validator.validate(long_title)
    assert result.valid
    assert {"Quest title is missing or too long", "Quest description is too short"} <= set(
        result.warnings
    )
    placeholder = dataclasses.replace(quest, summary="Help {npc} at once.")
    assert "The summary contains an unfilled placeholder" in await _valid(town, placeholder)
    mechanical = dataclasses.replace(quest, title="Kill wolves for XP")
    result = await town.qg.validator.validate(mechanical)
    assert "The title talks about game mechanics" in result.warnings
