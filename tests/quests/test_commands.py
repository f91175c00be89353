"""The player's quest commands and quest conversations (``talk``)."""

from __future__ import annotations

from kits.engines import plain, qm
from kits.heroes import new_character
from quests.questkit import npc, place, quest, start, state

from classic_rpg.components import CharacterStats
from classic_rpg.systems.quests.commands import accept_hint
from classic_rpg.systems.quests.questlog import QuestLog
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.living import gossip
from maid_stdlib.questgen.vocabulary import QuestState

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


async def test_quest_log_lists_objectives_progress_locks_and_hints(engine: GameEngine) -> None:
    hero = new_character(engine)
    assert "You have no quests" in await cmd(engine, hero, "quests")
    await start(engine, hero, quest("test-quest", YARD, LATER, summary="Have a look around."))
    qm(engine).offer_quest(hero, "wolf-trouble")
    out = plain(await cmd(engine, hero, "quests"))
    assert "1. Test Quest  [in progress]" in out
    assert "[ ] Look at the yard." in out
    assert "Hint: North of the hall." in out
    assert "[locked] Go to the gate." in out
    assert "2. Wolf Trouble  [offered]" in out
    assert "Type 'accept <number>'" in out
    await cmd(engine, hero, "north")
    out = plain(await cmd(engine, hero, "quests"))
    assert "[x] Look at the yard." in out
    assert "Hint: North" not in out
    assert "[ ] Go to the gate." in out
    out = plain(await cmd(engine, hero, "quest 1"))
    assert "Given by the elder; turn in to the elder." in out
    out = plain(await cmd(engine, hero, "quest wolf"))  # by the start of the title
    assert "Wolf Trouble  [offered]" in out
    assert "Reward: 40 experience, 15 gold, a silver ring." in out
    assert "You have no quest number 7" in await cmd(engine, hero, "quest 7")
    assert "You have no quest 'dragons'" in await cmd(engine, hero, "quest dragons")


async def test_a_quest_keeps_its_number_while_others_are_taken_on_or_end(
    engine: GameEngine,
) -> None:
    hero = new_character(engine)
    manager = qm(engine)
    manager.register_quest(quest("road-quest", YARD, title="Trouble on the Road"))
    manager.offer_quest(hero, "road-quest")
    manager.offer_quest(hero, "wolf-trouble")
    await cmd(engine, hero, "accept 2")
    assert "Wolf Trouble  [in progress]" in plain(await cmd(engine, hero, "quest 2"))
    out = plain(await cmd(engine, hero, "quests"))
    assert "1. Trouble on the Road  [offered]" in out
    assert "2. Wolf Trouble  [in progress]" in out
    await cmd(engine, hero, "decline 1")
    assert "2. Wolf Trouble  [in progress]" in plain(await cmd(engine, hero, "quests"))
    assert "You have no quest number 1" in await cmd(engine, hero, "quest 1")
    manager.register_quest(quest("yard-quest", YARD, title="The Yard"))
    manager.offer_quest(hero, "yard-quest")  # the lowest free number
    out = plain(await cmd(engine, hero, "quests"))
    assert out.index("1. The Yard  [offered]") < out.index("2. Wolf Trouble")


async def test_an_offer_shows_its_optional_steps_too(engine: GameEngine) -> None:
    hero = new_character(engine)
    manager = qm(engine)
    manager.register_quest(quest("yard-quest", YARD, {**LATER, "required": False}))
    manager.offer_quest(hero, "yard-quest")
    out = plain(await cmd(engine, hero, "quest 1"))
    assert "   - Look at the yard.\n   - (optional) Go to the gate." in out


async def test_a_log_from_before_numbers_is_numbered_once(engine: GameEngine) -> None:
    hero = new_character(engine)
    manager = qm(engine)
    manager.register_quest(quest("road-quest", YARD, title="Trouble on the Road"))
    manager.offer_quest(hero, "road-quest")
    manager.offer_quest(hero, "wolf-trouble")
    qlog = engine.world.get_component(hero, QuestLog)
    for entry in qlog.quests.values():
        entry.number = 0
    assert "1. Trouble on the Road" in plain(await cmd(engine, hero, "quests"))
    assert [e.number for e in qlog.live()] == [1, 2]
    assert "Wolf Trouble  [offered]" in plain(await cmd(engine, hero, "quest 2"))


