"""``to_quest_model`` (GeneratedQuest -> Quest), registration metadata, and the RPG
hooks: health, levels, hostility, item tiers, loot, reward items, archetypes."""

from __future__ import annotations

import dataclasses

import pytest
from kits.engines import npc, npcs
from kits.narrators import EchoNarrator

from classic_rpg.components import Health
from classic_rpg.items.factory import ItemFactory
from classic_rpg.questgen import (
    RPG_ARCHETYPES,
    RPG_EXTRA_REWARD_TYPES,
    RPG_ITEM_TIER_CAPS,
    LevelChallenge,
    RpgQuestTerms,
    RpgTerms,
    min_level,
    registration_meta,
    rpg_terms,
    side_table_document,
    to_quest_model,
)
from classic_rpg.systems.quests.history import QuestHistoryEntry as RPGHistoryEntry
from classic_rpg.systems.quests.models import QuestObjective as RPGObjective
from classic_rpg.systems.quests.models import QuestRewards as RPGQuestRewards
from maid_engine.engine import GameEngine
from maid_stdlib.questgen import (
    BasicSignal,
    DifficultyTier,
    GeneratedQuest,
    ObjectiveType,
    QuestGen,
    QuestObjective,
    QuestRewards,
    quest_from_document,
)
from maid_stdlib.questgen.objectives import grounding_problems
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.validator import ALLOWED_REWARD_TYPES


async def _quest(engine: GameEngine) -> GeneratedQuest:
    qg = engine.services.get(QuestGen)
    gundrik = npc(engine, "ironvale:gundrik")
    signals = [
        BasicSignal(
            "GOAL_BLOCKED",
            0.8,
            [gundrik],
            {"blocked_goal": "source_iron", "blocker": "bandits", "npc_id": str(gundrik)},
        ),
        BasicSignal(
            "THREAT_DETECTED",
            0.6,
            [npc(engine, "ironvale:voss")],
            {"threat_source": "bandits", "threat_location": "ironvale:old_trade_road"},
        ),
    ]
    seeds = await qg.composer().compose(signals)
    assert seeds
    quest = await qg.build_best(seeds[0], qg.builder(EchoNarrator()))
    assert quest is not None
    return quest


def test_the_six_archetypes_and_reward_fields() -> None:
    assert set(RPG_ARCHETYPES) == {
        "threat_elimination",
        "diplomatic_resolution",
        "supply_chain",
        "investigation",
        "rescue_mission",
        "faction_choice",
    }
    # The QuestManager's rewards are the stdlib's (gold, items) and the RPG terms'
    # experience.
    ours = [f.name for f in dataclasses.fields(QuestRewards) if f.name != "extra_rewards"]
    assert {*ours, "experience"} == set(RPGQuestRewards.model_fields)
    # One vocabulary: the QuestManager's objective is typed with the stdlib's enum.
    assert RPGObjective.model_fields["objective_type"].annotation is ObjectiveType


async def test_the_rpg_questgen_plugin_wires_archetypes_hooks_and_sink(
    ironvale: GameEngine,
) -> None:
    qg = ironvale.services.get(QuestGen)
    assert {a.archetype_id for a in qg.archetypes.all()} >= set(RPG_ARCHETYPES)
    assert qg.sink is not None
    assert qg.rewards.limits.max_item_tier == RPG_ITEM_TIER_CAPS
    assert qg.rewards.item_picker is not None


