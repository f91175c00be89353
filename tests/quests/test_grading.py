"""Outcome grades, including the heal-before-turn-in exploit."""

from __future__ import annotations

from uuid import UUID

import pytest
from kits.engines import qm
from kits.heroes import Recorder, new_character
from quests.questkit import npc, place, progress, quest, start

from classic_rpg.combat.service import CombatService
from classic_rpg.components import CharacterStats, Health, Inventory
from classic_rpg.items.factory import ItemFactory
from classic_rpg.systems.quests import QuestEntry, QuestError, QuestProgressTracker
from classic_rpg.systems.quests.grading import grade_outcome
from classic_rpg.systems.quests.questlog import ObjectiveProgress
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.questgen.events import QuestFailedEvent, QuestTurnedInEvent
from maid_stdlib.questgen.vocabulary import FailReason, QuestOutcome, QuestState

YARD = {"objective_id": "yard", "objective_type": "visit", "destination_room_id": "qtest:yard"}
GATE = {"objective_id": "gate", "objective_type": "visit", "destination_room_id": "qtest:gate"}
CAMP = {
    "objective_id": "camp",
    "objective_type": "visit",
    "destination_room_id": "qtest:camp",
    "required": False,
}


async def finish_yard(engine: GameEngine, hero: UUID) -> None:
    await cmd(engine, hero, "north")
    await cmd(engine, hero, "south")


async def turn_in(engine: GameEngine, hero: UUID) -> QuestOutcome:
    rec = Recorder(engine, QuestTurnedInEvent)
    outcome: QuestOutcome = await qm(engine).turn_in_quest(hero, "test-quest")
    await engine.dispatch_events()
    assert rec.of(QuestTurnedInEvent)[0].outcome is outcome  # the grade travels on the event
    return outcome


def hurt(engine: GameEngine, hero: UUID, amount: int) -> None:
    """A blow from the pilgrim, not a fight: the hero walks on to finish (nobody
    walks out of a fight)."""
    combat = engine.services.get(CombatService)
    combat.apply_damage(hero, amount, npc("pilgrim"))
    combat.disengage(hero)


async def test_perfect_when_optional_objectives_are_done_too(engine: GameEngine) -> None:
    hero = new_character(engine)
    await start(engine, hero, quest("test-quest", YARD, CAMP))
    await finish_yard(engine, hero)
    place(engine, hero, "camp")
    place(engine, hero, "hall")
    await engine.dispatch_events()
    assert await turn_in(engine, hero) is QuestOutcome.PERFECT


async def test_completed_when_an_optional_objective_is_not(engine: GameEngine) -> None:
    hero = new_character(engine)
    await start(engine, hero, quest("test-quest", YARD, CAMP))
    await finish_yard(engine, hero)
    assert await turn_in(engine, hero) is QuestOutcome.COMPLETED


async def test_partial_success_turn_in_pays_half_and_no_items(engine: GameEngine) -> None:
    hero = new_character(engine)
    q = quest(
        "test-quest",
        YARD,
        GATE,
        {**CAMP, "required": True},
        {"objective_id": "x", "objective_type": "custom"},
        partial_turn_in=True,
        rewards={"experience": 10, "gold": 20, "item_template_ids": ["qtest:ring"]},
    )
    await start(engine, hero, q)
    await finish_yard(engine, hero)
    with pytest.raises(QuestError, match="not finished"):
        await qm(engine).turn_in_quest(hero, "test-quest")  # 1 of 4 is below half
    qm(engine).complete_custom(hero, "test-quest", "x")
    stats = engine.world.get_component(hero, CharacterStats)
    xp, gold = stats.experience, stats.gold
    assert await turn_in(engine, hero) is QuestOutcome.PARTIAL_SUCCESS
    assert (stats.experience, stats.gold) == (xp + 5, gold + 10)
    assert engine.world.get_component(hero, Inventory).items == []


async def test_pyrrhic_when_health_fell_to_a_tenth(engine: GameEngine) -> None:
    hero = new_character(engine)
    await start(engine, hero, quest("test-quest", YARD))
    health = engine.world.get_component(hero, Health)
    hurt(engine, hero, health.maximum - health.maximum // 10)  # exactly 10% left
    await engine.dispatch_events()
    await finish_yard(engine, hero)
    assert await turn_in(engine, hero) is QuestOutcome.PYRRHIC_VICTORY
    # The grade is explained where it is shown.
    told = session_for(engine, hero).text()
    assert "(pyrrhic victory)" in told
    assert "A pyrrhic victory: you won, but you came close to dying on the way" in told
    assert "(Type 'help pyrrhic'.)" in told


async def test_healing_before_turn_in_does_not_hide_the_cost(engine: GameEngine) -> None:
    hero = new_character(engine)
    await start(engine, hero, quest("test-quest", YARD))
    health = engine.world.get_component(hero, Health)
    hurt(engine, hero, health.maximum - 2)
    await engine.dispatch_events()
    engine.services.get(ItemFactory).spawn("qtest:tonic", holder=hero)
    await cmd(engine, hero, "drink tonic")
    assert health.current == health.maximum
    await engine.run_ticks(30)  # and regenerate, for good measure
    await finish_yard(engine, hero)
    entry = qm(engine).entry(hero, "test-quest")
    assert entry is not None
    assert QuestProgressTracker(entry).lowest_health_pct == pytest.approx(2 / health.maximum)
    assert await turn_in(engine, hero) is QuestOutcome.PYRRHIC_VICTORY


async def test_light_wounds_and_damage_before_accepting_do_not_count(
    engine: GameEngine,
) -> None:
    hero = new_character(engine)
    health = engine.world.get_component(hero, Health)
    hurt(engine, hero, health.maximum - 1)  # before the quest
    await engine.dispatch_events()
    health.current = health.maximum
    await start(engine, hero, quest("test-quest", YARD))
    hurt(engine, hero, health.maximum // 2)
    await engine.dispatch_events()
    assert progress(engine, hero, "yard").lowest_health_pct == pytest.approx(0.5, abs=0.05)
    await finish_yard(engine, hero)
    assert await turn_in(engine, hero) is QuestOutcome.PERFECT


async def test_dying_during_the_quest_is_pyrrhic(engine: GameEngine) -> None:
    hero = new_character(engine)
    await start(engine, hero, quest("test-quest", YARD))
    hurt(engine, hero, 10_000)
    await engine.run_ticks(1)
    place(engine, hero, "yard")
    place(engine, hero, "hall")
    await engine.dispatch_events()
    assert await turn_in(engine, hero) is QuestOutcome.PYRRHIC_VICTORY


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (15, QuestOutcome.PERFECT),
        (25, QuestOutcome.PYRRHIC_VICTORY),
    ],
)
async def test_twice_the_estimated_time_is_pyrrhic(
    engine: GameEngine, seconds: int, expected: QuestOutcome
) -> None:
    hero = new_character(engine)
    await start(engine, hero, quest("test-quest", YARD, estimated_duration_seconds=10))
    await engine.run_ticks(seconds)
    await finish_yard(engine, hero)
    await engine.run_ticks(100)  # dawdling before the turn-in is not counted
    assert await turn_in(engine, hero) is expected
    slow = "it took more than twice as long as it should have"
    assert (slow in session_for(engine, hero).text()) == (expected is QuestOutcome.PYRRHIC_VICTORY)


