"""ObjectiveBuilder (10.1): grounding, entity checks, the registry, the mapping onto
the nine base types, and no context-dict fallback; every built-in pattern on a
real (constructed) world."""

from __future__ import annotations

import dataclasses
from uuid import uuid4

import pytest
from questgen.qgkit import Town, goal_signal, threat_signal

from maid_stdlib.questgen import (
    BasicSignal,
    ObjectiveBuilder,
    ObjectivePatterns,
    ObjectiveType,
    QuestObjective,
    QuestSeed,
    WorldFacts,
)
from maid_stdlib.questgen.objectives import grounding_problems
from maid_stdlib.questgen.rejection import Rejection

P = ObjectivePatterns


async def _seed(town: Town, signal: BasicSignal) -> QuestSeed:
    evaluator = town.qg.evaluator()
    seed = await evaluator.evaluate(signal)
    assert not isinstance(seed, Rejection), seed
    return seed


async def _build(town: Town, seed: QuestSeed, pattern: str) -> list[QuestObjective]:
    return await town.qg.objective_builder.build_objectives(seed, pattern, town.qg.facts)


def _kinds(objectives: list[QuestObjective]) -> list[tuple[int, str]]:
    return [(o.order, o.objective_type.value) for o in objectives]


async def test_clear_targets_the_real_threats_with_the_leader_last(town: Town) -> None:
    seeds = await town.qg.composer().compose(
        [goal_signal(town), threat_signal(town, threat_location="Darkwood")]
    )
    seed = seeds[0]
    assert seed.primary_npc == town.hilda
    objectives = await _build(town, seed, P.CLEAR)
    assert _kinds(objectives) == [(1, "talk"), (2, "visit"), (3, "kill"), (4, "kill"), (5, "talk")]
    talk, visit, wolves, alpha, report = objectives
    assert talk.target_entity_id == town.brann  # he watches the woods
    assert "wolves" in talk.description
    assert talk.hints == ["Captain Brann is usually found at the Barracks."]
    # What the captain saw has no words here: the answer says that she tells it.
    assert talk.reply == "Captain Brann tells you what she knows of the wolves."
    assert visit.description == "Travel to Darkwood"
    assert visit.target_location == "brookhaven:clearing"
    assert wolves.description == "Defeat 2 grey wolves"
    assert sorted(wolves.target_entity_ids) == sorted(town.wolves)
    assert wolves.quantity == 2
    assert wolves.target_template == "brookhaven:wolf"
    assert wolves.target_location == "brookhaven:clearing"
    assert alpha.target_entity_id == town.alpha
    assert alpha.description == "Defeat the alpha wolf"
    assert report.target_entity_id == seed.primary_npc
    assert [o.id for o in objectives] == ["o1-talk", "o2-visit", "o3-kill", "o4-kill", "o5-talk"]


async def test_an_informant_answers_with_the_word_they_hold_surest(town: Town) -> None:
    from maid_stdlib.living.gossip import GossipItem, learn

    seeds = await town.qg.composer().compose(
        [goal_signal(town), threat_signal(town, threat_location="Darkwood")]
    )
    for ident, content, confidence in (
        ("g1", "Wolves were heard near the mill.", 0.4),
        ("g2", "Wolves have been seen at the clearing in Darkwood.", 0.8),
        ("g3", "The miller owes everyone money.", 0.9),
    ):
        item = GossipItem(id=ident, content=content, confidence=confidence)
        learn(town.engine.world, town.brann, item)
    talk = (await _build(town, seeds[0], P.CLEAR))[0]
    assert talk.target_entity_id == town.brann
    assert talk.reply == (
        'Captain Brann says, "Wolves have been seen at the clearing in Darkwood."'
    )


async def test_clear_without_real_threats_builds_nothing(town: Town) -> None:
    seed = await _seed(town, threat_signal(town))
    seed.threat_source = "dragons"
    assert await _build(town, seed, P.CLEAR) == []
    seed.threat_source = None  # a required typed field is missing: not even tried
    assert not town.qg.objective_builder.can_build(P.CLEAR, seed)
    assert await _build(town, seed, P.CLEAR) == []


