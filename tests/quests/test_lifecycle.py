"""The lifecycle state machine: every transition, its event, and refused transitions."""

from __future__ import annotations

import logging
from uuid import UUID

import pytest
from kits.engines import qm
from kits.heroes import Recorder, new_character
from quests.questkit import npc, place, quest, start, state

from classic_rpg.components import CharacterStats
from classic_rpg.systems.quests import Quest, QuestError
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.questgen.events import (
    QuestAbandonedEvent,
    QuestAcceptedEvent,
    QuestCompletedEvent,
    QuestExpiredInternalEvent,
    QuestFailedEvent,
    QuestGeneratedEvent,
    QuestOfferedEvent,
    QuestTurnedInEvent,
)
from maid_stdlib.questgen.vocabulary import FailReason, QuestOutcome, QuestState
from maid_stdlib.world import WorldService

ALL = (
    QuestOfferedEvent,
    QuestAcceptedEvent,
    QuestCompletedEvent,
    QuestTurnedInEvent,
    QuestFailedEvent,
    QuestAbandonedEvent,
    QuestExpiredInternalEvent,
    QuestGeneratedEvent,
)
YARD = {"objective_id": "yard", "objective_type": "visit", "destination_room_id": "qtest:yard"}
CAMP = {"objective_id": "camp", "objective_type": "visit", "destination_room_id": "qtest:camp"}


def names(rec: Recorder) -> list[str]:
    return [type(e).__name__ for e in rec.events]


async def test_offer_accept_complete_turn_in(engine: GameEngine) -> None:
    hero = new_character(engine)
    manager = qm(engine)
    manager.register_quest(quest("test-quest", YARD))
    rec = Recorder(engine, *ALL)
    entry = manager.offer_quest(hero, "test-quest", "notice_board", 0.8)
    assert entry.state is QuestState.AVAILABLE
    assert manager.offer_quest(hero, "test-quest") is entry  # a pending offer: no new event
    await engine.dispatch_events()
    offered = rec.of(QuestOfferedEvent)
    assert len(offered) == 1
    assert (offered[0].delivery_method, offered[0].match_score) == ("notice_board", 0.8)
    await manager.accept_quest(hero, "test-quest")
    assert state(engine, hero) is QuestState.IN_PROGRESS
    await cmd(engine, hero, "north")
    assert state(engine, hero) is QuestState.COMPLETED
    await cmd(engine, hero, "south")
    outcome = await manager.turn_in_quest(hero, "test-quest")
    await engine.dispatch_events()
    assert outcome is QuestOutcome.PERFECT
    assert state(engine, hero) is QuestState.TURNED_IN
    assert names(rec) == [
        "QuestOfferedEvent",
        "QuestAcceptedEvent",
        "QuestCompletedEvent",
        "QuestTurnedInEvent",
    ]
    turned = rec.of(QuestTurnedInEvent)[0]
    assert (turned.quest_id, turned.character_id, turned.outcome) == (
        "test-quest",
        hero,
        QuestOutcome.PERFECT,
    )


async def test_refused_transitions_say_why(engine: GameEngine) -> None:
    hero = new_character(engine)
    manager = qm(engine)
    manager.register_quest(quest("test-quest", YARD))
    with pytest.raises(QuestError, match="There is no quest 'nope'"):
        manager.offer_quest(hero, "nope")
    with pytest.raises(QuestError, match="has not been offered to you"):
        await manager.accept_quest(hero, "test-quest")
    with pytest.raises(QuestError, match="You are not on 'Test Quest'"):
        manager.abandon_quest(hero, "test-quest")
    with pytest.raises(QuestError, match="You are not on 'Test Quest'"):
        manager.fail_quest(hero, "test-quest")
    with pytest.raises(QuestError, match="You are not on 'Test Quest'"):
        await manager.turn_in_quest(hero, "test-quest")
    manager.offer_quest(hero, "test-quest")
    with pytest.raises(QuestError, match="You are not on"):
        manager.abandon_quest(hero, "test-quest")  # an offer is not abandoned, it is ignored
    await manager.accept_quest(hero, "test-quest")
    with pytest.raises(QuestError, match="You are already on 'Test Quest'"):
        await manager.accept_quest(hero, "test-quest")
    with pytest.raises(QuestError, match="You are already on 'Test Quest'"):
        manager.offer_quest(hero, "test-quest")
    with pytest.raises(QuestError, match="You have not finished 'Test Quest' yet"):
        await manager.turn_in_quest(hero, "test-quest")
    with pytest.raises(QuestError, match="no custom objective 'yard'"):
        manager.complete_custom(hero, "test-quest", "yard")
    await cmd(engine, hero, "north")
    with pytest.raises(QuestError, match="You need to be with the elder to turn in 'Test Quest'"):
        await manager.turn_in_quest(hero, "test-quest")
    await cmd(engine, hero, "south")
    await manager.turn_in_quest(hero, "test-quest")
    with pytest.raises(QuestError, match="You have already turned in 'Test Quest'"):
        await manager.turn_in_quest(hero, "test-quest")
    with pytest.raises(QuestError, match="You have already completed 'Test Quest'"):
        manager.offer_quest(hero, "test-quest")


