"""GMCP ``Char.Quests``: the quest log a client UI shows, sent when it changed."""

from __future__ import annotations

from typing import Any

from kits.engines import qm
from kits.heroes import new_character
from quests.questkit import quest, start

from maid_engine.engine import GameEngine
from maid_engine.events import CharacterConnectedEvent
from maid_engine.testing import cmd, session_for

YARD = {
    "objective_id": "yard",
    "objective_type": "visit",
    "destination_room_id": "qtest:yard",
    "description": "Look at the yard.",
    "hint": "North of the hall.",
}
LATER = {
    "objective_id": "later",
    "objective_type": "visit",
    "destination_room_id": "qtest:gate",
    "description": "Go to the gate.",
    "order": 1,
}


def sent(engine: GameEngine, hero: Any) -> list[Any]:
    return [d for p, d in session_for(engine, hero).gmcp if p == "Char.Quests"]


async def test_char_quests_follows_the_quest_log_once_a_tick(engine: GameEngine) -> None:
    hero = new_character(engine)
    engine.events.emit(CharacterConnectedEvent(hero, session_for(engine, hero).id))
    await engine.dispatch_events()
    await engine.tick()
    assert sent(engine, hero)[-1] == {"active": [], "offers": [], "completed": 0}
    await start(engine, hero, quest("test-quest", YARD, LATER))
    qm(engine).offer_quest(hero, "wolf-trouble")
    assert len(sent(engine, hero)) == 1  # sent at the end of the tick, once
    await engine.tick()
    [_, data] = sent(engine, hero)
    [active] = data["active"]
    assert active["n"] == 1
    assert active["id"] == "test-quest"
    assert active["title"] == "Test Quest"
    assert active["state"] == "in_progress"
    assert active["giver"] == active["turn_in"] == "the elder"
    assert active["objectives"] == [
        {
            "id": "yard",
            "text": "Look at the yard.",
            "count": 0,
            "target": 1,
            "state": "open",
            "required": True,
            "hint": "North of the hall.",
        },
        {
            "id": "later",
            "text": "Go to the gate.",
            "count": 0,
            "target": 1,
            "state": "locked",
            "required": True,
        },
    ]
    [offer] = data["offers"]
    assert (offer["n"], offer["id"], offer["state"]) == (2, "wolf-trouble", "available")
    assert offer["title"] == "Wolf Trouble"
    assert "objectives" not in offer
    await engine.tick()
    assert len(sent(engine, hero)) == 2  # nothing changed: nothing sent
    await cmd(engine, hero, "north")
    await engine.tick()
    yard, later = sent(engine, hero)[-1]["active"][0]["objectives"]
    assert (yard["state"], yard["count"], "hint" in yard) == ("done", 1, False)
    assert later["state"] == "open"
    await cmd(engine, hero, "decline wolf")
    await engine.tick()
    assert sent(engine, hero)[-1]["offers"] == []


async def test_a_moved_hint_is_sent_to_who_holds_the_quest(engine: GameEngine) -> None:
    hero = new_character(engine)
    await start(engine, hero, quest("test-quest", YARD, LATER))
    await engine.tick()
    assert qm(engine).set_objective_hint("test-quest", "yard", "Past the well.")
    await engine.tick()
    assert sent(engine, hero)[-1]["active"][0]["objectives"][0]["hint"] == "Past the well."
