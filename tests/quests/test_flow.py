"""The test world's authored quest (quests.yaml), start to finish through real commands."""

from __future__ import annotations

from kits.engines import npcs, plain, qm
from kits.heroes import Recorder, fight, make_strong, new_character
from quests.questkit import place, quest, start

from classic_rpg.components import CharacterStats, Inventory
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.questgen.events import (
    QuestAcceptedEvent,
    QuestCompletedEvent,
    QuestOfferedEvent,
    QuestProgressEvent,
    QuestTurnedInEvent,
)
from maid_stdlib.questgen.vocabulary import QuestOutcome, QuestState
from maid_stdlib.world import Item


async def test_wolf_trouble_start_to_finish(engine: GameEngine) -> None:
    hero = new_character(engine)
    make_strong(engine, hero)
    rec = Recorder(
        engine,
        QuestOfferedEvent,
        QuestAcceptedEvent,
        QuestCompletedEvent,
        QuestTurnedInEvent,
        QuestProgressEvent,
    )
    assert "Quest offered: 'Wolf Trouble'" in plain(await cmd(engine, hero, "talk elder"))
    assert "You accept 'Wolf Trouble'" in await cmd(engine, hero, "accept wolf-trouble")
    await cmd(engine, hero, "north")
    wolves = npcs(engine, "qtest:wolf")
    await fight(engine, hero, "wolf")
    assert len(npcs(engine, "qtest:wolf")) == len(wolves) - 1
    out = plain(await cmd(engine, hero, "get pelt"))
    assert "[Wolf Trouble] Take a wolf pelt. - done" in out
    out = plain(await cmd(engine, hero, "quests"))
    assert "[x] Kill a grey wolf in the yard." in out
    assert "[ ] Tell the elder." in out
    await cmd(engine, hero, "south")
    stats = engine.world.get_component(hero, CharacterStats)
    xp, gold = stats.experience, stats.gold
    out = plain(await cmd(engine, hero, "talk elder"))
    assert 'The elder says, "The yard is safe again. Take this."' in out
    # Finished by this very talk, which turns it in: no "talk to her to turn it in".
    assert "You have completed the objectives of 'Wolf Trouble'." in out
    assert "right here" not in out
    assert "You hand a wolf pelt to the elder." in out
    assert "Quest complete: 'Wolf Trouble' (completed)." in out  # the camp was not visited
    assert "You receive a silver ring." in out
    assert (stats.experience, stats.gold) == (xp + 40, gold + 15)
    inv = engine.world.get_component(hero, Inventory)
    assert "qtest:ring" in [engine.world.get_component(i, Item).template for i in inv.items]
    assert qm(engine).quest_state(hero, "wolf-trouble") is QuestState.TURNED_IN
    assert [type(e).__name__ for e in rec.events if not isinstance(e, QuestProgressEvent)] == [
        "QuestOfferedEvent",
        "QuestAcceptedEvent",
        "QuestCompletedEvent",
        "QuestTurnedInEvent",
    ]
    assert [e.objective_id for e in rec.of(QuestProgressEvent)] == [
        "kill-wolf",
        "get-pelt",
        "report",
    ]
    assert rec.of(QuestTurnedInEvent)[0].outcome is QuestOutcome.COMPLETED


async def test_finishing_next_to_the_quest_giver_does_not_say_return(
    engine: GameEngine,
) -> None:
    hero = new_character(engine)
    hall = {"objective_type": "visit", "destination_room_id": "qtest:hall"}
    yard = {"objective_type": "visit", "destination_room_id": "qtest:yard"}
    place(engine, hero, "yard")
    await engine.dispatch_events()  # the arrival in the start room is old news
    await start(engine, hero, quest("near-quest", hall))
    out = await cmd(engine, hero, "south")
    told = session_for(engine, hero).text()
    assert "The elder is right here: talk to her to turn it in." in told + out
    assert "Return to the elder" not in told
    await start(engine, hero, quest("far-quest", yard))
    await cmd(engine, hero, "north")
    assert "Return to the elder." in session_for(engine, hero).text()
