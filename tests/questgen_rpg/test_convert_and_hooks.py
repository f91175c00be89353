"""``to_quest_model`` (GeneratedQuest -> Quest), registration metadata, and the RPG
hooks: health, levels, hostility, item tiers, loot, reward items, archetypes."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import hamlet_engine, npc, npcs
from kits.narrators import EchoNarrator

from classic_rpg.combat.components import CombatRules
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
    RewardPolicy,
    quest_from_document,
)
from maid_stdlib.questgen.objectives import grounding_problems
from maid_stdlib.questgen.quest import ProgressionMode
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.validator import ALLOWED_REWARD_TYPES
from maid_stdlib.world.components import NPC, Describable


@pytest.fixture
async def hamlet(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Hamlet under the RPG rules after six game hours: the wolves on his supply
    route have made Hollin's grain goal by then."""
    async with hamlet_engine(tmp_path, rpg=True).lifespan() as engine:
        await engine.run_ticks(6 * 60)
        yield engine


async def _quest(engine: GameEngine) -> GeneratedQuest:
    qg = engine.services.get(QuestGen)
    quest = await qg.build_best(await _seed(engine), qg.builder(EchoNarrator()))
    assert quest is not None
    return quest


async def _seed(engine: GameEngine) -> QuestSeed:
    qg = engine.services.get(QuestGen)
    hollin = npc(engine, "hamlet:hollin")
    signals = [
        BasicSignal(
            "GOAL_BLOCKED",
            0.8,
            [hollin],
            {"blocked_goal": "get_grain", "blocker": "wolves", "npc_id": str(hollin)},
        ),
        BasicSignal(
            "THREAT_DETECTED",
            0.6,
            [npc(engine, "hamlet:tamsin")],
            {"threat_source": "wolves", "threat_location": "hamlet:mill_road"},
        ),
    ]
    seeds = await qg.composer().compose(signals)
    assert seeds
    return seeds[0]


def test_the_eight_archetypes_and_reward_fields() -> None:
    assert set(RPG_ARCHETYPES) == {
        "threat_elimination",
        "diplomatic_resolution",
        "supply_chain",
        "investigation",
        "rescue_mission",
        "faction_choice",
        "common_cause",
        "clearing_the_way",
    }
    # The QuestManager's rewards are the stdlib's (gold, items) and the RPG terms'
    # experience.
    ours = [f.name for f in dataclasses.fields(QuestRewards) if f.name != "extra_rewards"]
    assert {*ours, "experience"} == set(RPGQuestRewards.model_fields)
    # One vocabulary: the QuestManager's objective is typed with the stdlib's enum.
    assert RPGObjective.model_fields["objective_type"].annotation is ObjectiveType


async def test_the_rpg_questgen_plugin_wires_archetypes_hooks_and_sink(
    hamlet: GameEngine,
) -> None:
    qg = hamlet.services.get(QuestGen)
    assert {a.archetype_id for a in qg.archetypes.all()} >= set(RPG_ARCHETYPES)
    assert qg.sink is not None
    assert qg.rewards.limits.max_item_tier == RPG_ITEM_TIER_CAPS
    assert qg.rewards.item_picker is not None


async def test_to_quest_model_maps_every_field(hamlet: GameEngine) -> None:
    quest = await _quest(hamlet)
    quest = dataclasses.replace(
        quest, time_limit=3.0, progression_mode=ProgressionMode.SHARED_CREDIT
    )
    model = to_quest_model(quest)
    assert model.progression_mode is ProgressionMode.SHARED_CREDIT
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
    wolves = by_id["o3-kill"]
    assert wolves.objective_type is ObjectiveType.KILL
    assert wolves.target_count == 2
    assert wolves.target_id is None
    assert wolves.target_template == "hamlet:wolf"
    grey = by_id["o4-kill"]
    # Kills match by kind (Old Grey respawns as a new entity): the template, not the id.
    assert grey.target_id is None
    assert grey.target_template == "hamlet:old_grey"
    visit = by_id["o2-visit"]
    assert visit.destination_room_id == quest.objectives[1].target_location
    assert by_id["o1-talk"].destination_room_id is None  # only VISIT/ESCORT track rooms
    assert by_id["o1-talk"].hint.startswith("Warden Tamsin is usually found at")
    assert all(o.required for o in model.objectives)