async def test_turn_in_needs_the_turn_in_npc_alive_and_present(engine: GameEngine) -> None:
    hero = new_character(engine)
    place(engine, hero, "yard")
    await start(engine, hero, quest("test-quest", YARD, turn_in_npc_id=npc("smith")))
    assert state(engine, hero) is QuestState.COMPLETED
    place(engine, hero, "hall")  # the giver is here, but the smith takes the report
    with pytest.raises(QuestError, match="You need to be with the smith"):
        await qm(engine).turn_in_quest(hero, "test-quest")
    place(engine, hero, "yard")
    engine.world.destroy_entity(npc("smith"))
    await engine.dispatch_events()
    with pytest.raises(QuestError, match="You need to be with"):
        await qm(engine).turn_in_quest(hero, "test-quest")


async def test_level_requirement_guards_acceptance(engine: GameEngine) -> None:
    hero = new_character(engine)
    manager = qm(engine)
    manager.register_quest(quest("test-quest", YARD, level_requirement=3))
    manager.offer_quest(hero, "test-quest")
    with pytest.raises(QuestError, match="You must be level 3 to accept 'Test Quest'"):
        await manager.accept_quest(hero, "test-quest")
    engine.world.get_component(hero, CharacterStats).level = 3
    await manager.accept_quest(hero, "test-quest")


async def test_abandon(engine: GameEngine) -> None:
    hero = new_character(engine)
    rec = Recorder(engine, QuestAbandonedEvent)
    await start(engine, hero, quest("test-quest", YARD))
    qm(engine).abandon_quest(hero, "test-quest")
    await engine.dispatch_events()
    assert state(engine, hero) is QuestState.ABANDONED
    entry = qm(engine).entry(hero, "test-quest")
    assert entry is not None
    assert entry.outcome is QuestOutcome.ABANDONED
    assert [(e.quest_id, e.character_id) for e in rec.of(QuestAbandonedEvent)] == [
        ("test-quest", hero)
    ]
    # Progress no longer counts, and the quest can be taken up again.
    await cmd(engine, hero, "north")
    assert state(engine, hero) is QuestState.ABANDONED
    await cmd(engine, hero, "south")
    await start(engine, hero, quest("test-quest", YARD))
    assert state(engine, hero) is QuestState.IN_PROGRESS
    assert qm(engine).entry(hero, "test-quest").run == 2  # type: ignore[union-attr]


async def test_fail_quest_grades_the_failure(engine: GameEngine) -> None:
    hero, other = new_character(engine), new_character(engine, "Bob")
    rec = Recorder(engine, QuestFailedEvent)
    two = quest("test-quest", YARD, CAMP)
    await start(engine, hero, two)
    await start(engine, other, two)
    await cmd(engine, hero, "north")
    manager = qm(engine)
    assert manager.fail_quest(hero, "test-quest", "failed", "the bridge fell") is (
        QuestOutcome.PARTIAL_SUCCESS
    )  # half the required objectives were met
    assert manager.fail_quest(other, "test-quest") is QuestOutcome.FAILED
    await engine.dispatch_events()
    events = rec.of(QuestFailedEvent)
    assert [(e.character_id, e.reason, e.outcome, e.previous_state) for e in events] == [
        (hero, FailReason.FAILED, QuestOutcome.PARTIAL_SUCCESS, QuestState.IN_PROGRESS),
        (other, FailReason.FAILED, QuestOutcome.FAILED, QuestState.IN_PROGRESS),
    ]
    assert events[0].detail == "the bridge fell"
    assert state(engine, hero) is QuestState.FAILED


async def test_time_limit_expires_an_accepted_quest(engine: GameEngine) -> None:
    hero = new_character(engine)
    rec = Recorder(engine, QuestFailedEvent)
    await start(engine, hero, quest("test-quest", YARD, time_limit_hours=0.01))  # 36 s
    await engine.run_ticks(36)
    assert state(engine, hero) is QuestState.IN_PROGRESS
    await engine.run_ticks(2)
    assert state(engine, hero) is QuestState.FAILED
    [event] = rec.of(QuestFailedEvent)
    assert (event.reason, event.outcome) == (FailReason.EXPIRED, QuestOutcome.EXPIRED)