async def test_no_context_dict_fallback(town: Town) -> None:
    seed = await _seed(town, threat_signal(town))
    assert not hasattr(seed, "context")
    # The builder never looks at the signal's context: dropping every context value
    # after the seed was built changes nothing.
    for signal in seed.source_signals:
        assert isinstance(signal, BasicSignal)
        signal.context.clear()
    assert len(await _build(town, seed, P.CLEAR)) == 5


async def test_investigation_asks_people_who_know_and_searches(town: Town) -> None:
    from maid_stdlib.living.memory import EpisodicMemory, MemoryVisibility
    from maid_stdlib.living.service import LivingWorld

    living = town.engine.services.get(LivingWorld)
    living.memory.add(
        EpisodicMemory(
            npc_id=town.tam,
            content="I heard the ruins in the den glow at night",
            visibility=MemoryVisibility.PUBLIC,
        )
    )
    seed = await _seed(
        town,
        BasicSignal(
            "DISCOVERY",
            0.8,
            [town.brann],
            {"discovery_type": "ruins", "discovery_location": "brookhaven:den"},
        ),
    )
    objectives = await _build(town, seed, P.INVESTIGATE)
    first = objectives[0]
    assert first.objective_type is ObjectiveType.TALK
    assert first.target_entity_id == town.tam
    assert any(
        o.objective_type is ObjectiveType.VISIT and o.target_location == "brookhaven:den"
        for o in objectives
    )
    assert objectives[-1].target_entity_id == town.brann
    assert objectives[-1].order == 3


async def test_investigation_leaves_out_a_search_where_the_giver_stands(town: Town) -> None:
    """Orla finds her takings gone from the market where she keeps her stall: sent
    to "search the market" the hero would be done the moment she asks, so the case
    rests on who knows something and on the suspect."""
    signal = BasicSignal(
        "BETRAYAL",
        0.8,
        [town.orla],
        {"betrayer": str(town.tam), "victim": str(town.orla), "evidence_location": "market"},
    )
    seed = await _seed(town, signal)
    assert seed.primary_npc == town.orla
    assert seed.evidence_location == "brookhaven:market" == town.qg.facts.room_of(town.orla)
    objectives = await _build(town, seed, P.INVESTIGATE)
    assert objectives, "the people who know something still make a case"
    assert not any(o.objective_type is ObjectiveType.VISIT for o in objectives)
    assert objectives[-1].target_entity_id == town.orla
    assert any(o.target_entity_id == town.tam for o in objectives[:-1])
    # Elsewhere the evidence is searched.
    seed.evidence_location = "brookhaven:mill"
    objectives = await _build(town, seed, P.INVESTIGATE)
    assert [o.target_location for o in objectives if o.objective_type is ObjectiveType.VISIT] == [
        "brookhaven:mill"
    ]


async def test_negotiation_hears_both_sides_and_has_a_decision(town: Town) -> None:
    seed = await _seed(
        town,
        BasicSignal(
            "RIVALRY_ESCALATION",
            0.8,
            [town.tam],
            {
                "npc_a": str(town.orla),
                "npc_b": str(town.brann),
                "cause": "the market tax",
                "trust_level": -0.5,
            },
        ),
    )
    objectives = await _build(town, seed, P.NEGOTIATE)
    assert _kinds(objectives) == [(1, "talk"), (1, "talk"), (2, "custom"), (3, "talk")]
    assert {objectives[0].target_entity_id, objectives[1].target_entity_id} == {
        town.orla,
        town.brann,
    }
    decision = objectives[2]
    assert decision.choice
    assert "Orla and Captain Brann" in decision.description
    assert objectives[3].target_entity_id == town.tam
    choice = await _build(town, seed, P.CHOICE)
    assert [o.choice for o in choice] == [False, False, True, False]


async def test_escort_finds_the_victim_fights_and_brings_them_home(town: Town) -> None:
    town.qg.facts.ws.move(town.tam, "brookhaven:den")
    seed = await _seed(
        town,
        BasicSignal(
            "CRISIS",
            0.9,
            [town.orla],
            {
                "crisis_type": "kidnapped",
                "affected_area": "Darkwood",
                "severity": 0.9,
                "victim": str(town.tam),
                "threat_source": "wolves",
            },
        ),
    )
    assert seed.seed_type == "rescue"
    assert seed.rescue_target == town.tam
    objectives = await _build(town, seed, P.ESCORT)
    assert _kinds(objectives) == [(1, "visit"), (2, "kill"), (3, "escort"), (4, "talk")]
    escort = objectives[2]
    assert escort.target_entity_id == town.tam
    assert escort.target_location == "brookhaven:market"  # back to Orla