async def test_long_titles_are_cut_and_metadata_fits_the_managers_history(
    hamlet: GameEngine,
) -> None:
    quest = dataclasses.replace(await _quest(hamlet), title="T" * 100)
    assert len(to_quest_model(quest).title) == 80
    meta = registration_meta(quest)
    entry = RPGHistoryEntry(quest_id=quest.id, **meta)
    assert entry.seed_type == quest.seed_type
    assert entry.importance == quest.importance
    assert quest_from_document(side_table_document(quest)) == quest


async def test_rpg_terms_are_the_quests_extension_and_capped_like_gold(
    hamlet: GameEngine,
) -> None:
    qg = hamlet.services.get(QuestGen)
    quest = await _quest(hamlet)
    assert list(quest.extensions) == ["classic_rpg"]
    # Moderate (160) x 1.25 effort (five required objectives): the tier's cap (320) is
    # not reached.
    assert rpg_terms(quest) == RpgTerms(experience=200, level_requirement=3)
    qg.rewards.limits.cap_factor = 0.5
    capped = await _quest(hamlet)
    assert rpg_terms(capped).experience == 80  # 160 x 0.5
    with pytest.raises(ValueError, match="already added"):
        qg.add_extension(RpgQuestTerms(qg.rewards))


async def test_a_quest_of_words_and_walks_asks_for_no_level(hamlet: GameEngine) -> None:
    quest = await _quest(hamlet)
    assert quest.difficulty is DifficultyTier.MODERATE
    terms = RpgQuestTerms(RewardPolicy())
    assert terms.terms(quest).level_requirement == 3
    talk_and_walk = [
        o
        for o in quest.objectives
        if o.objective_type in (ObjectiveType.TALK, ObjectiveType.VISIT) or o.optional
    ]
    others = [o for o in quest.objectives if o not in talk_and_walk]
    assert talk_and_walk
    assert others  # the quest asks for more than words: its tier's level
    words = dataclasses.replace(quest, objectives=talk_and_walk)
    assert terms.terms(words).level_requirement == 1
    # An optional fight does not make it one.
    optional = [dataclasses.replace(o, optional=True) for o in others]
    assert terms.terms(dataclasses.replace(quest, objectives=talk_and_walk + optional)) == (
        RpgTerms(experience=terms.terms(words).experience, level_requirement=1)
    )


async def test_a_generated_quest_stored_in_the_old_shape_still_loads(
    hamlet: GameEngine,
) -> None:
    """Before the RPG terms became an extension, ``generated_quests`` documents had
    ``required_player_level`` and ``rewards.experience`` and no ``extensions``."""
    quest = await _quest(hamlet)
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


