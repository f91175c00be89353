"""QuestGroundingMonitor: deaths invalidate (or are progress), moves update hints,
acceptance re-validates, the sweep catches the rest, and validation changes nothing.

On Hamlet under the RPG rules: the quests are held by its QuestManager, and kill
objectives and fights are its rules."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from uuid import UUID

import pytest
from kits.engines import hamlet_engine, hv, items_of, metric, plain, qg_of, qm, ws_of
from kits.heroes import Recorder, fight, new_hero, walk
from kits.quests import accept, consequences_of, deliver, monitor_of, simple_quest, trust

from classic_rpg.combat.components import CombatRules
from classic_rpg.questgen.challenge import min_level
from classic_rpg.questgen.terms import rpg_terms
from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.consequences import GeneratedQuestIndex
from maid_stdlib.questgen import GeneratedQuest, ObjectiveType, QuestObjective, QuestRewards
from maid_stdlib.questgen.builder import scarce_supplies
from maid_stdlib.questgen.events import QuestReratedEvent
from maid_stdlib.questgen.quest import DifficultyTier
from maid_stdlib.questgen.vocabulary import FailReason, QuestState


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """A started Hamlet under the RPG rules; no store, 60 s ticks."""
    async with hamlet_engine(tmp_path, rpg=True).lifespan() as eng:
        yield eng


def grey_quest(engine: GameEngine, quest_id: str = "old-grey-must-fall") -> GeneratedQuest:
    grey = hv("old_grey")
    objectives = [
        QuestObjective(
            id="o1-kill",
            objective_type=ObjectiveType.KILL,
            description="Defeat Old Grey",
            target="Old Grey",
            target_entity_id=grey,
            target_entity_ids=[grey],
            target_template="hamlet:old_grey",
            target_location="hamlet:wolf_den",
            order=1,
            hints=["Old Grey was last seen at The Wolf Den."],
        ),
        QuestObjective(
            id="o2-talk",
            objective_type=ObjectiveType.TALK,
            description="Report back to Hollin",
            target="Hollin",
            target_entity_id=hv("hollin"),
            target_location="hamlet:mill",
            order=2,
        ),
    ]
    return simple_quest(engine, quest_id, objectives=objectives, involved_npcs={})


def output(engine: GameEngine, hero: UUID) -> str:
    return plain(session_for(engine, hero).text())


def closed(engine: GameEngine, quest_id: str) -> tuple[str, str] | None:
    return qm(engine).registry.status(quest_id)


async def test_the_giver_killed_mid_quest_invalidates_it(engine: GameEngine) -> None:
    hollin = hv("hollin")
    hero = new_hero(engine)
    quest_id = await deliver(engine, simple_quest(engine))
    await accept(engine, hero, quest_id)
    # In this world the miller can be fought (Hamlet's cannot).
    engine.world.get_component(hollin, CombatRules).attackable = True
    await walk(engine, hero, "hamlet:mill")
    await fight(engine, hero, "hollin")
    await engine.dispatch_events()

    assert closed(engine, quest_id) == ("invalidated", "quest_giver_destroyed")
    entry = qm(engine).entry(hero, quest_id)
    assert entry is not None
    assert entry.state is QuestState.FAILED
    assert entry.fail_reason is FailReason.INVALIDATED
    text = output(engine, hero)
    assert "The situation has changed: 'The Miller's Errand' is no longer available." in text
    assert "Hollin, who asked for your help, is dead." in text
    # the world ended the quest: no failure consequences for the hero
    assert not [p for p in consequences_of(engine).recent if p.quest_id == quest_id]
    assert "The Miller's Errand" not in plain(await cmd(engine, hero, "quests"))


async def test_the_giver_destroyed_without_a_fight_invalidates_an_offer(
    engine: GameEngine,
) -> None:
    hero = new_hero(engine)
    quest_id = await deliver(engine, simple_quest(engine))
    qm(engine).offer_quest(hero, quest_id)
    engine.world.destroy_entity(hv("hollin"))  # e.g. a builder's @destroy
    await engine.dispatch_events()
    assert closed(engine, quest_id) == ("invalidated", "quest_giver_destroyed")
    assert "Hollin, who asked for your help, is dead." in output(engine, hero)


async def test_a_kill_target_killed_by_the_holder_is_progress(engine: GameEngine) -> None:
    hero = new_hero(engine)
    quest_id = await deliver(engine, grey_quest(engine))
    await accept(engine, hero, quest_id)
    await walk(engine, hero, "hamlet:wolf_den")
    await fight(engine, hero, "grey")
    await engine.dispatch_events()
    assert closed(engine, quest_id) is None
    entry = qm(engine).entry(hero, quest_id)
    assert entry is not None
    assert entry.state is QuestState.IN_PROGRESS
    assert entry.objectives["o1-kill"].completed
    assert await monitor_of(engine).sweep() == []


async def test_a_respawning_kill_target_killed_by_someone_else_is_matched_by_kind(
    engine: GameEngine,
) -> None:
    # Old Grey respawns: the objective is "defeat Old Grey" (the kind), not that entity.
    hero = new_hero(engine)
    quest_id = await deliver(engine, grey_quest(engine))
    await accept(engine, hero, quest_id)
    rival = new_hero(engine, "Bjorn")
    await walk(engine, rival, "hamlet:wolf_den")
    await fight(engine, rival, "grey")
    await engine.dispatch_events()
    assert closed(engine, quest_id) is None
    assert qg_of(engine).facts.kind_available("hamlet:old_grey")  # the respawn is pending
    assert "killed by someone else" not in output(engine, hero)
    assert await monitor_of(engine).sweep() == []
    quest = qm(engine).get_quest(quest_id)
    assert quest is not None
    kill = next(o for o in quest.objectives if o.objective_id == "o1-kill")
    assert kill.target_id is None
    assert kill.target_template == "hamlet:old_grey"


async def test_a_kill_target_killed_by_someone_else_invalidates(engine: GameEngine) -> None:
    hero = new_hero(engine)
    # This Old Grey does not come back: once he is dead, the quest cannot be done.
    engine.world.get_component(hv("old_grey"), CombatRules).respawn = None
    quest_id = await deliver(engine, grey_quest(engine))
    await accept(engine, hero, quest_id)
    rival = new_hero(engine, "Bjorn")
    await walk(engine, rival, "hamlet:wolf_den")
    await fight(engine, rival, "grey")
    await engine.dispatch_events()
    assert closed(engine, quest_id) == ("invalidated", "objective_target_destroyed")
    assert "Old Grey was killed by someone else." in output(engine, hero)


async def test_an_npc_who_moves_has_the_hints_follow_him(engine: GameEngine) -> None:
    tamsin = hv("tamsin")
    hero = new_hero(engine)
    quest = simple_quest(engine)
    await deliver(engine, quest)
    await accept(engine, hero, quest.id)
    assert "Warden Tamsin is usually found at The Warden's Hut." in plain(
        await cmd(engine, hero, "quests")
    )

    # Tamsin keeps her schedule: at 20:00 she goes to the inn.
    clock = engine.clock
    assert isinstance(clock, ManualClock)
    clock.tick_game_seconds = 600.0
    for _ in range(120):
        await engine.run_ticks(1)
        if ws_of(engine).room_key_of(tamsin) == "hamlet:inn":
            break
    else:
        raise AssertionError("Tamsin never went to the inn")
    hint = "Warden Tamsin was last seen at the Sheaf Inn."
    model = qm(engine).get_quest(quest.id)
    assert model is not None
    objective = model.objective("o1-talk")
    assert objective is not None
    assert objective.hint == hint
    assert hint in plain(await cmd(engine, hero, "quests"))
    cached = engine.services.get(GeneratedQuestIndex).cached(quest.id)
    assert cached is not None
    assert cached.objectives[0].hints[0] == hint


async def test_moved_hints_reach_the_side_table(tmp_path: Path, db_url: str) -> None:
    async with hamlet_engine(tmp_path, rpg=True, db_url=db_url).lifespan() as engine:
        quest = simple_quest(engine)
        await deliver(engine, quest)
        ws_of(engine).move(hv("hollin"), "hamlet:inn", reason="walk")
        await engine.dispatch_events()
        await engine.run_ticks(1)
        await engine.services.get(GeneratedQuestIndex).flush()
        doc = await engine.store.documents.get("generated_quests", quest.id)
        assert doc is not None
        report = next(o for o in doc["objectives"] if o["id"] == "o2-talk")
        assert report["hints"][0] == "Hollin was last seen at the Sheaf Inn."


async def test_a_stale_quest_is_refused_at_acceptance(engine: GameEngine) -> None:
    hero = new_hero(engine)
    pell = hv("pell")
    quest = simple_quest(engine, involved_npcs={hv("tamsin"): "informant", pell: "witness"})
    await deliver(engine, quest)
    qm(engine).offer_quest(hero, quest.id)
    # Pell is only a witness: his end does not touch the quest's objectives, so
    # nothing invalidates it now ...
    engine.world.destroy_entity(pell)
    await engine.dispatch_events()
    assert closed(engine, quest.id) is None
    before = dataclasses.asdict(quest)
    # ... but accepting it re-validates against the world as it is.
    out = plain(await cmd(engine, hero, f"accept {quest.id}"))
    assert "The situation has changed: 'The Miller's Errand' is no longer available" in out
    assert "Pell is dead" in out
    assert closed(engine, quest.id) is not None
    assert qm(engine).quest_state(hero, quest.id) is QuestState.FAILED
    assert dataclasses.asdict(quest) == before  # validation changed nothing


async def test_the_sweep_runs_on_game_time(engine: GameEngine) -> None:
    hero = new_hero(engine)
    offered = simple_quest(engine, "offered", involved_npcs={hv("pell"): "witness"})
    started = simple_quest(engine, "started")
    for quest in (offered, started):
        await deliver(engine, quest)
    qm(engine).offer_quest(hero, "offered")
    await accept(engine, hero, "started")
    qm(engine).objectives.talk_now(hero, hv("tamsin"))  # heard Tamsin out already
    engine.world.destroy_entity(hv("pell"))
    engine.world.destroy_entity(hv("tamsin"))
    # No event reaches the monitor (as after a restart): only the sweep can notice.
    engine.world.flush_destroyed()
    monitor = monitor_of(engine)
    assert monitor.sweep_interval == 600.0
    await engine.run_ticks(9)  # 9 game minutes: no sweep yet
    assert closed(engine, "offered") is None
    await engine.run_ticks(1)
    assert closed(engine, "offered") == ("invalidated", "periodic_sweep")
    assert "The Miller's Errand: Pell is dead." in output(engine, hero)
    # Tamsin's part is done for the hero, so the started quest can still be finished.
    assert closed(engine, "started") is None


async def test_validation_never_rewrites_a_live_quest(engine: GameEngine) -> None:
    hero = new_hero(engine)
    greedy = simple_quest(engine, "greedy", rewards=QuestRewards(gold=100_000))
    await deliver(engine, greedy)
    qm(engine).offer_quest(hero, "greedy")
    validator = qg_of(engine).validator
    result = await validator.validate(greedy)
    assert not result.valid
    assert any("Gold reward" in e for e in result.errors)
    assert greedy.rewards.gold == 100_000  # no clamping while validating
    assert await monitor_of(engine).sweep() == ["greedy"]
    # The player is told it is gone, not the validator's rule.
    told = output(engine, hero)
    assert told == "The situation has changed: 'The Miller's Errand' is no longer available."
    assert "Gold reward" not in told
    cached = engine.services.get(GeneratedQuestIndex).cached("greedy")
    assert cached is not None
    assert cached.rewards.gold == 100_000
    model = qm(engine).get_quest("greedy")
    assert model is not None
    assert model.rewards.gold == 100_000
    assert trust(engine, hv("hollin"), hero) == 0.0


async def test_a_refusal_at_acceptance_is_told_in_words_for_players(engine: GameEngine) -> None:
    hero = new_hero(engine)
    greedy = simple_quest(engine, "greedy", rewards=QuestRewards(gold=100_000))
    await deliver(engine, greedy)
    qm(engine).offer_quest(hero, "greedy")
    out = plain(await cmd(engine, hero, "accept greedy"))
    assert out == (  # once, and in words for players
        "The situation has changed: 'The Miller's Errand' is no longer available "
        "(things have moved on)."
    )


def pelt_quest(engine: GameEngine, quest_id: str = "a-grey-pelt") -> GeneratedQuest:
    """Bring Hollin Old Grey's pelt, rated easy: one lies at the mill for the taking."""
    objectives = [
        QuestObjective(
            id="o1-collect",
            objective_type=ObjectiveType.COLLECT,
            description="Obtain Old Grey's pelt",
            target="Old Grey's pelt",
            item_template="hamlet:grey_pelt",
            target_location="hamlet:mill",
            order=1,
            hints=["Old Grey's pelt can be found at The Mill."],
        ),
        QuestObjective(
            id="o2-deliver",
            objective_type=ObjectiveType.DELIVER,
            description="Bring the pelt to Hollin",
            target="Old Grey's pelt",
            item_template="hamlet:grey_pelt",
            target_entity_id=hv("hollin"),
            target_location="hamlet:mill",
            order=2,
        ),
    ]
    return simple_quest(
        engine, quest_id, objectives=objectives, involved_npcs={}, difficulty=DifficultyTier.EASY
    )