async def test_accept_and_abandon_by_number(engine: GameEngine) -> None:
    hero = new_character(engine)
    assert "Nobody has offered you a quest" in await cmd(engine, hero, "accept")
    qm(engine).offer_quest(hero, "wolf-trouble")
    out = await cmd(engine, hero, "accept")  # the only offer
    assert "You accept 'Wolf Trouble'" in out
    assert "You are already on 'Wolf Trouble'" in await cmd(engine, hero, "accept wolf-trouble")
    asked = await cmd(engine, hero, "abandon 1")
    assert asked == (
        "Abandon 'Wolf Trouble'? You lose your progress. Type 'abandon 1 confirm' to give it up."
    )
    assert state(engine, hero, "wolf-trouble") is QuestState.IN_PROGRESS  # nothing lost yet
    assert "You abandon 'Wolf Trouble'" in await cmd(engine, hero, "abandon 1 confirm")
    assert state(engine, hero, "wolf-trouble") is QuestState.ABANDONED
    assert "You have no quest number 1" in await cmd(engine, hero, "abandon 1")
    assert "Which quest?" in await cmd(engine, hero, "abandon")


async def test_offers_are_taken_by_a_word_of_the_title_and_shared_words_list_the_choices(
    engine: GameEngine,
) -> None:
    hero = new_character(engine)
    manager = qm(engine)
    for qid, title in (
        ("gen-threat_elimination-6c09f8f3", "Trouble at the Smithy"),
        ("gen-faction_choice-0badc0de", "Trouble on the Road"),
    ):
        manager.register_quest(quest(qid, YARD, title=title))
        manager.offer_quest(hero, qid)
    out = plain(await cmd(engine, hero, "quests"))
    assert "1. Trouble at the Smithy  [offered]" in out  # in the order offered
    assert "2. Trouble on the Road  [offered]" in out
    out = plain(await cmd(engine, hero, "accept trouble"))
    assert "Which one do you mean? 'Trouble at the Smithy' (accept 1); " in out
    assert "'Trouble on the Road' (accept 2)" in out
    assert state(engine, hero, "gen-threat_elimination-6c09f8f3") is QuestState.AVAILABLE
    out = plain(await cmd(engine, hero, "quest SMITH"))  # a word's start, any case
    assert "Trouble at the Smithy  [offered]" in out
    assert "You accept 'Trouble on the Road'" in await cmd(engine, hero, "accept road")
    assert "You decline 'Trouble at the Smithy'" in await cmd(engine, hero, "decline smithy")
    assert "You abandon 'Trouble on the Road'" in await cmd(engine, hero, "abandon road yes")
    assert "You have no quest 'the'" in await cmd(engine, hero, "quest the")


async def test_talking_offers_then_gives_progress_then_turns_in(engine: GameEngine) -> None:
    hero = new_character(engine)
    out = plain(await cmd(engine, hero, "talk elder"))
    assert 'The elder says, "Wolves got into my yard, north of here. Will you help?"' in out
    assert (
        "Quest offered: 'Wolf Trouble'. (Type 'accept 1' or 'accept trouble' to take it on.)" in out
    )
    assert "Welcome, traveller" not in out  # the quest replaced the greeting
    await cmd(engine, hero, "accept 1")
    out = plain(await cmd(engine, hero, "talk elder"))
    assert 'The elder says, "Still wolves in my yard, I hear."' in out
    assert "[ ] Kill a grey wolf in the yard." in out
    assert "Quest complete" not in out


async def test_turnin_command_turns_in_what_can_be_turned_in_here(engine: GameEngine) -> None:
    hero = new_character(engine)
    await start(engine, hero, quest("test-quest", YARD, rewards={"gold": 7}))
    assert "You have nothing to turn in here" in await cmd(engine, hero, "turnin")
    assert "You have not finished" in await cmd(engine, hero, "turnin 1")
    await cmd(engine, hero, "north")
    assert "You need to be with the elder" in await cmd(engine, hero, "turnin 1")
    assert "You have nothing to turn in here" in await cmd(engine, hero, "turnin")
    await cmd(engine, hero, "south")
    gold = engine.world.get_component(hero, CharacterStats).gold
    out = plain(await cmd(engine, hero, "turnin"))
    assert "Quest complete: 'Test Quest' (perfect)." in out
    assert "You receive 7 gold for completing 'Test Quest'." in out
    assert engine.world.get_component(hero, CharacterStats).gold == gold + 7
    out = plain(await cmd(engine, hero, "quests"))
    assert "Completed: Test Quest." in out


async def test_after_turn_in_the_npc_greets_again(engine: GameEngine) -> None:
    hero = new_character(engine)
    await start(engine, hero, quest("other-quest", YARD, giver_npc_id=npc("smith")))
    await cmd(engine, hero, "north")
    out = plain(await cmd(engine, hero, "talk smith"))
    assert "Quest complete: 'Other Quest'" in out
    out = plain(await cmd(engine, hero, "talk smith"))
    assert 'The smith says, "Mind the sparks."' in out