async def test_to_quest_model_maps_every_field(ironvale: GameEngine) -> None:
    quest = await _quest(ironvale)
    quest = dataclasses.replace(quest, time_limit=3.0)
    model = to_quest_model(quest)
    assert model.quest_id == quest.id
    assert model.source == "generated"
    assert model.title == quest.title
    assert model.description == quest.detailed_description
    assert model.giver_npc_id == model.turn_in_npc_id == quest.quest_giver_id
    assert model.accept_dialogue == quest.quest_giver_dialogue.offer
    assert model.complete_dialogue == quest.quest_giver_dialogue.completion
    terms = rpg_terms(quest)
    assert quest.extensions["classic_rpg"] == terms.to_document()
    assert model.level_requirement == terms.level_requirement == min_level(quest.difficulty)
    assert model.time_limit_seconds == 3 * 3600.0
    assert model.estimated_duration_seconds == quest.estimated_duration_minutes * 60
    assert (model.rewards.gold, model.rewards.experience) == (
        quest.rewards.gold,
        terms.experience,
    )
    assert "generated" in model.tags
    assert quest.archetype_id in model.tags
    by_id = {o.objective_id: o for o in model.objectives}
    assert list(by_id) == [o.id for o in quest.objectives]
    scouts = by_id["o3-kill"]
    assert scouts.objective_type is ObjectiveType.KILL
    assert scouts.target_count == 3
    assert scouts.target_id is None
    assert scouts.target_template == "ironvale:bandit_scout"
    kral = by_id["o4-kill"]
    # Kills match by kind (Kral respawns as a new entity): the template, not the id.
    assert kral.target_id is None
    assert kral.target_template == "ironvale:kral"
    visit = by_id["o2-visit"]
    assert visit.destination_room_id == quest.objectives[1].target_location
    assert by_id["o1-talk"].destination_room_id is None  # only VISIT/ESCORT track rooms
    assert by_id["o1-talk"].hint.startswith("Captain Voss is usually found at")
    assert all(o.required for o in model.objectives)


async def test_long_titles_are_cut_and_metadata_fits_the_managers_history(
    ironvale: GameEngine,
) -> None:
    quest = dataclasses.replace(await _quest(ironvale), title="T" * 100)
    assert len(to_quest_model(quest).title) == 80
    meta = registration_meta(quest)
    entry = RPGHistoryEntry(quest_id=quest.id, **meta)
    assert entry.seed_type == quest.seed_type
    assert entry.importance == quest.importance
    assert quest_from_document(side_table_document(quest)) == quest


async def test_rpg_terms_are_the_quests_extension_and_capped_like_gold(
    ironvale: GameEngine,
) -> None:
    qg = ironvale.services.get(QuestGen)
    quest = await _quest(ironvale)
    assert list(quest.extensions) == ["classic_rpg"]
    # Moderate (160) x 1.25 effort (five required objectives): the tier's cap (320) is
    # not reached.
    assert rpg_terms(quest) == RpgTerms(experience=200, level_requirement=3)
    qg.rewards.limits.cap_factor = 0.5
    capped = await _quest(ironvale)
    assert rpg_terms(capped).experience == 80  # 160 x 0.5
    with pytest.raises(ValueError, match="already added"):
        qg.add_extension(RpgQuestTerms(qg.rewards))


async def test_a_generated_quest_stored_in_the_old_shape_still_loads(
    ironvale: GameEngine,
) -> None:
    """Before the RPG terms became an extension, ``generated_quests`` documents had
    ``required_player_level`` and ``rewards.experience`` and no ``extensions``."""
    quest = await _quest(ironvale)
    terms = rpg_terms(quest)
    old = side_table_document(quest)
    del old["extensions"]
    old["required_player_level"] = 3
    old["rewards"] = {"experience": 200, **old["rewards"]}
    loaded = quest_from_document(old)
    assert loaded.extensions == {}
    assert loaded == dataclasses.replace(quest, extensions={})
    # The terms it carried are derived again, the same as they were stored.
    assert rpg_terms(loaded) == terms == RpgTerms(experience=200, level_requirement=3)
    model = to_quest_model(loaded)
    assert (model.level_requirement, model.rewards.experience) == (3, 200)


async def test_choice_quests_convert_with_a_custom_decision(ironvale: GameEngine) -> None:
    qg = ironvale.services.get(QuestGen)
    signal = BasicSignal(
        "RIVALRY_ESCALATION",
        0.8,
        [npc(ironvale, "ironvale:bram")],
        {
            "npc_a": str(npc(ironvale, "ironvale:selena")),
            "npc_b": str(npc(ironvale, "ironvale:voss")),
            "cause": "the road",
            "trust_level": -0.4,
        },
    )
    seed = await qg.evaluator().evaluate(signal)
    assert not isinstance(seed, Rejection)
    quest = await qg.build_best(seed, qg.builder(EchoNarrator()))
    assert quest is not None
    assert quest.branches
    model = to_quest_model(quest)
    decision = [o for o in model.objectives if o.objective_type is ObjectiveType.CUSTOM]
    assert len(decision) == 1
    assert decision[0].required


