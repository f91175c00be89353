"""Coherence rules: the structural failures players noticed are caught on the plan,
named, and scored -- the giver as its own step, a step done on offer, sides nobody
set against each other, a placeholder subject, a repeated title."""

from __future__ import annotations

import dataclasses
from uuid import UUID

from kits.narrators import EchoNarrator
from questgen.qgkit import Town, iron_quest

from maid_engine.clock import GAME_DAY
from maid_stdlib.living.components import Relationship, Relationships
from maid_stdlib.questgen import (
    GeneratedQuest,
    ObjectiveType,
    QuestObjective,
    QuestSeed,
)
from maid_stdlib.questgen.archetypes import QuestArchetype
from maid_stdlib.questgen.coherence import COHERENCE_RULES
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.scoring import score_coherence
from maid_stdlib.questgen.signals import BasicSignal
from maid_stdlib.questgen.types import BranchingPattern, ObjectivePatterns, QuestSeedTypes


def rules(town: Town, quest: GeneratedQuest, seed: QuestSeed | None = None) -> list[str]:
    return [i.rule for i in town.qg.validator.check_plan(quest, seed)]


def talk(target: UUID, order: int, name: str = "x") -> QuestObjective:
    return QuestObjective(
        objective_type=ObjectiveType.TALK,
        description=f"Talk to {name}",
        target=name,
        target_entity_id=target,
        order=order,
    )


async def rivalry_seed(town: Town, a: UUID, b: UUID, **extra: object) -> QuestSeed:
    signal = BasicSignal(
        "RIVALRY_ESCALATION",
        0.8,
        [a, b],
        {"npc_a": str(a), "npc_b": str(b), "cause": "iron prices", "trust_level": -0.4, **extra},
    )
    seed = await town.qg.evaluator().evaluate(signal)
    assert not isinstance(seed, Rejection), seed
    return seed


def mediate(town: Town) -> QuestArchetype:
    archetype = town.qg.archetypes.get("mediate")
    assert archetype is not None
    return archetype


async def test_a_built_quest_breaks_no_rule(town: Town) -> None:
    quest = await iron_quest(town)
    assert rules(town, quest) == []
    assert quest.coherence_score == 1.0
    assert COHERENCE_RULES == (
        "giver_is_own_target",
        "already_satisfied",
        "sides_not_in_conflict",
        "placeholder_subject",
        "title_repeated",
    )


async def test_the_giver_is_never_a_step_of_its_own_quest_but_the_last(town: Town) -> None:
    quest = await iron_quest(town)
    own = dataclasses.replace(quest, objectives=[talk(town.hilda, 0, "Hilda"), *quest.objectives])
    issues = town.qg.validator.check_plan(own)
    assert [i.rule for i in issues] == ["giver_is_own_target"]
    assert "Hilda gives the quest and is also step 0" in issues[0].reason
    result = await town.qg.validator.validate(own)
    assert not result.valid
    assert any(e.startswith("Incoherent (giver_is_own_target): ") for e in result.errors)
    # Re-checked as an offer already out (the grounding monitor), it is not judged again.
    assert (await town.qg.validator.validate(own, offered=True)).valid


async def test_a_giver_who_is_a_side_tells_theirs_when_asking(town: Town) -> None:
    # Hilda and Brann quarrel and nobody else is named: Hilda gives the quest. The
    # plan does not send the hero to hear Hilda's side in Hilda's own quest.
    seed = await rivalry_seed(town, town.hilda, town.brann)
    assert seed.primary_npc == town.hilda
    plan = await town.qg.builder(EchoNarrator()).prepare(seed, mediate(town))
    assert not isinstance(plan, Rejection), plan
    talks = [o for o in plan.objectives if o.objective_type is ObjectiveType.TALK]
    assert [o.target_entity_id for o in talks] == [town.brann, town.hilda]
    assert [o.order for o in plan.objectives] == [1, 2, 3]
    assert rules(town, town.qg.builder().draft(plan), seed) == []


