"""QuestGroundingMonitor: deaths invalidate (or are progress), moves update hints,
acceptance re-validates, the sweep catches the rest, and validation changes nothing.

On Ironvale with the RPG layer: the quests are held by its QuestManager, and kill
objectives and fights are its rules."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from uuid import UUID

import pytest
from ironvale.ironkit import ironvale_engine, iv, simple_quest
from kits.engines import plain, qg_of, qm, ws_of
from kits.heroes import fight, new_hero, walk
from kits.quests import accept, consequences_of, deliver, monitor_of, trust

from classic_rpg.combat.components import CombatRules
from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.consequences import GeneratedQuestIndex
from maid_stdlib.questgen import GeneratedQuest, ObjectiveType, QuestObjective, QuestRewards
from maid_stdlib.questgen.vocabulary import FailReason, QuestState


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """A started Ironvale with every layer wired in; no store, 60 s ticks."""
    async with ironvale_engine(tmp_path).lifespan() as eng:
        yield eng


def kral_quest(engine: GameEngine, quest_id: str = "kral-must-fall") -> GeneratedQuest:
    kral = iv("kral")
    objectives = [
        QuestObjective(
            id="o1-kill",
            objective_type=ObjectiveType.KILL,
            description="Defeat Kral",
            target="Kral",
            target_entity_id=kral,
            target_entity_ids=[kral],
            target_template="ironvale:kral",
            target_location="ironvale:bandit_camp",
            order=1,
            hints=["Kral was last seen at The Bandit Camp."],
        ),
        QuestObjective(
            id="o2-talk",
            objective_type=ObjectiveType.TALK,
            description="Report back to Gundrik",
            target="Gundrik",
            target_entity_id=iv("gundrik"),
            target_location="ironvale:smithy",
            order=2,
        ),
    ]
    return simple_quest(engine, quest_id, objectives=objectives, involved_npcs={})


def output(engine: GameEngine, hero: UUID) -> str:
    return plain(session_for(engine, hero).text())


def closed(engine: GameEngine, quest_id: str) -> tuple[str, str] | None:
    return qm(engine).registry.status(quest_id)


async def test_the_giver_killed_mid_quest_invalidates_it(engine: GameEngine) -> None:
    gundrik = iv("gundrik")
    hero = new_hero(engine)
    quest_id = await deliver(engine, simple_quest(engine))
    await accept(engine, hero, quest_id)
    # In this world the smith can be fought (Ironvale's cannot).
    engine.world.get_component(gundrik, CombatRules).attackable = True
    await walk(engine, hero, "ironvale:smithy")
    await fight(engine, hero, "gundrik")
    await engine.dispatch_events()

    assert closed(engine, quest_id) == ("invalidated", "quest_giver_destroyed")
    entry = qm(engine).entry(hero, quest_id)
    assert entry is not None
    assert entry.state is QuestState.FAILED
    assert entry.fail_reason is FailReason.INVALIDATED
    text = output(engine, hero)
    assert "The situation has changed: 'The Smith's Errand' is no longer available." in text
    assert "Gundrik, who asked for your help, is dead." in text
    # the world ended the quest: no failure consequences for the hero
    assert not [p for p in consequences_of(engine).recent if p.quest_id == quest_id]
    assert "The Smith's Errand" not in plain(await cmd(engine, hero, "quests"))


async def test_the_giver_destroyed_without_a_fight_invalidates_an_offer(
    engine: GameEngine,
) -> None:
    hero = new_hero(engine)
    quest_id = await deliver(engine, simple_quest(engine))
    qm(engine).offer_quest(hero, quest_id)
    engine.world.destroy_entity(iv("gundrik"))  # e.g. a builder's @destroy
    await engine.dispatch_events()
    assert closed(engine, quest_id) == ("invalidated", "quest_giver_destroyed")
    assert "Gundrik, who asked for your help, is dead." in output(engine, hero)


async def test_a_kill_target_killed_by_the_holder_is_progress(engine: GameEngine) -> None:
    hero = new_hero(engine)
    quest_id = await deliver(engine, kral_quest(engine))
    await accept(engine, hero, quest_id)
    await walk(engine, hero, "ironvale:bandit_camp")
    await fight(engine, hero, "kral")
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
    # Kral respawns: the objective is "defeat Kral" (the kind), not that entity.
    hero = new_hero(engine)
    quest_id = await deliver(engine, kral_quest(engine))
    await accept(engine, hero, quest_id)
    rival = new_hero(engine, "Bjorn")
    await walk(engine, rival, "ironvale:bandit_camp")
    await fight(engine, rival, "kral")
    await engine.dispatch_events()
    assert closed(engine, quest_id) is None
    assert qg_of(engine).facts.kind_available("ironvale:kral")  # the respawn is pending
    assert "killed by someone else" not in output(engine, hero)
    assert await monitor_of(engine).sweep() == []
    quest = qm(engine).get_quest(quest_id)
    assert quest is not None
    kill = next(o for o in quest.objectives if o.objective_id == "o1-kill")
    assert kill.target_id is None
    assert kill.target_template == "ironvale:kral"


async def test_a_kill_target_killed_by_someone_else_invalidates(engine: GameEngine) -> None:
    hero = new_hero(engine)
    # This Kral does not come back: once he is dead, the quest cannot be done.
    engine.world.get_component(iv("kral"), CombatRules).respawn = None
    quest_id = await deliver(engine, kral_quest(engine))
    await accept(engine, hero, quest_id)
    rival = new_hero(engine, "Bjorn")
    await walk(engine, rival, "ironvale:bandit_camp")
    await fight(engine, rival, "kral")
    await engine.dispatch_events()
    assert closed(engine, quest_id) == ("invalidated", "objective_target_destroyed")
    assert "Kral was killed by someone else." in output(engine, hero)


async def test_an_npc_who_moves_has_the_hints_follow_him(engine: GameEngine) -> None:
    voss = iv("voss")
    hero = new_hero(engine)
    quest = simple_quest(engine)
    await deliver(engine, quest)
    await accept(engine, hero, quest.id)
    assert "Captain Voss is usually found at The Guard Post." in plain(
        await cmd(engine, hero, "quests")
    )

    # Voss keeps his schedule: at 13:00 he climbs the watchtower.
    clock = engine.clock
    assert isinstance(clock, ManualClock)
    clock.tick_game_seconds = 600.0
    for _ in range(60):
        await engine.run_ticks(1)
        if ws_of(engine).room_key_of(voss) == "ironvale:watchtower":
            break
    else:
        raise AssertionError("Voss never went up the watchtower")
    hint = "Captain Voss was last seen at Atop the Watchtower."
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
    async with ironvale_engine(tmp_path, db_url=db_url).lifespan() as engine:
        quest = simple_quest(engine)
        await deliver(engine, quest)
        ws_of(engine).move(iv("gundrik"), "ironvale:tavern", reason="walk")
        await engine.dispatch_events()
        await engine.run_ticks(1)
        await engine.services.get(GeneratedQuestIndex).flush()
        doc = await engine.store.documents.get("generated_quests", quest.id)
        assert doc is not None
        report = next(o for o in doc["objectives"] if o["id"] == "o2-talk")
        assert report["hints"][0] == "Gundrik was last seen at The Rusty Tankard."


async def test_a_stale_quest_is_refused_at_acceptance(engine: GameEngine) -> None:
    hero = new_hero(engine)
    selena = iv("selena")
    quest = simple_quest(engine, involved_npcs={iv("voss"): "informant", selena: "witness"})
    await deliver(engine, quest)
    qm(engine).offer_quest(hero, quest.id)
    # Selena is only a witness: her end does not touch the quest's objectives, so
    # nothing invalidates it now ...
    engine.world.destroy_entity(selena)
    await engine.dispatch_events()
    assert closed(engine, quest.id) is None
    before = dataclasses.asdict(quest)
    # ... but accepting it re-validates against the world as it is.
    out = plain(await cmd(engine, hero, f"accept {quest.id}"))
    assert "The situation has changed: 'The Smith's Errand' is no longer available" in out
    assert "Selena is dead" in out
    assert closed(engine, quest.id) is not None
    assert qm(engine).quest_state(hero, quest.id) is QuestState.FAILED
    assert dataclasses.asdict(quest) == before  # validation changed nothing


async def test_the_sweep_runs_on_game_time(engine: GameEngine) -> None:
    hero = new_hero(engine)
    offered = simple_quest(engine, "offered", involved_npcs={iv("selena"): "witness"})
    started = simple_quest(engine, "started")
    for quest in (offered, started):
        await deliver(engine, quest)
    qm(engine).offer_quest(hero, "offered")
    await accept(engine, hero, "started")
    qm(engine).objectives.talk_now(hero, iv("voss"))  # heard Voss out already
    engine.world.destroy_entity(iv("selena"))
    engine.world.destroy_entity(iv("voss"))
    # No event reaches the monitor (as after a restart): only the sweep can notice.
    engine.world.flush_destroyed()
    monitor = monitor_of(engine)
    assert monitor.sweep_interval == 600.0
    await engine.run_ticks(9)  # 9 game minutes: no sweep yet
    assert closed(engine, "offered") is None
    await engine.run_ticks(1)
    assert closed(engine, "offered") == ("invalidated", "periodic_sweep")
    assert "The Smith's Errand: Selena is dead." in output(engine, hero)
    # Voss's part is done for the hero, so the started quest can still be finished.
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
    cached = engine.services.get(GeneratedQuestIndex).cached("greedy")
    assert cached is not None
    assert cached.rewards.gold == 100_000
    model = qm(engine).get_quest("greedy")
    assert model is not None
    assert model.rewards.gold == 100_000
    assert trust(engine, iv("gundrik"), hero) == 0.0