async def test_choice_quests_convert_with_a_custom_decision(hamlet: GameEngine) -> None:
    qg = hamlet.services.get(QuestGen)
    signal = BasicSignal(
        "RIVALRY_ESCALATION",
        0.8,
        [npc(hamlet, "hamlet:marta")],
        {
            "npc_a": str(npc(hamlet, "hamlet:pell")),
            "npc_b": str(npc(hamlet, "hamlet:tamsin")),
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


async def test_rules_hooks(hamlet: GameEngine) -> None:
    qg = hamlet.services.get(QuestGen)
    facts = qg.facts
    grey = npc(hamlet, "hamlet:old_grey")
    assert isinstance(facts.challenge, LevelChallenge)
    assert facts.challenge.level(grey) == 5
    assert facts.is_alive(grey)
    hamlet.world.get_component(grey, Health).current = 0
    assert not facts.is_alive(grey)  # dead but not yet removed: not a target
    wolves = npcs(hamlet, "hamlet:wolf")
    # Combat hostility counts as a threat, matched by template words ("wolf").
    assert set(facts.threats("wolf", ["hamlet:road_copse"])) == set(wolves)
    limits = qg.rewards.limits
    assert limits.item_tier("hamlet:wolf_pelt") == 1
    assert limits.item_tier("hamlet:nothing") is None
    assert facts.item_obtainable("hamlet:wolf_pelt")  # the wolves drop them
    assert not facts.item_obtainable("hamlet:grey_pelt")  # Old Grey is dead now


async def test_the_hostile_hook_answers_with_one_tuple_until_the_rules_change(
    hamlet: GameEngine,
) -> None:
    """The same tuple while no combat rules come or go: quest generation keeps
    what it built from it (the pairs, their ids) across game times."""
    [provider] = hamlet.services.get(QuestGen).facts.threat_providers
    first = provider(hamlet.world)
    assert isinstance(first, tuple)
    assert set(npcs(hamlet, "hamlet:wolf")) <= {uid for uid, _ in first}
    assert provider(hamlet.world) is first
    wolf = npcs(hamlet, "hamlet:wolf")[0]
    hamlet.world.remove_component(wolf, CombatRules)
    second = provider(hamlet.world)
    assert second is not first
    assert wolf not in {uid for uid, _ in second}


async def test_the_hostile_hook_names_each_by_its_template_or_description_now(
    hamlet: GameEngine,
) -> None:
    """A hostile's source is kept until its NPC marker or description changes: a
    wolf given another template, or a hostile with no template renamed, is named
    anew at the next answer; the others' names are not read again."""
    world = hamlet.world
    [provider] = hamlet.services.get(QuestGen).facts.threat_providers
    wolf, other, *_ = npcs(hamlet, "hamlet:wolf")
    assert dict(provider(world))[wolf] == "wolf"
    world.add_component(
        wolf, dataclasses.replace(world.get_component(wolf, NPC), template="hamlet:warg")
    )
    assert dict(provider(world))[wolf] == "warg"
    marker = world.get_component(wolf, NPC)
    marker.template = ""
    desc = world.get_component(wolf, Describable)
    desc.name = "a grey shape"
    world.modified(wolf, marker)
    world.modified(wolf, desc)
    named = dict(provider(world))
    assert named[wolf] == "a grey shape"
    assert named[other] == "wolf"
    # A name read once is kept: the description changed in place, unreported,
    # is not seen until the next change to that wolf.
    world.get_component(other, Describable).name = "unseen"
    world.remove_component(wolf, CombatRules)
    assert dict(provider(world))[other] == "wolf"


async def test_the_hostile_check_names_whom_the_hostile_walk_names(hamlet: GameEngine) -> None:
    """``is_threat`` asks the RPG's check about the one entity: it answers as the
    walk of every hostile would, a removed rule and a destruction included."""
    facts = hamlet.services.get(QuestGen).facts
    [provider] = facts.threat_providers
    check = facts.threat_checks[provider]
    world = hamlet.world
    wolf, other, *_ = npcs(hamlet, "hamlet:wolf")
    world.remove_component(wolf, CombatRules)
    world.destroy_entity(other)
    named = {uid for uid, _ in provider(world)}
    everyone = [uid for uid, _ in world.each(NPC)] + [wolf, other, npc(hamlet, "hamlet:hollin")]
    assert {uid for uid in everyone if check(world, uid)} == named
    assert named
    assert all(facts.is_threat(uid) for uid in named)


async def test_reward_items_come_from_what_the_giver_owns(hamlet: GameEngine) -> None:
    qg = hamlet.services.get(QuestGen)
    hollin = npc(hamlet, "hamlet:hollin")
    factory = hamlet.services.get(ItemFactory)
    item = factory.spawn("hamlet:wolf_pelt")
    factory.add_to_inventory(item, hollin)
    quest = await _quest(hamlet)
    assert quest.rewards.item_template_ids == ["hamlet:wolf_pelt"]
    assert (await qg.validator.validate(quest)).valid
    assert RPG_ITEM_TIER_CAPS[DifficultyTier.MODERATE] == 2


async def test_a_rivalry_with_a_player_character_is_no_quest(hamlet: GameEngine) -> None:
    from maid_stdlib.world.characters import WorldCharacterFactory

    qg = hamlet.services.get(QuestGen)
    player = hamlet.services.get(WorldCharacterFactory).create_character("Quitter", "acct-quitter")
    pell = npc(hamlet, "hamlet:pell")
    signal = BasicSignal(
        "RIVALRY_ESCALATION",
        0.8,
        [pell, player],
        {"npc_a": str(pell), "npc_b": str(player), "cause": "a slight", "trust_level": -0.5},
    )
    assert isinstance(await qg.evaluator().evaluate(signal), Rejection)  # both sides must be NPCs
    signal = BasicSignal(
        "RIVALRY_ESCALATION",
        0.8,
        [player, pell],
        {
            "npc_a": str(npc(hamlet, "hamlet:tamsin")),
            "npc_b": str(pell),
            "cause": "the road",
            "trust_level": -0.4,
        },
    )
    seed = await qg.evaluator().evaluate(signal)
    assert not isinstance(seed, Rejection), seed
    assert seed.primary_npc != player
    assert player not in seed.involved_npcs


async def test_kills_match_by_kind_and_respawns_keep_them_grounded(hamlet: GameEngine) -> None:
    from classic_rpg.combat.components import PendingRespawn

    qg = hamlet.services.get(QuestGen)
    facts = qg.facts
    grey = npc(hamlet, "hamlet:old_grey")
    kill = QuestObjective(
        id="o1-kill",
        objective_type=ObjectiveType.KILL,
        description="Defeat Old Grey",
        target="Old Grey",
        target_entity_id=grey,
        target_entity_ids=[grey],
        target_template="hamlet:old_grey",
        quantity=1,
    )
    model = to_quest_model(dataclasses.replace(await _quest(hamlet), objectives=[kill]))
    assert model.objectives[0].target_id is None
    assert model.objectives[0].target_template == "hamlet:old_grey"
    assert facts.kind_available("hamlet:old_grey")
    assert facts.kind_available("hamlet:old_grey", dying=grey)  # Old Grey respawns
    hamlet.world.get_component(grey, Health).current = 0
    assert not facts.kind_available("hamlet:old_grey")  # dead, no respawn scheduled yet
    assert grounding_problems([kill], facts)
    hamlet.world.create_entity(PendingRespawn(template="hamlet:old_grey", room="x", due=1.0))
    assert facts.kind_available("hamlet:old_grey")
    assert grounding_problems([kill], facts) == []


def _grey_pelt() -> QuestObjective:
    """Collect a pelt only Old Grey drops (none lies about)."""
    return QuestObjective(
        id="o1-collect",
        objective_type=ObjectiveType.COLLECT,
        description="Obtain a grey pelt",
        target="grey pelt",
        item_template="hamlet:grey_pelt",
    )


async def test_loot_whose_only_dropper_respawns_keeps_an_offer_but_makes_no_new_quest(
    hamlet: GameEngine,
) -> None:
    from classic_rpg.combat.components import PendingRespawn
    from maid_stdlib.world.spawner import SpawnGates

    facts = hamlet.services.get(QuestGen).facts
    grey = npc(hamlet, "hamlet:old_grey")
    collect = _grey_pelt()
    assert grounding_problems([collect], facts) == []
    hamlet.world.get_component(grey, Health).current = 0
    assert grounding_problems([collect], facts)  # dead, no respawn scheduled yet
    hamlet.world.create_entity(PendingRespawn(template="hamlet:old_grey", room="x", due=1.0))
    # Old Grey will be back with a pelt: a quest already offered still stands ...
    assert facts.item_obtainable("hamlet:grey_pelt")
    assert grounding_problems([collect], facts) == []
    # ... but none is to be had now, so no new quest is made for it.
    assert not facts.item_supplied("hamlet:grey_pelt")
    assert facts.droppers_of("hamlet:grey_pelt") == []
    # A respawn held back (the pack driven off until it regroups) brings none.
    hamlet.services.get(SpawnGates).add(lambda template, room: template == "hamlet:old_grey")
    assert not facts.item_obtainable("hamlet:grey_pelt")
    assert grounding_problems([collect], facts)


async def test_the_rpg_allows_experience_as_an_extra_reward(hamlet: GameEngine) -> None:
    limits = hamlet.services.get(QuestGen).validator.limits
    assert limits.extra_reward_types == ALLOWED_REWARD_TYPES | RPG_EXTRA_REWARD_TYPES
    assert "xp" in limits.extra_reward_types
    assert "xp" not in ALLOWED_REWARD_TYPES


async def test_an_item_only_a_foe_drops_rates_the_quest_by_that_foe(hamlet: GameEngine) -> None:
    qg = hamlet.services.get(QuestGen)
    facts = qg.facts
    grey = npc(hamlet, "hamlet:old_grey")
    assert facts.droppers_of("hamlet:grey_pelt") == [grey]
    assert facts.item_room("hamlet:grey_pelt") is None  # none lies about
    seed = dataclasses.replace(await _seed(hamlet), estimated_difficulty=DifficultyTier.EASY)
    collect = _grey_pelt()
    builder = qg.builder(EchoNarrator())
    # The pelt is had only by fighting Old Grey (level 5): not an easy errand (the
    # valley's iron ore, once picked up, only from the bandit chief).
    grey_tier = facts.challenge.tier_of_threats([grey])
    assert grey_tier not in (None, DifficultyTier.EASY)
    assert builder._difficulty(seed, [collect]) == grey_tier
    # With Old Grey dead nobody drops it: the seed's own estimate stands.
    hamlet.world.get_component(grey, Health).current = 0
    assert facts.droppers_of("hamlet:grey_pelt") == []
    assert builder._difficulty(seed, [collect]) == DifficultyTier.EASY
