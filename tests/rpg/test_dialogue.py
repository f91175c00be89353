"""``talk``/``ask``, TalkedToEvent and the TalkService extension point."""

from __future__ import annotations

from uuid import UUID

import pytest
from kits.engines import npcs
from kits.heroes import Recorder, new_character, place

from classic_rpg.characters.components import Dialogue, DialogueLine
from classic_rpg.characters.dialogue import TalkService, _tie_line, own_line_about
from classic_rpg.events import TalkedToEvent
from maid_engine.commands import CommandContext
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.living.service import Tie
from maid_stdlib.questgen.text import topic_tokens


async def test_talk_shows_the_greeting_and_emits_talked_to(engine: GameEngine) -> None:
    hero = new_character(engine)
    bob = new_character(engine, "Bob")
    rec = Recorder(engine, TalkedToEvent)
    [elder] = npcs(engine, "rpgtest:elder")
    assert await cmd(engine, hero, "talk elder") == (
        'The village elder says, "Welcome, traveller."\n(You could ask about: bandits, weather.)'
    )
    [event] = rec.of(TalkedToEvent)
    assert (event.character_id, event.npc_id, event.room, event.topic) == (
        hero,
        elder,
        "rpgtest:square",
        "",
    )
    assert "Alice talks to the village elder." in session_for(engine, bob).text()


async def test_topics(engine: GameEngine) -> None:
    hero = new_character(engine)
    rec = Recorder(engine, TalkedToEvent)
    assert await cmd(engine, hero, "ask elder about camp") == (
        'The village elder says, "They camp east of here."'
    )
    assert await cmd(engine, hero, "talk old man about weath") == (
        'The village elder says, "It will rain."'
    )
    assert await cmd(engine, hero, "ask elder bandits") == (
        'The village elder says, "They camp east of here."'
    )
    assert await cmd(engine, hero, "ask elder about dragons") == (
        "The village elder does not know anything about 'dragons'."
    )
    assert [e.topic for e in rec.of(TalkedToEvent)] == ["camp", "weath", "bandits", "dragons"]


async def test_asked_about_what_it_said_itself_an_npc_says_it_again(engine: GameEngine) -> None:
    # Not a topic of its own, but words of its lines: it does not deny them.
    hero = new_character(engine)
    assert await cmd(engine, hero, "ask elder about rain") == (
        'The village elder says, "It will rain."'
    )
    assert await cmd(engine, hero, "ask elder about travellers") == (
        'The village elder says, "Welcome, traveller."'
    )
    assert await cmd(engine, hero, "ask elder about the rain dragons") == (
        "The village elder does not know anything about 'the rain dragons'."
    )


async def test_talk_errors_and_npcs_without_dialogue(engine: GameEngine) -> None:
    hero = new_character(engine)
    new_character(engine, "Bob")
    assert await cmd(engine, hero, "talk") == "Talk to whom?"
    assert await cmd(engine, hero, "talk ghost") == "You do not see 'ghost' here."
    assert await cmd(engine, hero, "talk sword") == "A rusty sword is not someone you can talk to."
    assert await cmd(engine, hero, "ask jerkin about rats") == (
        "A leather jerkin is not someone you can talk to."
    )
    assert await cmd(engine, hero, "talk bob") == "Use 'say' or 'tell' to talk to other players."
    assert await cmd(engine, hero, "ask elder") == "Usage: ask <npc> about <topic>"
    place(engine, hero, "rpgtest:field")
    assert await cmd(engine, hero, "talk rat") == "The giant rat has nothing to say to you."
    place(engine, hero, "rpgtest:camp")
    assert (await cmd(engine, hero, "talk bandit")).startswith("The bandit snarls at you.")


async def test_talk_handlers_run_first_and_can_take_over(engine: GameEngine) -> None:
    hero = new_character(engine)
    talk = engine.services.get(TalkService)
    seen: list[UUID] = []

    def quiet(ctx: CommandContext, npc: UUID) -> bool:
        seen.append(npc)
        return False

    async def quest_giver(ctx: CommandContext, npc: UUID) -> bool:
        ctx.send("The elder offers you a quest.")
        return True

    talk.add_handler(quiet)
    talk.add_handler(quest_giver)
    rec = Recorder(engine, TalkedToEvent)
    assert await cmd(engine, hero, "talk elder") == "The elder offers you a quest."
    assert len(seen) == 1
    assert len(rec.of(TalkedToEvent)) == 1  # emitted even when a handler took over
    assert talk.remove_handler(quest_giver)
    assert "Welcome, traveller." in await cmd(engine, hero, "talk elder")


async def test_failing_handler_does_not_break_talk(engine: GameEngine) -> None:
    hero = new_character(engine)

    def broken(ctx: CommandContext, npc: UUID) -> bool:
        raise RuntimeError("boom")

    engine.services.get(TalkService).add_handler(broken)
    assert "Welcome, traveller." in await cmd(engine, hero, "talk elder")


async def test_topic_handlers(engine: GameEngine) -> None:
    hero = new_character(engine)

    def quests(ctx: CommandContext, npc: UUID, topic: str) -> bool:
        if topic == "work":
            ctx.send("There is work for you.")
            return True
        return False

    engine.services.get(TalkService).add_topic_handler(quests)
    assert await cmd(engine, hero, "ask elder about work") == "There is work for you."
    assert "It will rain." in await cmd(engine, hero, "ask elder about weather")


@pytest.mark.parametrize(
    ("tie", "line"),
    [
        (
            Tie("Ann", "Ann took the well", True, "rival"),
            "Bo's face darkens at the mention of Ann: Ann took the well.",
        ),
        (Tie("Ann", "", True, "rival"), "Bo's face darkens at the mention of Ann (a rival)."),
        (Tie("Ann", "", True), "Bo's face darkens at the mention of Ann."),
        (Tie("Ann", "Ann keeps the books", False), "Bo speaks of Ann: Ann keeps the books."),
        (Tie("Ann", "", False, "family", True), "Bo speaks fondly of Ann, family."),
        (Tie("Ann", "", False, "friend", True), "Bo speaks warmly of Ann, a friend."),
        (Tie("Ann", "", False, "sweetheart", True), "Bo colours at the mention of Ann."),
        (Tie("Ann", "", False, "", True), "Bo speaks warmly of Ann."),
        (Tie("Ann", "", False), "Bo knows Ann, and says no more."),
    ],
)
def test_how_an_npc_speaks_of_someone_it_has_a_tie_with(tie: Tie, line: str) -> None:
    assert _tie_line("Bo", tie) == line


def test_asked_about_words_of_another_version_it_says_the_line_of_now() -> None:
    # The crisis greeting spoke of "the deep seam"; the quiet one only of "the
    # seam". Asked about the deep seam while quiet, it says what it says now.
    dialogue = Dialogue(
        greeting="The deep seam is the only good ore left.",
        lines=[DialogueLine("", "The seam lies quiet by day.", ["quiet"])],
    )

    def quiet(when: list[str]) -> bool:
        return when == ["quiet"]

    def crisis(when: list[str]) -> bool:
        return not when

    deep = topic_tokens("deep seam")
    assert own_line_about(dialogue, deep, crisis) == "The deep seam is the only good ore left."
    assert own_line_about(dialogue, deep, quiet) == "The seam lies quiet by day."
    assert own_line_about(dialogue, topic_tokens("dragons"), quiet) == ""