async def test_offers_respect_the_level_requirement(engine: GameEngine) -> None:
    hero = new_character(engine)
    qm(engine).register_quest(
        quest("hard-quest", YARD, giver_npc_id=npc("smith"), level_requirement=5)
    )
    place(engine, hero, "yard")
    out = plain(await cmd(engine, hero, "talk smith"))
    assert "Mind the sparks" in out
    assert "Quest offered" not in out
    engine.world.get_component(hero, CharacterStats).level = 5
    assert "Quest offered: 'Hard Quest'" in plain(await cmd(engine, hero, "talk smith"))


async def test_decline_an_offer_frees_the_offer_cap(engine: GameEngine) -> None:
    hero = new_character(engine)
    manager = qm(engine)
    manager.offer_quest(hero, "wolf-trouble")
    assert manager.count_pending_offers(hero) == 1
    assert "Which quest?" in await cmd(engine, hero, "decline")
    assert "You decline 'Wolf Trouble'" in await cmd(engine, hero, "decline 1")
    assert state(engine, hero, "wolf-trouble") is None
    assert manager.count_pending_offers(hero) == 0
    assert "wolf-trouble" in manager.log_of(hero).declined
    assert "You have no quest number 1" in await cmd(engine, hero, "decline 1")
    # An accepted quest is abandoned, not declined.
    manager.offer_quest(hero, "wolf-trouble")
    await cmd(engine, hero, "accept 1")
    assert "'abandon' it instead" in await cmd(engine, hero, "decline 1")
    assert state(engine, hero, "wolf-trouble") is QuestState.IN_PROGRESS


async def test_unanswered_offers_lapse(engine: GameEngine) -> None:
    from maid_engine.clock import GAME_DAY

    hero = new_character(engine)
    manager = qm(engine)
    manager.offer_quest(hero, "wolf-trouble")
    assert manager.lapse_offers(GAME_DAY) == []
    entry = manager.entry(hero, "wolf-trouble")
    assert entry is not None
    assert entry.offered_at is not None
    entry.offered_at -= GAME_DAY
    assert manager.lapse_offers(GAME_DAY) == [(hero, "wolf-trouble")]
    assert state(engine, hero, "wolf-trouble") is None
    assert manager.count_pending_offers(hero) == 0


async def test_the_quest_says_how_long_it_should_take_before_it_turns_pyrrhic(
    engine: GameEngine,
) -> None:
    hero = new_character(engine)
    slow = quest("slow-quest", YARD, estimated_duration_seconds=1800)
    qm(engine).register_quest(slow)
    qm(engine).offer_quest(hero, "slow-quest")
    out = plain(await cmd(engine, hero, "quest slow"))
    assert (
        "It should take about 30 game minutes (30 real minutes) once accepted; taking "
        "more than 1 game hour (60 real minutes) makes it a pyrrhic victory."
    ) in out
    await cmd(engine, hero, "accept slow")
    assert "Left for a clean win: 1 game hour (60 real minutes)." in plain(
        await cmd(engine, hero, "quests")
    )
    await engine.run_ticks(3000)
    out = plain(await cmd(engine, hero, "quests"))
    assert "Left for a clean win: 10 game minutes (10 real minutes)." in out
    await engine.run_ticks(700)
    out = plain(await cmd(engine, hero, "quest 1"))
    assert "It has taken too long for a clean win: finishing it is a pyrrhic victory." in out
    told = "'Slow Quest' has taken too long for a clean win: finishing it now is a pyrrhic victory."
    assert session_for(engine, hero).text().count(told) == 1  # told once, as it happened


async def test_an_offer_above_the_characters_level_says_so(engine: GameEngine) -> None:
    hero = new_character(engine)
    qm(engine).register_quest(quest("hard-quest", YARD, level_requirement=3))
    qm(engine).offer_quest(hero, "hard-quest")
    out = plain(await cmd(engine, hero, "quests"))
    assert "1. Hard Quest  [offered, needs level 3]" in out
    # Nothing to take on yet: how one gets there, not "type 'accept <number>'".
    assert "Every offer here asks for level 3 or more. Experience comes from fights" in out
    assert "Type 'accept <number>'" not in out
    hint = accept_hint(qm(engine), hero, "hard-quest")
    assert hint == "(You can take it on once you reach level 3.)"
    assert "You must be level 3" in await cmd(engine, hero, "accept hard")
    engine.world.get_component(hero, CharacterStats).level = 3
    out = plain(await cmd(engine, hero, "quests"))
    assert "1. Hard Quest  [offered]" in out
    assert "Type 'accept <number>' to take on an offered quest." in out
    assert "Every offer here" not in out
    assert accept_hint(qm(engine), hero, "hard-quest").startswith("(Type 'accept 1'")


