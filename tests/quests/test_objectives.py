"""Objective order semantics and each of the nine types advancing from its real event."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from kits.engines import qm
from kits.heroes import Recorder, fight, make_strong, new_character, room_of
from quests.questkit import npc, place, progress, quest, start, state

from classic_rpg.items.factory import ItemFactory
from classic_rpg.systems.quests import QuestError
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.questgen.events import QuestFailedEvent, QuestProgressEvent
from maid_stdlib.questgen.vocabulary import QuestState
from maid_stdlib.world import WorldService

VISIT_GATE = {
    "objective_id": "gate",
    "objective_type": "visit",
    "destination_room_id": "qtest:gate",
}
VISIT_YARD = {
    "objective_id": "yard",
    "objective_type": "visit",
    "destination_room_id": "qtest:yard",
}
VISIT_CAMP = {
    "objective_id": "camp",
    "objective_type": "visit",
    "destination_room_id": "qtest:camp",
}


async def hero_on_quest(engine: GameEngine, *objectives: dict[str, Any]) -> UUID:
    """A new character who has taken "test-quest", made of ``objectives``."""
    hero = new_character(engine)
    await start(engine, hero, quest("test-quest", *objectives))
    return hero


# -- order ---------------------------------------------------------------------------------
async def test_same_order_is_parallel_and_higher_order_waits_for_all(engine: GameEngine) -> None:
    hero = await hero_on_quest(
        engine,
        VISIT_GATE,
        VISIT_YARD,
        {
            "objective_id": "report",
            "objective_type": "talk",
            "target_id": npc("elder"),
            "order": 1,
        },
    )
    assert progress(engine, hero, "gate").unlocked
    assert progress(engine, hero, "yard").unlocked
    assert not progress(engine, hero, "report").unlocked
    # Parallel: the yard first, although it is listed second.
    await cmd(engine, hero, "north")
    assert progress(engine, hero, "yard").completed
    await cmd(engine, hero, "south")
    # Talking to the elder before the step is unlocked does not count.
    await cmd(engine, hero, "talk elder")
    assert progress(engine, hero, "report").count == 0
    assert not progress(engine, hero, "report").unlocked
    await cmd(engine, hero, "east")
    assert progress(engine, hero, "report").unlocked
    await cmd(engine, hero, "west")
    await cmd(engine, hero, "talk elder")
    assert state(engine, hero) is QuestState.TURNED_IN


async def test_optional_objectives_do_not_block_unlocking(engine: GameEngine) -> None:
    hero = await hero_on_quest(
        engine,
        VISIT_YARD,
        {**VISIT_CAMP, "required": False},
        {**VISIT_GATE, "order": 1},
        {
            "objective_id": "later-optional",
            "objective_type": "custom",
            "order": 2,
            "required": False,
        },
    )
    assert not progress(engine, hero, "gate").unlocked
    await cmd(engine, hero, "north")
    assert progress(engine, hero, "gate").unlocked
    assert not progress(engine, hero, "camp").completed
    assert not progress(engine, hero, "later-optional").unlocked
    await cmd(engine, hero, "south")
    await cmd(engine, hero, "east")
    # Every required objective is met: the quest awaits its turn-in, and the
    # optional step of the last order is open for a PERFECT grade.
    assert state(engine, hero) is QuestState.COMPLETED
    assert progress(engine, hero, "later-optional").unlocked


async def test_orders_need_not_be_consecutive(engine: GameEngine) -> None:
    hero = await hero_on_quest(engine, {**VISIT_YARD, "order": 3}, {**VISIT_GATE, "order": 7})
    assert progress(engine, hero, "yard").unlocked
    assert not progress(engine, hero, "gate").unlocked


# -- the nine types ------------------------------------------------------------------------
async def test_kill_by_template_counts_only_own_kills(engine: GameEngine) -> None:
    hero, other = new_character(engine), new_character(engine, "Bob")
    for c in (hero, other):
        make_strong(engine, c)
        place(engine, c, "yard")
    await start(
        engine,
        hero,
        quest(
            "test-quest",
            {
                "objective_id": "wolves",
                "objective_type": "kill",
                "target_template": "qtest:wolf",
                "target_count": 2,
            },
        ),
    )
    rec = Recorder(engine, QuestProgressEvent)
    await fight(engine, other, "wolf")
    assert progress(engine, hero, "wolves").count == 0
    await fight(engine, hero, "wolf")
    assert progress(engine, hero, "wolves").count == 1
    assert rec.of(QuestProgressEvent)[-1].count == 1
    assert state(engine, hero) is QuestState.IN_PROGRESS


async def test_a_kill_before_accepting_does_not_count_and_the_killer_is_told(
    engine: GameEngine,
) -> None:
    hero = new_character(engine)
    make_strong(engine, hero)
    place(engine, hero, "yard")
    manager = qm(engine)
    wolves = {
        "objective_id": "wolves",
        "objective_type": "kill",
        "target_template": "qtest:wolf",
        "target_count": 2,
    }
    manager.register_quest(quest("test-quest", wolves, title="Wolves at the Door"))
    manager.offer_quest(hero, "test-quest")
    session = session_for(engine, hero)
    await fight(engine, hero, "wolf")
    told = (
        "(That kill does not count for 'Wolves at the Door' until you accept it: type 'accept 1'.)"
    )
    assert told in session.take()
    # Once a quest: the next kill says nothing more.
    await fight(engine, hero, "wolf")
    assert "does not count" not in session.take()
    await manager.accept_quest(hero, "test-quest")
    await engine.dispatch_events()
    assert progress(engine, hero, "wolves").count == 0


async def test_no_accept_hint_for_a_kill_quest_above_the_killers_level(
    engine: GameEngine,
) -> None:
    hero = new_character(engine)
    make_strong(engine, hero, level=2)
    place(engine, hero, "yard")
    manager = qm(engine)
    wolves = {"objective_type": "kill", "target_template": "qtest:wolf", "target_count": 2}
    manager.register_quest(quest("test-quest", wolves, level_requirement=5))
    manager.offer_quest(hero, "test-quest")
    session = session_for(engine, hero)
    await fight(engine, hero, "wolf")
    assert "does not count" not in session.take()


async def test_kill_by_entity_id_and_by_keyword(engine: GameEngine) -> None:
    hero = new_character(engine)
    make_strong(engine, hero)
    place(engine, hero, "yard")
    ws = engine.services.get(WorldService)
    first = ws.find_in_room("qtest:yard", "1.wolf", viewer=hero)
    second = ws.find_in_room("qtest:yard", "2.wolf", viewer=hero)
    assert first is not None
    assert second is not None
    await start(
        engine,
        hero,
        quest(
            "test-quest",
            {"objective_id": "that-one", "objective_type": "kill", "target_id": second},
            {"objective_id": "any-grey", "objective_type": "kill", "target_keyword": "grey"},
        ),
    )
    # Kill the first wolf: the keyword objective counts, the id one does not.
    await fight(engine, hero, "1.wolf")
    assert not engine.world.entity_exists(first)
    assert progress(engine, hero, "any-grey").completed
    assert not progress(engine, hero, "that-one").completed
    await fight(engine, hero, "wolf")
    assert progress(engine, hero, "that-one").completed
    assert state(engine, hero) is QuestState.COMPLETED


async def hero_collecting_pelts(engine: GameEngine, count: int) -> UUID:
    """A new character carrying one pelt, who has taken a quest to collect ``count``."""
    hero = new_character(engine)
    engine.services.get(ItemFactory).spawn("qtest:pelt", holder=hero)
    await start(
        engine,
        hero,
        quest(
            "test-quest",
            {
                "objective_id": "pelts",
                "objective_type": "collect",
                "item_template": "qtest:pelt",
                "target_count": count,
            },
        ),
    )
    return hero


async def test_collect_counts_pickups_and_what_is_already_carried(engine: GameEngine) -> None:
    hero = await hero_collecting_pelts(engine, 3)
    assert progress(engine, hero, "pelts").count == 1  # already carried at acceptance
    place(engine, hero, "yard")
    await cmd(engine, hero, "get pelt")
    assert progress(engine, hero, "pelts").count == 2
    await cmd(engine, hero, "get pelt")
    assert progress(engine, hero, "pelts").completed
    assert state(engine, hero) is QuestState.COMPLETED


#: A DELIVER step: a sealed letter to the smith.
LETTER_TO_SMITH: dict[str, Any] = {
    "objective_type": "deliver",
    "item_template": "qtest:letter",
    "target_template": "qtest:smith",
}


async def test_deliver_needs_the_item_given_to_the_recipient(engine: GameEngine) -> None:
    hero = new_character(engine)
    items = engine.services.get(ItemFactory)
    items.spawn("qtest:letter", holder=hero)
    items.spawn("qtest:letter", holder=hero)
    await start(
        engine,
        hero,
        quest("test-quest", {"objective_id": "letter", **LETTER_TO_SMITH}),
    )
    # The wrong person has no use for it: the letter stays with the hero.
    out = await cmd(engine, hero, "give letter to elder")
    assert out == "The elder has no use for a sealed letter."
    assert progress(engine, hero, "letter").count == 0
    assert items.count(hero, "qtest:letter") == 2
    place(engine, hero, "yard")
    # One letter is owed: of two given, the second is the hero's to keep.
    out = await cmd(engine, hero, "give all.letter to smith")
    given = "You give a sealed letter to the smith."
    assert f"{given}\nThe smith needs no more than that; you keep a sealed letter." in out
    assert progress(engine, hero, "letter").completed
    assert items.count(hero, "qtest:letter") == 1
    out = await cmd(engine, hero, "give letter to smith")
    assert out == "The smith has no use for a sealed letter."


async def test_what_a_quest_collects_is_kept_when_given_to_its_giver(engine: GameEngine) -> None:
    # Collecting counts what the hero carries: handing it to the one who asked for
    # it would undo the objective, so it is turned down, saying what to do instead.
    hero = await hero_collecting_pelts(engine, 2)
    items = engine.services.get(ItemFactory)
    assert await cmd(engine, hero, "give pelt to elder") == (
        "Keep it for now: 'Test Quest' counts what you carry. Talk to the elder once you "
        "have all of it, and it is handed over then."
    )
    assert progress(engine, hero, "pelts").count == 1
    items.spawn("qtest:pelt", holder=hero)
    place(engine, hero, "yard")
    await cmd(engine, hero, "get pelt")
    assert state(engine, hero) is QuestState.COMPLETED
    place(engine, hero, "hall")
    assert await cmd(engine, hero, "give all.pelt to elder") == (
        "Keep it for now: talk to the elder to turn in 'Test Quest', and all you gathered "
        "is handed over then."
    )
    assert items.count(hero, "qtest:pelt") == 3
    assert state(engine, hero) is QuestState.COMPLETED


async def test_visit_by_walking_and_when_already_there(engine: GameEngine) -> None:
    hero = new_character(engine)
    place(engine, hero, "gate")
    await start(engine, hero, quest("test-quest", VISIT_GATE, {**VISIT_CAMP, "order": 1}))
    assert progress(engine, hero, "gate").completed  # standing there when it unlocked
    await cmd(engine, hero, "south")
    assert not progress(engine, hero, "camp").completed
    await cmd(engine, hero, "east")
    assert progress(engine, hero, "camp").completed


async def test_talk_counts_conversations_with_the_target(engine: GameEngine) -> None:
    hero = new_character(engine)
    place(engine, hero, "yard")
    await start(
        engine,
        hero,
        quest(
            "test-quest",
            {
                "objective_id": "smith",
                "objective_type": "talk",
                "target_template": "qtest:smith",
                "target_count": 2,
            },
        ),
    )
    out = await cmd(engine, hero, "talk smith")
    assert "Mind the sparks" in out  # not the smith's quest: the greeting still shows
    await cmd(engine, hero, "ask smith about weather")
    assert progress(engine, hero, "smith").completed


async def test_protect_completes_when_its_duration_passes(engine: GameEngine) -> None:
    hero = await hero_on_quest(
        engine,
        {
            "objective_id": "guard",
            "objective_type": "protect",
            "target_id": npc("pilgrim"),
            "time_limit_seconds": 10,
        },
    )
    await engine.run_ticks(9)
    assert not progress(engine, hero, "guard").completed
    await engine.run_ticks(2)
    assert progress(engine, hero, "guard").completed
    assert state(engine, hero) is QuestState.COMPLETED


async def test_protect_fails_the_quest_when_the_npc_dies(engine: GameEngine) -> None:
    hero = new_character(engine)
    make_strong(engine, hero)
    place(engine, hero, "yard")
    rec = Recorder(engine, QuestFailedEvent)
    await start(
        engine,
        hero,
        quest(
            "test-quest",
            VISIT_CAMP,
            {
                "objective_id": "guard",
                "objective_type": "protect",
                "target_id": npc("pilgrim"),
            },
        ),
    )
    await cmd(engine, hero, "south")
    await fight(engine, hero, "pilgrim")
    assert state(engine, hero) is QuestState.FAILED
    failed = rec.of(QuestFailedEvent)
    assert len(failed) == 1
    assert failed[0].detail == "the pilgrim died"
    assert "Quest failed" in engine.sessions.session_for(hero).text()  # type: ignore[union-attr]


async def test_protect_watching_siblings_completes_with_them(engine: GameEngine) -> None:
    hero = await hero_on_quest(
        engine,
        VISIT_YARD,
        {"objective_id": "guard", "objective_type": "protect", "target_id": npc("pilgrim")},
    )
    assert not progress(engine, hero, "guard").completed
    await cmd(engine, hero, "north")
    assert progress(engine, hero, "guard").completed
    assert state(engine, hero) is QuestState.COMPLETED


async def test_escort_npc_follows_the_character_to_the_destination(engine: GameEngine) -> None:
    hero = new_character(engine)
    pilgrim = npc("pilgrim")
    await start(
        engine,
        hero,
        quest(
            "test-quest",
            {
                "objective_id": "escort",
                "objective_type": "escort",
                "target_id": pilgrim,
                "destination_room_id": "qtest:road",
            },
        ),
    )
    out = await cmd(engine, hero, "east")
    assert "the pilgrim follows you" in out.lower()
    assert room_of(engine, pilgrim) == "qtest:gate"
    assert not progress(engine, hero, "escort").completed
    await cmd(engine, hero, "south")
    assert room_of(engine, pilgrim) == "qtest:road"
    assert progress(engine, hero, "escort").completed


async def test_escort_does_not_count_without_the_character(engine: GameEngine) -> None:
    hero = new_character(engine)
    pilgrim = npc("pilgrim")
    place(engine, hero, "yard")  # the pilgrim stays in the hall: no one to follow
    await start(
        engine,
        hero,
        quest(
            "test-quest",
            {
                "objective_id": "escort",
                "objective_type": "escort",
                "target_id": pilgrim,
                "destination_room_id": "qtest:gate",
            },
        ),
    )
    place(engine, pilgrim, "gate")  # wanders there on its own
    await engine.dispatch_events()
    assert not progress(engine, hero, "escort").completed
    place(engine, hero, "gate")
    await engine.dispatch_events()
    assert progress(engine, hero, "escort").completed


async def test_timed_fails_when_too_slow(engine: GameEngine) -> None:
    hero = new_character(engine)
    rec = Recorder(engine, QuestFailedEvent)
    await start(
        engine,
        hero,
        quest(
            "test-quest",
            VISIT_CAMP,
            {"objective_id": "hurry", "objective_type": "timed", "time_limit_seconds": 5},
        ),
    )
    await engine.run_ticks(6)
    assert progress(engine, hero, "hurry").failed
    assert state(engine, hero) is QuestState.FAILED
    assert rec.of(QuestFailedEvent)[0].detail == "you ran out of time"


async def test_timed_completes_within_the_limit(engine: GameEngine) -> None:
    hero = await hero_on_quest(
        engine,
        VISIT_GATE,
        {
            "objective_id": "hurry",
            "objective_type": "timed",
            "time_limit_seconds": 5,
            "watch": ["gate"],
        },
    )
    await engine.run_ticks(3)
    await cmd(engine, hero, "east")
    assert progress(engine, hero, "hurry").completed
    await engine.run_ticks(10)
    assert state(engine, hero) is QuestState.COMPLETED


async def test_optional_timed_failing_only_fails_the_objective(engine: GameEngine) -> None:
    hero = await hero_on_quest(
        engine,
        VISIT_CAMP,
        {
            "objective_id": "hurry",
            "objective_type": "timed",
            "time_limit_seconds": 2,
            "required": False,
        },
    )
    await engine.run_ticks(3)
    assert progress(engine, hero, "hurry").failed
    assert state(engine, hero) is QuestState.IN_PROGRESS


async def test_custom_is_completed_by_code(engine: GameEngine) -> None:
    hero = await hero_on_quest(
        engine,
        VISIT_YARD,
        {"objective_id": "choice", "objective_type": "custom", "order": 1},
    )
    manager = qm(engine)
    with pytest.raises(QuestError, match="not open yet"):
        manager.complete_custom(hero, "test-quest", "choice")
    await cmd(engine, hero, "north")
    manager.complete_custom(hero, "test-quest", "choice")
    await engine.dispatch_events()
    assert state(engine, hero) is QuestState.COMPLETED


async def test_the_tick_advances_only_quests_with_time_watchers(engine: GameEngine) -> None:
    hero = new_character(engine)
    await start(engine, hero, quest("limit-only", VISIT_CAMP, time_limit_hours=1))
    await start(
        engine,
        hero,
        quest(
            "timed",
            VISIT_CAMP,
            {"objective_id": "hurry", "objective_type": "timed", "time_limit_seconds": 500},
        ),
    )
    tracker = qm(engine).objectives
    advanced: list[str] = []
    original = tracker._advance

    def spy(character, q, entry):  # type: ignore[no-untyped-def]
        advanced.append(q.quest_id)
        original(character, q, entry)

    tracker._advance = spy  # type: ignore[method-assign]
    await engine.run_ticks(2)
    # Both are watched for their time, but only the TIMED one needs advancing.
    assert {k[1] for k in tracker._timed} == {"limit-only", "timed"}
    assert advanced
    assert set(advanced) == {"timed"}
    assert state(engine, hero, "limit-only") is QuestState.IN_PROGRESS


async def test_what_a_quest_collects_is_to_be_turned_in_where_it_says(
    engine: GameEngine,
) -> None:
    # Given by the elder, turned in to the smith: giving the elder a pelt points to
    # the smith.
    hero = new_character(engine)
    engine.services.get(ItemFactory).spawn("qtest:pelt", holder=hero)
    collect = {
        "objective_id": "pelts",
        "objective_type": "collect",
        "item_template": "qtest:pelt",
        "target_count": 2,
    }
    await start(engine, hero, quest("test-quest", collect, turn_in_npc_id=npc("smith")))
    assert await cmd(engine, hero, "give pelt to elder") == (
        "Keep it for now: 'Test Quest' counts what you carry. Talk to the smith once you "
        "have all of it, and it is handed over then."
    )


async def test_the_turn_in_hands_over_what_was_gathered(engine: GameEngine) -> None:
    hero = await hero_collecting_pelts(engine, 2)
    items = engine.services.get(ItemFactory)
    place(engine, hero, "yard")
    await cmd(engine, hero, "get pelt")
    assert state(engine, hero) is QuestState.COMPLETED
    await cmd(engine, hero, "get pelt")  # one more than asked for
    place(engine, hero, "hall")
    watcher = new_character(engine, "Watcher")
    place(engine, watcher, "hall")
    seen = session_for(engine, watcher)
    out = await cmd(engine, hero, "talk elder")
    assert "You hand a wolf pelt (x2) to the elder." in out
    assert state(engine, hero) is QuestState.TURNED_IN
    assert items.count(hero, "qtest:pelt") == 1
    assert items.count(npc("elder"), "qtest:pelt") == 2
    assert "hands a wolf pelt (x2) to the elder." in seen.text()


async def test_a_turn_in_without_what_was_gathered_is_refused(engine: GameEngine) -> None:
    hero = await hero_collecting_pelts(engine, 2)
    place(engine, hero, "yard")
    await cmd(engine, hero, "get pelt")
    assert state(engine, hero) is QuestState.COMPLETED
    await cmd(engine, hero, "drop pelt")
    place(engine, hero, "hall")
    with pytest.raises(QuestError) as refused:
        await qm(engine).turn_in_quest(hero, "test-quest")
    assert str(refused.value) == (
        "The elder wants what you gathered for 'Test Quest': 2 wolf pelts. "
        "You have 1 of them with you."
    )
    items = engine.services.get(ItemFactory)
    assert state(engine, hero) is QuestState.COMPLETED
    assert items.count(hero, "qtest:pelt") == 1
    assert items.count(npc("elder"), "qtest:pelt") == 0


async def test_what_the_quest_delivered_is_not_asked_for_again(engine: GameEngine) -> None:
    # Gather a letter, then bring it to the smith: the turn-in has nothing more to take.
    hero = new_character(engine)
    items = engine.services.get(ItemFactory)
    items.spawn("qtest:letter", holder=hero)
    await start(
        engine,
        hero,
        quest(
            "test-quest",
            {"objective_id": "get", "objective_type": "collect", "item_template": "qtest:letter"},
            {"objective_id": "bring", **LETTER_TO_SMITH, "order": 1},
        ),
    )
    place(engine, hero, "yard")
    await cmd(engine, hero, "give letter to smith")
    assert state(engine, hero) is QuestState.COMPLETED
    place(engine, hero, "hall")
    out = await cmd(engine, hero, "talk elder")
    assert "You hand" not in out
    assert state(engine, hero) is QuestState.TURNED_IN
    assert items.count(npc("smith"), "qtest:letter") == 1


async def test_a_talk_step_is_answered_in_place_of_a_greeting(engine: GameEngine) -> None:
    hero = new_character(engine)
    word = 'The smith says, "Tell the elder the blades will be ready by spring."'
    await start(
        engine,
        hero,
        quest(
            "test-quest",
            {
                "objective_id": "word",
                "objective_type": "talk",
                "target_id": str(npc("smith")),
                "description": "Tell the smith the elder needs blades",
                "reply": word,
            },
            {
                "objective_id": "back",
                "objective_type": "talk",
                "target_id": str(npc("elder")),
                "description": "Report back to the elder",
                "order": 1,
            },
        ),
    )
    place(engine, hero, "yard")
    out = await cmd(engine, hero, "talk smith")
    assert out.splitlines()[0] == word
    assert "Mind the sparks." not in out
    assert progress(engine, hero, "word").completed
    # Once the step is done the smith greets the hero as ever.
    assert 'The smith says, "Mind the sparks."' in await cmd(engine, hero, "talk smith")