async def test_a_quest_taken_again_runs_on_a_new_clock(engine: GameEngine) -> None:
    """The timer of a time-limited quest is the acceptance's: abandoning it and
    taking it again later restarts the limit (the tracker must not keep the old
    clock of a quest it skips until its limit runs out)."""
    hero = new_character(engine)
    q = quest("test-quest", YARD, time_limit_hours=0.01, repeatable=True)  # 36 s
    await start(engine, hero, q)
    await engine.run_ticks(20)
    qm(engine).abandon_quest(hero, "test-quest")
    await engine.dispatch_events()
    await engine.run_ticks(10)
    await start(engine, hero, q)
    await engine.run_ticks(30)  # 60 s after the first acceptance, 30 after this one
    assert state(engine, hero) is QuestState.IN_PROGRESS
    await engine.run_ticks(8)
    assert state(engine, hero) is QuestState.FAILED


async def test_expire_quest(engine: GameEngine) -> None:
    hero, offered_only, done = (new_character(engine, n) for n in ("Alice", "Bob", "Cara"))
    q = quest("test-quest", YARD, repeatable=True)
    await start(engine, hero, q)
    await start(engine, done, q)
    place(engine, done, "yard")
    await engine.dispatch_events()
    place(engine, done, "hall")
    await qm(engine).turn_in_quest(done, "test-quest")
    qm(engine).offer_quest(offered_only, "test-quest")
    rec = Recorder(engine, QuestExpiredInternalEvent, QuestFailedEvent)
    assert qm(engine).expire_quest("test-quest") == [hero]
    await engine.dispatch_events()
    assert [(e.quest_id, e.character_ids) for e in rec.of(QuestExpiredInternalEvent)] == [
        ("test-quest", [hero])
    ]
    assert rec.of(QuestFailedEvent) == []  # consequences come from the one expiry event
    for c in (hero, offered_only):
        entry = qm(engine).entry(c, "test-quest")
        assert entry is not None
        assert (entry.state, entry.fail_reason) == (QuestState.FAILED, FailReason.EXPIRED)
    assert state(engine, done) is QuestState.TURNED_IN  # finished runs are history
    assert qm(engine).expire_quest("test-quest") == []  # already closed
    with pytest.raises(QuestError, match="no longer available"):
        qm(engine).offer_quest(done, "test-quest")


async def test_invalidate_from_every_non_terminal_state(engine: GameEngine) -> None:
    offered, running, completed = (new_character(engine, n) for n in ("Alice", "Bob", "Cara"))
    q = quest("test-quest", YARD, CAMP)
    await start(engine, running, q)
    await start(engine, completed, quest("test-quest", YARD))
    place(engine, completed, "yard")
    place(engine, completed, "camp")
    await engine.dispatch_events()
    assert state(engine, completed) is QuestState.COMPLETED
    qm(engine).offer_quest(offered, "test-quest")
    rec = Recorder(engine, QuestFailedEvent)
    affected = qm(engine).invalidate_quest("test-quest", "quest_giver_destroyed")
    await engine.dispatch_events()
    assert set(affected) == {offered, running, completed}
    events = {e.character_id: e for e in rec.of(QuestFailedEvent)}
    assert set(events) == {offered, running, completed}
    for c, before in (
        (offered, QuestState.AVAILABLE),
        (running, QuestState.IN_PROGRESS),
        (completed, QuestState.COMPLETED),
    ):
        e = events[c]
        assert (e.reason, e.detail, e.previous_state) == (
            FailReason.INVALIDATED,
            "quest_giver_destroyed",
            before,
        )
        assert state(engine, c) is QuestState.FAILED
        text = engine.sessions.session_for(c).text()  # type: ignore[union-attr]
        assert "The situation has changed: 'Test Quest' is no longer available." in text
    assert qm(engine).invalidate_quest("test-quest", "again") == []


async def test_accept_validators_can_invalidate_a_stale_quest(engine: GameEngine) -> None:
    hero, other = new_character(engine), new_character(engine, "Bob")
    manager = qm(engine)
    q = quest("test-quest", YARD)
    await start(engine, other, q)
    manager.offer_quest(hero, "test-quest")
    seen: list[tuple[str, UUID]] = []

    async def stale(quest: Quest, character: UUID) -> str | None:
        seen.append((quest.quest_id, character))
        return "stale_grounding_at_acceptance"

    manager.accept_validators.append(lambda q, c: None)
    manager.accept_validators.append(stale)
    rec = Recorder(engine, QuestFailedEvent)
    with pytest.raises(
        QuestError,
        match="The situation has changed: 'Test Quest' is no longer "
        r"available \(stale_grounding_at_acceptance\)",
    ):
        await manager.accept_quest(hero, "test-quest")
    await engine.dispatch_events()
    assert seen == [("test-quest", hero)]
    assert {e.character_id for e in rec.of(QuestFailedEvent)} == {hero, other}
    assert state(engine, other) is QuestState.FAILED
    assert not manager.is_open("test-quest")