async def test_rules_hooks(ironvale: GameEngine) -> None:
    qg = ironvale.services.get(QuestGen)
    facts = qg.facts
    kral = npc(ironvale, "ironvale:kral")
    assert isinstance(facts.challenge, LevelChallenge)
    assert facts.challenge.level(kral) == 5
    assert facts.is_alive(kral)
    ironvale.world.get_component(kral, Health).current = 0
    assert not facts.is_alive(kral)  # dead but not yet removed: not a target
    scouts = npcs(ironvale, "ironvale:bandit_scout")
    # Combat hostility counts as a threat, matched by template words ("bandit").
    assert set(facts.threats("bandit", ["ironvale:road_wagon"])) == set(scouts)
    limits = qg.rewards.limits
    assert limits.item_tier("ironvale:bandit_insignia") == 1
    assert limits.item_tier("ironvale:nothing") is None
    assert facts.item_obtainable("ironvale:bandit_insignia")  # the scouts drop them
    assert not facts.item_obtainable("ironvale:kral_axe")  # Kral is dead now


async def test_reward_items_come_from_what_the_giver_owns(ironvale: GameEngine) -> None:
    qg = ironvale.services.get(QuestGen)
    gundrik = npc(ironvale, "ironvale:gundrik")
    factory = ironvale.services.get(ItemFactory)
    item = factory.spawn("ironvale:bandit_insignia")
    factory.add_to_inventory(item, gundrik)
    quest = await _quest(ironvale)
    assert quest.rewards.item_template_ids == ["ironvale:bandit_insignia"]
    assert (await qg.validator.validate(quest)).valid
    assert RPG_ITEM_TIER_CAPS[DifficultyTier.MODERATE] == 2


async def test_a_rivalry_with_a_player_character_is_no_quest(ironvale: GameEngine) -> None:
    from maid_stdlib.world.characters import WorldCharacterFactory

    qg = ironvale.services.get(QuestGen)
    player = ironvale.services.get(WorldCharacterFactory).create_character(
        "Quitter", "acct-quitter"
    )
    selena = npc(ironvale, "ironvale:selena")
    signal = BasicSignal(
        "RIVALRY_ESCALATION",
        0.8,
        [selena, player],
        {"npc_a": str(selena), "npc_b": str(player), "cause": "a slight", "trust_level": -0.5},
    )
    assert isinstance(await qg.evaluator().evaluate(signal), Rejection)  # both sides must be NPCs
    signal = BasicSignal(
        "RIVALRY_ESCALATION",
        0.8,
        [player, selena],
        {
            "npc_a": str(npc(ironvale, "ironvale:voss")),
            "npc_b": str(selena),
            "cause": "the road",
            "trust_level": -0.4,
        },
    )
    seed = await qg.evaluator().evaluate(signal)
    assert not isinstance(seed, Rejection), seed
    assert seed.primary_npc != player
    assert player not in seed.involved_npcs


async def test_kills_match_by_kind_and_respawns_keep_them_grounded(ironvale: GameEngine) -> None:
    from classic_rpg.combat.components import PendingRespawn

    qg = ironvale.services.get(QuestGen)
    facts = qg.facts
    kral = npc(ironvale, "ironvale:kral")
    kill = QuestObjective(
        id="o1-kill",
        objective_type=ObjectiveType.KILL,
        description="Defeat Kral",
        target="Kral",
        target_entity_id=kral,
        target_entity_ids=[kral],
        target_template="ironvale:kral",
        quantity=1,
    )
    model = to_quest_model(dataclasses.replace(await _quest(ironvale), objectives=[kill]))
    assert model.objectives[0].target_id is None
    assert model.objectives[0].target_template == "ironvale:kral"
    assert facts.kind_available("ironvale:kral")
    assert facts.kind_available("ironvale:kral", dying=kral)  # Kral respawns
    ironvale.world.get_component(kral, Health).current = 0
    assert not facts.kind_available("ironvale:kral")  # dead, no respawn scheduled yet
    assert grounding_problems([kill], facts)
    ironvale.world.create_entity(PendingRespawn(template="ironvale:kral", room="x", due=1.0))
    assert facts.kind_available("ironvale:kral")
    assert grounding_problems([kill], facts) == []


async def test_the_rpg_allows_experience_as_an_extra_reward(ironvale: GameEngine) -> None:
    limits = ironvale.services.get(QuestGen).validator.limits
    assert limits.extra_reward_types == ALLOWED_REWARD_TYPES | RPG_EXTRA_REWARD_TYPES
    assert "xp" in limits.extra_reward_types
    assert "xp" not in ALLOWED_REWARD_TYPES