async def test_a_step_done_the_moment_it_is_offered_is_caught(town: Town) -> None:
    quest = await iron_quest(town)
    forge = town.qg.facts.room_of(town.hilda)
    assert forge is not None
    visit = QuestObjective(
        objective_type=ObjectiveType.VISIT,
        description="Travel to the forge",
        target="Forge",
        target_location=forge,
        order=1,
    )
    there = dataclasses.replace(quest, objectives=[visit, *quest.objectives])
    issues = town.qg.validator.check_plan(there)
    assert [i.rule for i in issues] == ["already_satisfied"]
    assert "where Hilda offers the quest" in issues[0].reason


async def test_sides_must_be_set_against_each_other(town: Town) -> None:
    seed = await rivalry_seed(town, town.brann, town.orla)
    plan = await town.qg.builder(EchoNarrator()).prepare(seed, mediate(town))
    assert not isinstance(plan, Rejection), plan
    draft = town.qg.builder().draft(plan)
    # The rivalry signal made the seed: they are at odds.
    assert rules(town, draft, seed) == []
    # The same two as the sides of a follow-up nothing set them against.
    follow = dataclasses.replace(
        seed, seed_type=QuestSeedTypes.CONSEQUENCE_CHAIN, subject="the mill's debts"
    )
    issues = town.qg.validator.check_plan(draft, follow)
    assert [i.rule for i in issues] == ["sides_not_in_conflict"]
    assert "nothing sets Captain Brann and Orla against each other" in issues[0].reason
    # A relationship that says so is enough.
    town.engine.world.add_component(
        town.orla, Relationships({str(town.brann): Relationship(trust=-0.3, kind="rival")})
    )
    assert rules(town, draft, follow) == []
    # Allies by an alliance are never two sides of a choice, whatever else they feel.
    allies = dataclasses.replace(follow, seed_type=QuestSeedTypes.ALLIANCE_QUEST)
    issues = town.qg.validator.check_plan(draft, allies)
    assert [i.rule for i in issues] == ["sides_not_in_conflict"]
    assert "are allies" in issues[0].reason
    forming = dataclasses.replace(
        follow,
        source_signals=[BasicSignal("ALLIANCE_FORMING", 0.6, [town.brann, town.orla], {})],
    )
    assert rules(town, draft, forming) == ["sides_not_in_conflict"]


async def test_a_placeholder_subject_is_no_situation(town: Town) -> None:
    seed = await rivalry_seed(town, town.brann, town.orla)
    plan = await town.qg.builder(EchoNarrator()).prepare(seed, mediate(town))
    assert not isinstance(plan, Rejection), plan
    draft = town.qg.builder().draft(plan)
    leaked = dataclasses.replace(seed, subject="follow_up")
    issues = town.qg.validator.check_plan(draft, leaked)
    assert [i.rule for i in issues] == ["placeholder_subject"]
    assert "'follow_up' is an identifier" in issues[0].reason
    chained = dataclasses.replace(
        seed,
        seed_type=QuestSeedTypes.CONSEQUENCE_CHAIN,
        subject=None,
        chain_parent_id="gen-mediate-1",
    )
    issues = town.qg.validator.check_plan(draft, chained)
    assert "placeholder_subject" in [i.rule for i in issues]
    assert any("gen-mediate-1 names no situation" in i.reason for i in issues)


async def test_a_title_is_not_reused_by_the_giver_nor_by_anyone_the_same_day(
    town: Town,
) -> None:
    first = dataclasses.replace(await iron_quest(town), title="A Call to Arms")
    town.qg.history.record(first, town.now)
    again = dataclasses.replace(first, id="gen-clear_out-2", title="a call to  ARMS")
    # The quest itself, re-checked, does not collide with its own title.
    assert rules(town, first) == []
    issues = town.qg.validator.check_plan(again)
    assert [i.rule for i in issues] == ["title_repeated"]
    assert "'a call to  ARMS' was used by Hilda lately" in issues[0].reason
    # Another giver, the same day: still taken.
    other = dataclasses.replace(again, quest_giver_id=town.orla)
    assert rules(town, other) == ["title_repeated"]
    # A day later it is free for another giver, but not for Hilda (her last five).
    town.skip(GAME_DAY + 60)
    other = dataclasses.replace(other, created_at=town.now)
    assert rules(town, other) == []
    again = dataclasses.replace(again, created_at=town.now)
    assert rules(town, again) == ["title_repeated"]
    # The plan hands the taken titles to the narrative.
    assert "A Call to Arms" in town.qg.validator.coherence.taken_titles(town.hilda, town.now)