async def test_item_patterns_use_obtainable_items_only(town: Town) -> None:
    seed = await _seed(town, goal_signal(town))
    seed.item_template = "brookhaven:iron_ore"
    fetch = await _build(town, seed, P.FETCH)
    assert _kinds(fetch) == [(1, "visit"), (2, "collect"), (3, "deliver")]
    assert fetch[1].quantity == 2
    assert fetch[1].target_location == "brookhaven:clearing"
    assert fetch[2].target_entity_id == town.hilda
    craft = await _build(town, seed, P.CRAFT_AND_DELIVER)
    assert [o.objective_type for o in craft] == [ObjectiveType.COLLECT, ObjectiveType.DELIVER]
    # Asked first, a supplier says where the material lies: where the next step goes.
    seed.supplier = town.orla
    ask = (await _build(town, seed, P.CRAFT_AND_DELIVER))[0]
    assert (ask.objective_type, ask.target_entity_id) == (ObjectiveType.TALK, town.orla)
    assert ask.reply == "Orla tells you lumps of iron ore can be had at a Clearing."
    seed.supplier = None
    seed.recipient = town.orla
    seed.item_template = "brookhaven:letter"
    deliver = await _build(town, seed, P.DELIVER)
    assert _kinds(deliver) == [(1, "collect"), (2, "deliver"), (3, "talk")]
    assert deliver[1].target_entity_id == town.orla
    seed.item_template = "brookhaven:unicorn_horn"
    assert await _build(town, seed, P.FETCH) == []
    assert await _build(town, seed, P.DELIVER) == []


async def test_every_builtin_pattern_maps_to_the_nine_base_types(town: Town) -> None:
    builder = town.qg.objective_builder
    assert set(builder.patterns()) >= {
        P.CLEAR,
        P.INVESTIGATE,
        P.NEGOTIATE,
        P.ESCORT,
        P.DELIVER,
        P.FETCH,
        P.CRAFT_AND_DELIVER,
        P.CHOICE,
    }
    seed = await _seed(town, threat_signal(town))
    for objective in await _build(town, seed, P.CLEAR):
        assert isinstance(objective.objective_type, ObjectiveType)