def test_grade_outcome_table() -> None:
    q = quest(
        "test-quest",
        YARD,
        GATE,
        {**CAMP, "required": True},
        {"objective_id": "x", "objective_type": "custom", "required": False},
    )

    def entry(*done: str, lowest: float = 1.0) -> QuestEntry:
        return QuestEntry(
            "test-quest",
            accepted_at=0.0,
            lowest_health_pct=lowest,
            objectives={
                o.objective_id: ObjectiveProgress(completed=o.objective_id in done)
                for o in q.objectives
            },
        )

    assert grade_outcome(q, entry("yard", "gate", "camp", "x"), 1.0) is QuestOutcome.PERFECT
    assert grade_outcome(q, entry("yard", "gate", "camp"), 1.0) is QuestOutcome.COMPLETED
    assert grade_outcome(q, entry("yard", "gate"), 1.0) is QuestOutcome.PARTIAL_SUCCESS
    assert grade_outcome(q, entry("yard", "x"), 1.0) is QuestOutcome.FAILED
    assert grade_outcome(q, entry(), 1.0) is QuestOutcome.FAILED
    assert grade_outcome(q, entry("yard", "gate", "camp", "x", lowest=0.1), 1.0) is (
        QuestOutcome.PYRRHIC_VICTORY
    )
    # Not pyrrhic just above the threshold; partial stays partial however hurt.
    assert grade_outcome(q, entry("yard", "gate", "camp", "x", lowest=0.11), 1.0) is (
        QuestOutcome.PERFECT
    )
    assert grade_outcome(q, entry("yard", "gate", lowest=0.0), 1.0) is (
        QuestOutcome.PARTIAL_SUCCESS
    )


async def test_telling_the_giver_you_failed_is_a_failed_outcome(engine: GameEngine) -> None:
    """Below half done, 'turnin <quest>' asks to confirm; confirmed, the quest fails
    (graded FAILED, no reward) and the giver heard it from the character."""
    hero = new_character(engine)
    q = quest(
        "test-quest",
        YARD,
        GATE,
        {**CAMP, "required": True},
        partial_turn_in=True,
        rewards={"experience": 10, "gold": 20},
    )
    await start(engine, hero, q)
    stats = engine.world.get_component(hero, CharacterStats)
    xp, gold = stats.experience, stats.gold
    rec = Recorder(engine, QuestFailedEvent)
    out = await cmd(engine, hero, "turnin test")
    assert "less than half" in out, out
    assert "turnin test confirm" in out, out
    entry = qm(engine).entry(hero, "test-quest")
    assert entry is not None
    assert entry.state is QuestState.IN_PROGRESS
    out = await cmd(engine, hero, "turnin test confirm")
    assert "Quest failed" in out, out
    assert "could not do it" in out, out
    await engine.dispatch_events()
    (event,) = rec.of(QuestFailedEvent)
    assert (event.reason, event.outcome) == (FailReason.FAILED, QuestOutcome.FAILED)
    assert event.previous_state is QuestState.IN_PROGRESS
    assert (stats.experience, stats.gold) == (xp, gold)
    # Authored quests without early turn-in keep the old answer.
    other = quest("other-quest", YARD, GATE)
    await start(engine, hero, other)
    out = await cmd(engine, hero, "turnin other confirm")
    assert "not finished" in out, out


async def test_no_failure_report_away_from_the_giver_or_past_half(engine: GameEngine) -> None:
    hero = new_character(engine)
    q = quest("test-quest", YARD, GATE, partial_turn_in=True)
    await start(engine, hero, q)
    place(engine, hero, "camp")
    with pytest.raises(QuestError, match="need to be with"):
        qm(engine).report_failure(hero, "test-quest")
    place(engine, hero, "hall")
    await finish_yard(engine, hero)
    with pytest.raises(QuestError, match="enough"):
        qm(engine).report_failure(hero, "test-quest")
    with pytest.raises(QuestError, match="not working on"):
        qm(engine).report_failure(new_character(engine, "Other"), "test-quest")
