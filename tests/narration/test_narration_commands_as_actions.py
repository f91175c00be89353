"""In a narrated room, a line a world command cannot make sense of is an action, and
a player arriving there is told that plain words work."""

from __future__ import annotations

from narration.narrkit import CAMP, CELLAR, fast, player, scripted, service, settle

from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.narration.commands import ARRIVAL_HINT, ARRIVAL_HINT_NO_STORYTELLER


async def test_look_for_something_is_told_as_an_action(engine: GameEngine) -> None:
    fast(engine, scripted("You find a bent key.", "You find nothing more."))
    hero, session = player(engine, "Aldric")
    out = await cmd(engine, hero, "look for a spare key among the sacks")
    assert out.startswith("|>You act: look for a spare key among the sacks")
    assert "You do not see" not in out
    await settle(service(engine).drain())
    assert "You find a bent key." in session.text()
    # After act, the words are never read as a command either.
    out = await cmd(engine, hero, "act look under the stairs")
    assert out.startswith("|>You act: look under the stairs")
    await settle(service(engine).drain())


async def test_real_commands_and_their_plain_errors_still_work_there(engine: GameEngine) -> None:
    fast(engine, scripted("It happens."))
    hero, _ = player(engine, "Aldric")
    assert "The Cellar" in await cmd(engine, hero, "look")
    assert "You cannot go that way." in await cmd(engine, hero, "north")  # no words: no story
    # A talking command's error is never handed to the storyteller.
    assert "Nobody called 'zed'" in await cmd(engine, hero, "tell zed where are you")
    assert not service(engine).waiting(CELLAR)


async def test_outside_a_narrated_room_the_error_stands(engine: GameEngine) -> None:
    hero, _ = player(engine, "Aldric", room=CAMP)
    out = await cmd(engine, hero, "look for a spare key")
    assert out == "You do not see 'for a spare key' here."


async def test_a_busy_story_says_so_instead_of_the_command_error(engine: GameEngine) -> None:
    gate_free = scripted("One.", "Two.")
    fast(engine, gate_free, max_pending_per_actor=0)
    hero, _ = player(engine, "Aldric")
    out = await cmd(engine, hero, "look for a key")
    assert "still answering" in out
    assert "You do not see" not in out


async def test_arriving_in_a_narrated_room_tells_how_to_play_it(engine: GameEngine) -> None:
    fast(engine, scripted())
    hero, session = player(engine, "Aldric", room=CAMP)
    session.take()
    await cmd(engine, hero, "down")
    text = session.text()
    assert text.index("The Cellar") < text.index("A storyteller runs this place")
    assert ARRIVAL_HINT in session.sent
    session.take()
    await cmd(engine, hero, "up")
    assert "storyteller" not in session.text()
    # A server with no storyteller says so at the door, not after a first try.
    fast(engine, None)
    await cmd(engine, hero, "down")
    assert ARRIVAL_HINT_NO_STORYTELLER in session.sent
    assert ARRIVAL_HINT not in session.take()