async def test_a_fight_that_asks_for_a_level_is_named(engine: GameEngine) -> None:
    # "Speak with the guard" first, a fight after: the level is the fight's.
    hero = new_character(engine)
    talk = {
        "objective_type": "talk",
        "target_id": npc("elder"),
        "description": "Speak with the elder",
    }
    kill = {
        "objective_type": "kill",
        "target_name": "a wolf",
        "target_keyword": "wolf",
        "target_count": 3,
        "description": "Kill 3 wolves",
        "order": 1,
    }
    boss = {**kill, "target_name": "Old Grey", "target_count": 1, "description": "Kill Old Grey"}
    qm(engine).register_quest(quest("wolf-hunt", talk, kill, boss, level_requirement=4))
    qm(engine).offer_quest(hero, "wolf-hunt")
    assert accept_hint(qm(engine), hero, "wolf-hunt") == (
        "(You can take it on once you reach level 4: it means fighting 3 wolves and Old Grey.)"
    )
    assert "Requires level 4 (it means fighting 3 wolves and Old Grey)." in plain(
        await cmd(engine, hero, "quest wolf")
    )


async def test_the_log_says_where_the_people_a_quest_sends_you_to_are_now(
    engine: GameEngine,
) -> None:
    # People go about their day: the log follows them, not where they stood.
    hero = new_character(engine)
    place(engine, hero, "yard")
    talk = {
        "objective_type": "talk",
        "target_id": npc("elder"),
        "description": "Speak with the elder",
    }
    await start(engine, hero, quest("errand", talk))
    out = plain(await cmd(engine, hero, "quests"))
    assert "[ ] Speak with the elder (now in The Hall)" in out
    place(engine, npc("elder"), "gate")
    assert "[ ] Speak with the elder (now in The Gate)" in plain(await cmd(engine, hero, "quests"))
    place(engine, hero, "gate")
    assert "[ ] Speak with the elder (here)" in plain(await cmd(engine, hero, "quests"))
    # Done, but not yet turned in: where to take it.
    place(engine, npc("elder"), "hall")
    visit = {"objective_type": "visit", "destination_room_id": "qtest:yard"}
    await start(engine, hero, quest("walk", {**visit, "description": "Go to the yard"}))
    place(engine, hero, "yard")
    await engine.dispatch_events()
    assert qm(engine).quest_state(hero, "walk") is QuestState.COMPLETED
    out = plain(await cmd(engine, hero, "quests"))
    assert "Turn it in to the elder (now in The Hall)." in out


async def test_asking_about_work_is_asking_for_the_npcs_quests(engine: GameEngine) -> None:
    hero = new_character(engine)
    out = plain(await cmd(engine, hero, "ask elder about work"))
    assert "Quest offered: 'Wolf Trouble'." in out
    await cmd(engine, hero, "accept 1")
    out = plain(await cmd(engine, hero, "ask elder about a job"))
    assert "[ ] Kill a grey wolf in the yard." in out  # how it is going
    place(engine, hero, "yard")
    out = plain(await cmd(engine, hero, "ask smith about work"))
    assert out == "The smith has no work for you just now."
    assert "does not know anything about 'horses'" in await cmd(
        engine, hero, "ask smith about horses"
    )


async def test_asking_about_a_quests_subject_brings_it_up(engine: GameEngine) -> None:
    hero = new_character(engine)
    out = await cmd(engine, hero, "ask elder about wolves")
    assert "does not know anything about 'wolves'" in out
    qm(engine).offer_quest(hero, "wolf-trouble")
    out = plain(await cmd(engine, hero, "ask elder about wolves"))
    assert 'The elder says, "Wolves got into my yard, north of here. Will you help?"' in out
    assert "(Type 'accept 1'" in out
    await cmd(engine, hero, "accept 1")
    out = plain(await cmd(engine, hero, "ask elder about the yard"))
    assert 'The elder says, "Still wolves in my yard, I hear."' in out
    assert "[ ] Kill a grey wolf in the yard." in out


async def test_asked_about_something_an_npc_tells_what_it_heard_of_it(engine: GameEngine) -> None:
    hero = new_character(engine)
    place(engine, hero, "yard")
    now = engine.clock.game_time
    gossip.observe(engine.world, npc("smith"), "w1", "Wolves were seen at the weir.", now)
    out = await cmd(engine, hero, "ask smith about the wolves")
    assert out == 'The smith says, "Wolves were seen at the weir. You can be sure of that."'
    out = await cmd(engine, hero, "ask smith about bread")
    assert "does not know anything about 'bread'" in out
    # Asked for the news, whatever it is about.
    out = await cmd(engine, hero, "ask smith about the news")
    assert out == 'The smith says, "Wolves were seen at the weir. You can be sure of that."'
    place(engine, npc("elder"), "yard")
    assert await cmd(engine, hero, "ask elder about rumours") == (
        "The elder has heard nothing worth telling."
    )
