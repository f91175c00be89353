"""QuestQualityFilter (10.1): the anti-patterns, history-aware, per-region density."""

from __future__ import annotations

import dataclasses
from uuid import uuid4

from kits.narrators import EchoNarrator
from questgen.qgkit import Town, goal_signal, iron_quest, threat_signal

from maid_engine.clock import GAME_DAY
from maid_stdlib.questgen import AntiPattern, GeneratedQuest, ObjectivePatterns, QuestArchetype
from maid_stdlib.questgen.rejection import Rejection


def _past(town: Town, quest: GeneratedQuest, **changes: object) -> GeneratedQuest:
    """Record a variant of ``quest`` as if generated now."""
    fields: dict[str, object] = {"id": f"gen-past-{uuid4().hex[:8]}", "created_at": town.now}
    fields.update(changes)
    past = dataclasses.replace(quest, **fields)  # type: ignore[arg-type]
    town.qg.record(past)
    return past


async def test_a_fresh_quest_passes(town: Town) -> None:
    quest = await iron_quest(town)
    assert town.qg.quality_filter.check(quest) == []
    assert town.qg.quality_filter.filter(quest)


async def test_combat_fatigue_after_two_combat_quests(town: Town) -> None:
    quest = await iron_quest(town)
    qf = town.qg.quality_filter
    _past(town, quest, quest_giver_id=town.tam, area=None, region=None)
    assert "combat_fatigue" not in qf.check(quest)
    _past(town, quest, quest_giver_id=town.orla, area=None, region=None)
    assert "combat_fatigue" in qf.check(quest)
    # A non-combat quest in between breaks the streak.
    _past(town, quest, archetype_id="inquiry", quest_giver_id=town.tam, area=None, region=None)
    assert "combat_fatigue" not in qf.check(quest)


async def test_fetch_loop_reads_pack_archetypes_from_the_registry(town: Town) -> None:
    quest = await iron_quest(town)
    # The test changes a registry of the running engine (the seam a reload would use).
    town.engine.registries.unlock()
    town.qg.register_archetype(
        QuestArchetype(
            archetype_id="courier",
            name="Courier",
            objective_pattern=ObjectivePatterns.DELIVER,
            compatible_seed_types=["trade_mission"],
        )
    )
    errand = dataclasses.replace(quest, archetype_id="errand")
    qf = town.qg.quality_filter
    _past(town, quest, archetype_id="courier", quest_giver_id=town.tam, area=None, region=None)
    _past(town, quest, archetype_id="errand", quest_giver_id=town.orla, area=None, region=None)
    assert "fetch_loop" in qf.check(errand)
    assert "fetch_loop" not in qf.check(quest)


async def test_npc_monopoly_per_game_day(town: Town) -> None:
    quest = await iron_quest(town)
    qf = town.qg.quality_filter
    _past(town, quest, area=None, region=None, archetype_id="inquiry")
    assert "npc_monopoly" not in qf.check(quest)
    _past(town, quest, area=None, region=None, archetype_id="inquiry")
    assert "npc_monopoly" in qf.check(quest)
    town.skip(GAME_DAY + 1)
    later = dataclasses.replace(quest, created_at=town.now)
    assert "npc_monopoly" not in qf.check(later)


async def test_location_repetition_and_region_density(town: Town) -> None:
    quest = await iron_quest(town)
    qf = town.qg.quality_filter
    for giver in (town.tam, town.orla, town.brann):
        _past(town, quest, quest_giver_id=giver, archetype_id="inquiry")
    matched = qf.check(quest)
    assert "location_repetition" in matched  # three quests in Darkwood today
    assert "region_density" in matched  # three active in the wilds
    for entry in town.qg.history.entries():
        town.qg.history.mark_finished(entry.quest_id, "completed", town.now)
    assert "region_density" not in qf.check(quest)


async def test_impossible_time_limits(town: Town) -> None:
    quest = await iron_quest(town)
    qf = town.qg.quality_filter
    rushed = dataclasses.replace(quest, time_limit=0.5, estimated_duration_minutes=90)
    assert qf.check(rushed) == ["impossible_quest"]
    assert qf.check(dataclasses.replace(rushed, time_limit=2.0)) == []


async def test_packs_add_their_own_anti_patterns(town: Town) -> None:
    quest = await iron_quest(town)
    qf = town.qg.quality_filter
    qf.add(AntiPattern("no_wolves", lambda q, f: "wolves" in q.detailed_description.lower()))
    assert qf.check(quest) == ["no_wolves"]


async def test_the_structure_is_judged_on_the_plan_before_any_prose(town: Town) -> None:
    seeds = await town.qg.composer().compose(
        [goal_signal(town), threat_signal(town, threat_location="Darkwood")]
    )
    arch = town.qg.archetypes.get("clear_out")
    assert seeds
    assert arch is not None
    builder = town.qg.builder(EchoNarrator())
    plan = await builder.prepare(seeds[0], arch)
    assert not isinstance(plan, Rejection), plan
    draft = builder.draft(plan)
    # The draft is the quest without words: no title, no text, not a real id.
    assert (draft.title, draft.detailed_description, draft.id) == ("", "", "plan-clear_out")
    assert draft.objectives == plan.objectives
    qf = town.qg.quality_filter
    assert qf.check_plan(draft) == []
    for giver in (town.tam, town.orla, town.brann):
        _past(town, draft, quest_giver_id=giver, archetype_id="inquiry")
    # Region density is left to the caller (a full region makes the seed wait).
    assert qf.check_plan(draft) == ["location_repetition"]
    # A pattern that reads prose waits for the prose.
    qf.add(AntiPattern("no_wolves", lambda q, f: "wolves" in q.title.lower(), reads_text=True))
    assert qf.check_plan(draft) == ["location_repetition"]
    assert "no_wolves" in qf.check(dataclasses.replace(draft, title="Wolves!"))