async def test_the_coherence_score_fails_with_a_broken_rule(town: Town) -> None:
    quest = await iron_quest(town)
    archetype = town.qg.archetypes.get("clear_out")
    assert archetype is not None
    assert score_coherence(quest, archetype) == (1.0, [])
    score, failed = score_coherence(quest, archetype, ["giver_is_own_target"])
    assert score < 0.7
    assert failed == ["giver_is_own_target"]
    # The builder scores what the rules find.
    builder = town.qg.builder(EchoNarrator())
    seed = await rivalry_seed(town, town.brann, town.orla)
    follow = dataclasses.replace(
        seed, seed_type=QuestSeedTypes.CONSEQUENCE_CHAIN, subject="the mill's debts"
    )
    built = await builder.build(follow, mediate(town))
    assert isinstance(built, Rejection)
    assert built.stage == "scores"
    assert built.rules == ("sides_not_in_conflict",)
    assert "sides_not_in_conflict" in built.reason


async def test_allies_get_a_message_to_carry_not_a_side_to_take(town: Town) -> None:
    signal = BasicSignal(
        "ALLIANCE_FORMING",
        0.7,
        [town.hilda, town.brann],
        {"allied_npcs": [str(town.hilda), str(town.brann)], "common_threat": "wolves"},
    )
    seed = await town.qg.evaluator().evaluate(signal)
    assert not isinstance(seed, Rejection), seed
    assert seed.seed_type == QuestSeedTypes.ALLIANCE_QUEST
    builder = town.qg.builder(EchoNarrator())
    # Two allies as the sides of a dispute: refused on the plan.
    plan = await builder.prepare(seed, mediate(town))
    assert not isinstance(plan, Rejection), plan
    issues = town.qg.validator.check_plan(builder.draft(plan), seed)
    assert [i.rule for i in issues] == ["sides_not_in_conflict"]
    assert "are allies" in issues[0].reason
    # The envoy: word to the other ally, the answer back to the giver.
    envoy = dataclasses.replace(
        mediate(town),
        archetype_id="envoy",
        objective_pattern=ObjectivePatterns.ENVOY,
        branching=BranchingPattern.LINEAR,
        compatible_seed_types=[QuestSeedTypes.ALLIANCE_QUEST],
    )
    plan = await builder.prepare(seed, envoy)
    assert not isinstance(plan, Rejection), plan
    assert [(o.description, o.order) for o in plan.objectives] == [
        # The captain's own pronouns ("she" in the data), not "them".
        ("Tell Captain Brann that Hilda will stand with her against the wolves", 1),
        ("Report back to Hilda with Captain Brann's answer", 2),
    ]
    # The answer the hero carries back, in the ally's words, naming only the step's facts.
    assert [o.reply for o in plan.objectives] == [
        'Captain Brann says, "Tell Hilda I will stand with them against the wolves."',
        "",
    ]
    assert rules(town, builder.draft(plan), seed) == []
    # A giver who is not one of the allies has no word of their own to send.
    other = dataclasses.replace(seed, primary_npc=town.orla)
    built = await town.qg.objective_builder.build_objectives(
        other, ObjectivePatterns.ENVOY, town.qg.facts
    )
    assert built == []


async def test_a_clause_is_no_topic_for_the_dispute_over(town: Town) -> None:
    builder = town.qg.builder(EchoNarrator())
    short = await rivalry_seed(town, town.brann, town.orla)
    plan = await builder.prepare(short, mediate(town))
    assert not isinstance(plan, Rejection), plan
    assert plan.objectives[0].description == "Hear Orla's side of the dispute over iron prices"
    assert plan.objectives[0].reply == "Orla gives you their side of the dispute over iron prices."
    # "the dispute over Orla blames the captain for ..." would not be English.
    long = await rivalry_seed(
        town, town.brann, town.orla, cause="Orla blames the captain for the wolves"
    )
    plan = await builder.prepare(long, mediate(town))
    assert not isinstance(plan, Rejection), plan
    assert plan.objectives[0].description == "Hear Orla's side of the dispute"