async def test_repeatable_quests_can_be_done_again(engine: GameEngine) -> None:
    hero = new_character(engine)
    q = quest("test-quest", YARD, repeatable=True, rewards={"gold": 5})
    gold = engine.world.get_component(hero, CharacterStats).gold
    for _ in range(2):
        await start(engine, hero, q)
        await cmd(engine, hero, "north")
        await cmd(engine, hero, "south")
        await qm(engine).turn_in_quest(hero, "test-quest")
    assert engine.world.get_component(hero, CharacterStats).gold == gold + 10
    qlog = qm(engine).log_of(hero)
    assert qlog.turn_ins == {"test-quest": 2}
    assert qlog.paid == [f"test-quest:{hero}", f"test-quest:{hero}:2"]


async def test_register_generated_quest(engine: GameEngine) -> None:
    rec = Recorder(engine, QuestGeneratedEvent)
    ws = engine.services.get(WorldService)
    yard_id = ws.room_id("qtest:yard")
    generated = quest("bandit-threat-1", {**YARD, "destination_room_id": yard_id})
    quest_id = qm(engine).register_generated_quest(
        generated,
        seed_type="threat_response",
        archetype_id="threat_elimination",
        importance=0.7,
    )
    await engine.dispatch_events()
    assert quest_id == "bandit-threat-1"
    stored = qm(engine).get_quest(quest_id)
    assert stored is not None
    assert stored.source == "generated"
    assert stored.objectives[0].destination_room_id == "qtest:yard"
    [event] = rec.of(QuestGeneratedEvent)
    assert (event.quest_id, event.quest_giver_id, event.seed_type, event.importance) == (
        quest_id,
        npc("elder"),
        "threat_response",
        0.7,
    )
    entry = qm(engine).history.get(quest_id)
    assert entry is not None
    assert entry.archetype_id == "threat_elimination"
    assert qm(engine).history.active_generated_quest_ids() == {quest_id}
    qm(engine).expire_quest(quest_id)
    assert qm(engine).history.active_generated_quest_ids() == set()
    with pytest.raises(QuestError, match="unknown room"):
        qm(engine).register_generated_quest(quest("bad", {**YARD, "destination_room_id": "x1"}))
    with pytest.raises(ValueError, match="already registered"):
        qm(engine).register_quest(quest("bandit-threat-1", CAMP))


async def test_transitions_write_structured_log_lines(
    engine: GameEngine, caplog: pytest.LogCaptureFixture
) -> None:
    hero = new_character(engine)
    caplog.set_level(logging.INFO, logger="maid.rpg.quests")
    await start(engine, hero, quest("test-quest", YARD))
    qm(engine).abandon_quest(hero, "test-quest")
    lines = {r.getMessage(): r for r in caplog.records if r.name == "maid.rpg.quests"}
    for what in ("quest offered", "quest accepted", "quest abandoned"):
        record = lines[what]
        assert record.quest_id == "test-quest"  # type: ignore[attr-defined]
        assert record.character_id == str(hero)  # type: ignore[attr-defined]


async def test_turning_in_a_generated_quest_resolves_it(engine: GameEngine) -> None:
    manager = qm(engine)
    hero, other = new_character(engine), new_character(engine, "Bryn")
    generated = quest("bandit-threat-2", YARD)
    manager.register_generated_quest(
        generated, seed_type="threat_response", archetype_id="threat_elimination", importance=0.7
    )
    manager.offer_quest(hero, "bandit-threat-2")
    manager.offer_quest(other, "bandit-threat-2")
    assert manager.count_pending_offers(other) == 1
    await manager.accept_quest(hero, "bandit-threat-2")
    await cmd(engine, hero, "north")
    await cmd(engine, hero, "south")
    await manager.turn_in_quest(hero, "bandit-threat-2")
    # The situation is resolved: no longer open, the other offer withdrawn (it no
    # longer blocks that character's pending-offer cap) and it can't be re-offered.
    assert not manager.is_open("bandit-threat-2")
    assert manager.registry.status("bandit-threat-2") == ("resolved", "turned in by Alice")
    assert manager.entry(other, "bandit-threat-2") is None
    assert manager.count_pending_offers(other) == 0
    with pytest.raises(QuestError, match="no longer available"):
        manager.offer_quest(other, "bandit-threat-2")
    # ... and nothing invalidates it afterwards: the hero's run stays turned in.
    assert manager.invalidate_quest("bandit-threat-2", "targets gone") == []
    assert state(engine, hero, "bandit-threat-2") is QuestState.TURNED_IN