async def test_a_quest_whose_free_items_are_gone_is_rated_on_the_fight_left(
    engine: GameEngine,
) -> None:
    hero = new_hero(engine, strong=False)
    items_of(engine).spawn("hamlet:grey_pelt", room="hamlet:mill")
    quest = pelt_quest(engine)
    quest_id = await deliver(engine, quest)
    seen = Recorder(engine, QuestReratedEvent)
    monitor = monitor_of(engine)
    assert await monitor.sweep() == []
    # The pelt lies free at the mill (compared by rank: mypy would keep it EASY).
    assert quest.difficulty.rank == DifficultyTier.EASY.rank
    easy = qm(engine).get_quest(quest_id)
    assert easy is not None
    assert easy.level_requirement == min_level(DifficultyTier.EASY)

    await walk(engine, hero, "hamlet:mill")
    await cmd(engine, hero, "get pelt")
    assert await monitor.sweep() == []  # harder is not gone: the quest stays open
    await engine.dispatch_events()
    assert quest.difficulty is DifficultyTier.MODERATE  # Old Grey's tier
    assert [e.quest_id for e in seen.of(QuestReratedEvent)] == [quest_id]
    moderate = qm(engine).get_quest(quest_id)
    assert moderate is not None
    assert moderate.level_requirement == min_level(DifficultyTier.MODERATE)
    assert moderate.rewards.experience == rpg_terms(quest).experience > easy.rewards.experience
    hint = "Old Grey's pelt no longer lies about; Old Grey (at the Wolf Den) has some."
    assert moderate.objectives[0].hint == hint
    assert quest.objectives[0].hints[0] == hint
    assert metric(engine, "maid_grounding_rerated_total") == 1
    # Once is enough: the next sweep finds nothing new; and a pelt lying free again
    # does not make it easier on paper (players were told its level).
    items_of(engine).spawn("hamlet:grey_pelt", room="hamlet:mill")
    await monitor.sweep()
    await engine.dispatch_events()
    assert quest.difficulty is DifficultyTier.MODERATE
    assert len(seen.of(QuestReratedEvent)) == 1


async def test_an_item_lying_where_a_foe_stands_is_his_to_keep(engine: GameEngine) -> None:
    """Loot lies where it fell: a pelt in the wolf den is Old Grey's until he falls,
    for the quest built on it and for one rated on a pelt that has since gone."""
    items_of(engine).spawn("hamlet:grey_pelt", room="hamlet:wolf_den")
    facts = qg_of(engine).facts
    [supply] = scarce_supplies(facts, pelt_quest(engine).objectives)
    assert (supply.room, supply.foe, supply.tier) == (
        "hamlet:wolf_den",
        hv("old_grey"),
        DifficultyTier.MODERATE,
    )
    quest = pelt_quest(engine)
    await deliver(engine, quest)
    await monitor_of(engine).sweep()
    assert quest.difficulty is DifficultyTier.MODERATE
    assert quest.objectives[0].hints[0] == (
        "Old Grey's pelt lies at the Wolf Den, where Old Grey stands guard."
    )
    # A pelt anywhere no foe stands is free again: nothing to fight for.
    items_of(engine).spawn("hamlet:grey_pelt", room="hamlet:mill")
    assert scarce_supplies(facts, quest.objectives) == []