async def test_custom_builders_register_and_may_be_async(town: Town) -> None:
    builder = town.qg.objective_builder

    async def stealth(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
        return [
            QuestObjective(
                objective_type=ObjectiveType.VISIT,
                description="Sneak into the den",
                target="The Wolf Den",
                target_location="brookhaven:den",
                order=1,
            )
        ]

    builder.register("stealth", stealth, requires=("threat_source",))
    with pytest.raises(ValueError, match="already registered"):
        builder.register("stealth", stealth)
    with pytest.raises(ValueError, match=r"not QuestSeed fields: \['no_such_field'\]"):
        builder.register("other", stealth, requires=("no_such_field",))
    seed = await _seed(town, threat_signal(town))
    built = await _build(town, seed, "stealth")
    assert [o.id for o in built] == ["o1-visit"]
    with pytest.raises(ValueError, match="No builder registered"):
        await _build(town, seed, "teleport")


async def test_objectives_naming_unreal_things_void_the_list(town: Town) -> None:
    builder: ObjectiveBuilder = town.qg.objective_builder
    seed = await _seed(town, threat_signal(town))
    good = QuestObjective(
        objective_type=ObjectiveType.TALK,
        description="Talk to Orla",
        target="Orla",
        target_entity_id=town.orla,
        order=1,
    )
    cases = [
        dataclasses.replace(good, target_entity_id=uuid4()),  # no such entity
        dataclasses.replace(good, target_location="brookhaven:moon"),  # no such room
        QuestObjective(
            objective_type=ObjectiveType.KILL,
            description="Kill",
            target="x",
            target_entity_ids=[town.wolves[0]],
            quantity=2,
        ),  # only one exists
        QuestObjective(
            objective_type=ObjectiveType.COLLECT,
            description="Get",
            target="x",
            item_template="brookhaven:nothing",
        ),  # not obtainable
        QuestObjective(objective_type="fly", description="Fly", target="x"),  # type: ignore[arg-type]
    ]
    for case in cases:

        def bad(s: QuestSeed, f: WorldFacts, case: QuestObjective = case) -> list[QuestObjective]:
            return [good, case]

        builder.register("bad", bad, replace=True)
        assert await builder.build_objectives(seed, "bad", town.qg.facts) == [], case
    builder.register("bad", lambda s, f: [good], replace=True)
    assert len(await builder.build_objectives(seed, "bad", town.qg.facts)) == 1


async def test_builders_ask_only_for_what_can_be_picked_up_and_reached(town: Town) -> None:
    seed = await _seed(town, goal_signal(town))
    seed.recipient = town.orla
    seed.item_template = "brookhaven:letter"
    assert await _build(town, seed, P.DELIVER)
    facts = town.qg.facts
    # A rules layer says the letter is fixed in place: nobody is sent to get it.
    facts.portable_checks.append(lambda _item: False)
    try:
        assert not facts.item_obtainable("brookhaven:letter")
        assert await _build(town, seed, P.DELIVER) == []
    finally:
        facts.portable_checks.clear()
    # Nobody gets to the island: an objective there, or with a target there, is not
    # feasible for a player starting at the giver.
    talk = QuestObjective(
        objective_type=ObjectiveType.TALK,
        description="Talk to the hermit",
        target="the hermit",
        target_entity_id=town.hermit,
        order=1,
    )
    problems = grounding_problems([talk], facts, origin="brookhaven:forge")
    assert problems == [
        "objective 'Talk to the hermit': its target is in 'brookhaven:island', out of reach"
    ]
    visit = dataclasses.replace(
        talk,
        objective_type=ObjectiveType.VISIT,
        target_entity_id=None,
        target_location="brookhaven:island",
    )
    assert (
        "cannot be reached from 'brookhaven:forge'"
        in grounding_problems([visit], facts, origin="brookhaven:forge")[0]
    )
    assert grounding_problems([talk], facts) == []


async def test_multi_stage_clears_the_way_then_brings_the_thing_back(town: Town) -> None:
    seeds = await town.qg.composer().compose(
        [goal_signal(town), threat_signal(town, threat_location="Darkwood")]
    )
    seed = seeds[0]
    # What Hilda's blocked goal is after is a thing one can carry.
    assert seed.item_template == "brookhaven:iron_ore"
    objectives = await _build(town, seed, P.MULTI_STAGE)
    # The threat's stage without its report, then the fetch, each after the last.
    assert _kinds(objectives) == [
        (1, "talk"),
        (2, "visit"),
        (3, "kill"),
        (4, "kill"),
        (5, "visit"),
        (6, "collect"),
        (7, "deliver"),
    ]
    first = "Stage 1 of 2: Deal with the wolves"
    second = "Stage 2 of 2: Bring back lumps of iron ore"
    assert [o.stage for o in objectives] == [first] * 4 + [second] * 3
    # One return to the giver, at the very end: the delivery.
    giver_steps = [o for o in objectives if o.target_entity_id == seed.primary_npc]
    assert [o.objective_type for o in giver_steps] == [ObjectiveType.DELIVER]
    assert len({o.id for o in objectives}) == len(objectives)


async def test_multi_stage_needs_two_stages_the_world_grounds(town: Town) -> None:
    seeds = await town.qg.composer().compose(
        [goal_signal(town), threat_signal(town, threat_location="Darkwood")]
    )
    seed = seeds[0]
    seed.item_template = None
    assert not town.qg.objective_builder.can_build(P.MULTI_STAGE, seed)  # no item
    seed.item_template = "brookhaven:unicorn_horn"  # nobody can get one
    assert await _build(town, seed, P.MULTI_STAGE) == []
    seed.item_template = "brookhaven:iron_ore"
    seed.threat_source = "dragons"  # no such threat: the way is not blocked
    assert await _build(town, seed, P.MULTI_STAGE) == []
