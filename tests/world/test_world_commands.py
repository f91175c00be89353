"""Player and staff commands of the world layer."""

from __future__ import annotations

from uuid import UUID

import pytest
from kits.engines import hv, ws_of
from kits.heroes import new_character, place
from world.worldkit import connect

from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.events import ShutdownRequestedEvent
from maid_engine.testing import cmd, session_for
from maid_stdlib.world import Describable, ScoreSheet, data_uuid


@pytest.fixture
def hero(engine: GameEngine) -> UUID:
    return new_character(engine, "Alice", online=False)


def at(engine: GameEngine, who: UUID) -> str | None:
    return ws_of(engine).room_key_of(who)


async def test_look_shows_room_exits_and_what_is_here(engine: GameEngine, hero: UUID) -> None:
    out = await cmd(engine, hero, "look")
    lines = out.splitlines()
    assert lines[0] == "|cAshford Green|n"
    assert "stone trough" in lines[1]
    assert lines[2] == "|gExits:|n north, east, south, west"
    assert "Pell the carter sits on the trough, idle." in lines
    assert "Alice" not in out  # you do not see yourself
    assert await cmd(engine, hero, "l") == out


async def test_look_groups_identical_things(engine: GameEngine, hero: UUID) -> None:
    ws_of(engine).move(hero, "hamlet:road_copse")
    out = await cmd(engine, hero, "look")
    assert "Two grey wolves slink between the hazels." in out
    # A line that does not start with the thing's name keeps a count.
    for wolf in ws_of(engine).npcs_in("hamlet:road_copse"):
        engine.world.get_component(wolf, Describable).short = "Grey shapes slink about."
    assert "Grey shapes slink about. [x2]" in await cmd(engine, hero, "look")


async def test_look_at_things_details_directions_and_self(engine: GameEngine, hero: UUID) -> None:
    assert "no cart to drive" in (await cmd(engine, hero, "look carter")).lower()
    assert "drowned leaf" in await cmd(engine, hero, "look trough")
    assert await cmd(engine, hero, "look n") == "Looking north, you see: |cThe Warden's Hut|n."
    engine.world.get_component(hero, Describable).description = "A tall woman."
    assert "A tall woman." in await cmd(engine, hero, "look me")
    assert await cmd(engine, hero, "look dragon") == "You do not see 'dragon' here."


async def test_look_at_numbered_wolves(engine: GameEngine, hero: UUID) -> None:
    ws = ws_of(engine)
    ws.move(hero, "hamlet:road_copse")
    second = data_uuid("hamlet", "npc", "wolf#2")
    engine.world.get_component(second, Describable).description = "The second one."
    assert "The second one." in await cmd(engine, hero, "look 2.wolf")
    assert "The second one." in await cmd(engine, hero, "look 2.grey wo")
    assert "The second one." not in await cmd(engine, hero, "look wolf")
    assert await cmd(engine, hero, "look 3.wolf") == "You do not see '3.wolf' here."


async def test_walking_with_directions_and_aliases(engine: GameEngine, hero: UUID) -> None:
    out = await cmd(engine, hero, "w")
    assert out.startswith("|cMill Lane|n")
    assert at(engine, hero) == "hamlet:mill_lane"
    await cmd(engine, hero, "west")
    assert at(engine, hero) == "hamlet:mill"
    assert await cmd(engine, hero, "n") == "You cannot go that way."
    await cmd(engine, hero, "e")
    await cmd(engine, hero, "ea")
    assert at(engine, hero) == "hamlet:green"
    for line, room in [
        ("n", "warden_hut"),
        ("s", "green"),
        ("e", "inn"),
        ("u", "inn_loft"),
        ("d", "inn"),
        ("w", "green"),
    ]:
        await cmd(engine, hero, line)
        assert at(engine, hero) == f"hamlet:{room}", line


async def test_short_direction_names_win_over_other_commands(engine: GameEngine) -> None:
    from maid_engine.commands import CommandContext, command

    @command("nod", category="social")
    def nod(ctx: CommandContext) -> None:
        """Nod."""

    @command("unlock")
    def unlock(ctx: CommandContext) -> None:
        """Unlock."""

    engine.commands.add(nod, pack="test")
    engine.commands.add(unlock, pack="test")
    for word, key in [
        ("n", "north"),
        ("u", "up"),
        ("no", "north"),
        ("s", "south"),
        ("d", "down"),
        ("ne", "northeast"),
        ("l", "look"),
    ]:
        assert [c.key for c in engine.commands.match(word)] == [key], word


async def test_go_through_named_or_prefixed_exits(engine: GameEngine, hero: UUID) -> None:
    await cmd(engine, hero, "go east")
    assert at(engine, hero) == "hamlet:inn"
    await cmd(engine, hero, "go we")
    assert at(engine, hero) == "hamlet:green"
    assert await cmd(engine, hero, "go") == "Go where?"
    assert await cmd(engine, hero, "go sideways") == "You cannot go that way."
    ws = ws_of(engine)
    ws.set_exit("hamlet:green", "well", "hamlet:inn_loft")
    ws.set_exit("hamlet:green", "wellhouse", "hamlet:mill")
    assert await cmd(engine, hero, "go wel") == "Which way: well, wellhouse?"
    await cmd(engine, hero, "go well")
    assert at(engine, hero) == "hamlet:inn_loft"


async def test_others_see_you_leave_and_arrive(engine: GameEngine, hero: UUID) -> None:
    bob = new_character(engine, "Bob", online=False)
    carol = new_character(engine, "Carol", online=False)
    bob_session = await connect(engine, bob)
    ws_of(engine).move(carol, "hamlet:mill_lane")
    carol_session = await connect(engine, carol)
    await connect(engine, hero)
    bob_session.sent.clear()
    carol_session.sent.clear()
    await cmd(engine, hero, "west")
    assert bob_session.sent == ["Alice leaves west."]
    assert carol_session.sent == ["Alice arrives from the east."]
    await cmd(engine, hero, "east")
    await cmd(engine, hero, "north")
    assert bob_session.sent[-1] == "Alice leaves north."


async def test_say_and_emote_reach_the_room_escaped(engine: GameEngine, hero: UUID) -> None:
    bob = new_character(engine, "Bob", online=False)
    far = new_character(engine, "Far", online=False)
    ws_of(engine).move(far, "hamlet:mill")
    bob_session = await connect(engine, bob)
    far_session = await connect(engine, far)
    await connect(engine, hero)
    bob_session.sent.clear()
    far_session.sent.clear()
    # "|>" marks each line as someone's words (its continuation lines are indented).
    assert await cmd(engine, hero, "say hello |rthere") == '|>You say, "hello ||rthere"'
    assert bob_session.sent == ['|>Alice says, "hello ||rthere"']
    assert await cmd(engine, hero, "'again") == '|>You say, "again"'
    assert await cmd(engine, hero, "emote waves |Bbrightly.") == "|>Alice waves ||Bbrightly."
    assert bob_session.sent[-1] == "|>Alice waves ||Bbrightly."
    assert await cmd(engine, hero, ":'s hat tilts.") == "|>Alice's hat tilts."
    assert far_session.sent == []
    assert await cmd(engine, hero, "say") == "Say what?"
    # Words typed in quotes are not quoted twice; a quotation inside is single-quoted.
    assert await cmd(engine, hero, 'say "Wolves?"') == '|>You say, "Wolves?"'
    assert await cmd(engine, hero, "say 'Wolves?'") == '|>You say, "Wolves?"'
    assert await cmd(engine, hero, "say \u201cWolves?\u201d") == '|>You say, "Wolves?"'
    assert await cmd(engine, hero, 'say He said "run".') == "|>You say, \"He said 'run'.\""
    assert await cmd(engine, hero, "say it's Tam's") == "|>You say, \"it's Tam's\""
    assert await cmd(engine, hero, 'say " "') == "Say what?"
    assert await cmd(engine, hero, "emote") == "Emote what?"


async def test_tell_reaches_a_player_anywhere(engine: GameEngine, hero: UUID) -> None:
    bob = new_character(engine, "Bobby", online=False)
    ws_of(engine).move(bob, "hamlet:wolf_den")
    bob_session = await connect(engine, bob)
    await connect(engine, hero)
    bob_session.sent.clear()
    out = await cmd(engine, hero, "tell bob meet me at the |gforge")
    assert out == '|>|mYou tell Bobby,|n "meet me at the ||gforge"'
    assert bob_session.sent == ['|>|mAlice tells you,|n "meet me at the ||gforge"']
    assert await cmd(engine, hero, "tell alice hi") == "You mutter something to yourself."
    assert await cmd(engine, hero, "tell zed hi") == "Nobody called 'zed' is playing right now."
    assert await cmd(engine, hero, "tell bobby") == "Usage: tell <name> <message>"
    offline = new_character(engine, "Olga", online=False)
    assert offline
    assert "Nobody called 'Olga'" in await cmd(engine, hero, "tell Olga hi")


async def test_who_lists_online_players_only(engine: GameEngine, hero: UUID) -> None:
    new_character(engine, "Sleeper", online=False)
    bob = new_character(engine, "Bob", online=False)
    await connect(engine, bob)
    await connect(engine, hero)
    out = await cmd(engine, hero, "who")
    assert out == "|cPlayers online:|n\n  Alice\n  Bob\n2 players online."
    assert "Sleeper" not in await cmd(engine, hero, "look")


async def test_help_lists_commands_by_category_for_the_role(engine: GameEngine, hero: UUID) -> None:
    out = await cmd(engine, hero, "help")
    flat = " ".join(out.split())  # the index is wrapped to the window

    def section(name: str) -> set[str]:
        return set(flat.split(f"|c{name}:|n ", 1)[1].split(" |c", 1)[0].split(", "))

    assert {"help", "look", "score", "who"} <= section("General")
    # A command with other words for it is listed with them ("emote/pose").
    assert {"emote/pose", "say", "tell"} <= section("Communication")
    assert "@shutdown" not in out
    assert "@goto" not in out
    admin = await cmd(engine, hero, "help", role=Role.ADMIN)
    assert "|cAdmin:|n @announce, @kick, @mute, @reports, @shutdown, @unmute, @who" in " ".join(
        admin.split()
    )
    admin_flat = " ".join(admin.split())
    building = admin_flat.split("|cBuilding:|n ", 1)[1].split(" |c", 1)[0].split(", ")
    assert {"@dig", "@goto", "@reload", "@set"} <= set(building)
    assert building == sorted(building)
    topic = await cmd(engine, hero, "help look")
    assert topic.startswith("|clook|n (also: l)\nLook around")
    assert "look 2.scout" in topic
    assert (await cmd(engine, hero, "help sc")).startswith("|cscore|n")
    assert "There is no help on '@shutdown'" in await cmd(engine, hero, "help @shutdown")
    assert "Teleport" in await cmd(engine, hero, "help @goto", role=Role.ADMIN)
    assert "could mean" in await cmd(engine, hero, "help @", role=Role.ADMIN)


async def test_score_has_extensible_sections(engine: GameEngine, hero: UUID) -> None:
    out = await cmd(engine, hero, "score")
    # The world layer's own section comes first; loaded packs (classic_rpg) add more.
    assert out.splitlines()[:3] == [
        "|cName:|n  Alice",
        "|cRoom:|n  Ashford Green",
        "|cArea:|n  Ashford",
    ]
    sheet = engine.services.get(ScoreSheet)
    sheet.add("level", lambda e, c: "|cLevel:|n 1", order=10_000)
    sheet.add("empty", lambda e, c: None)
    assert (await cmd(engine, hero, "score")).endswith("|cLevel:|n 1")
    sheet.add("identity", lambda e, c: ["replaced"], order=0)
    lines = (await cmd(engine, hero, "score")).splitlines()
    assert lines[0] == "replaced"
    assert lines[-1] == "|cLevel:|n 1"
    assert sheet.remove("level")
    assert "level" not in sheet.keys()
    assert sheet.keys()[0] == "identity"
    assert "empty" in sheet.keys()


async def test_goto_by_key_local_key_name_or_character(engine: GameEngine, hero: UUID) -> None:
    assert await cmd(engine, hero, "@goto mill") == (
        "Huh? '@goto' is not a command. Type 'help' for a list."
    )
    assert at(engine, hero) == "hamlet:green"
    bob = new_character(engine, "Bob", online=False)
    bob_session = await connect(engine, bob)
    bob_session.sent.clear()
    out = await cmd(engine, hero, "@goto hamlet:mill", role=Role.BUILDER)
    assert out.startswith("|cThe Mill|n")
    assert bob_session.sent == ["Alice vanishes in a swirl of mist."]
    await cmd(engine, hero, "@goto inn", role=Role.BUILDER)
    assert at(engine, hero) == "hamlet:inn"
    await cmd(engine, hero, "@goto wolf den", role=Role.BUILDER)
    assert at(engine, hero) == "hamlet:wolf_den"
    await cmd(engine, hero, "@goto warden tamsin", role=Role.BUILDER)
    assert at(engine, hero) == "hamlet:warden_hut"
    # Someone named by a keyword, wherever they are now.
    place(engine, hv("marta"), "hamlet:mill_lane")
    await cmd(engine, hero, "@goto innkeeper", role=Role.BUILDER)
    assert at(engine, hero) == "hamlet:mill_lane"
    assert "could be:" in await cmd(engine, hero, "@goto grey", role=Role.BUILDER)
    await cmd(engine, hero, "@goto warden tamsin", role=Role.BUILDER)
    out = await cmd(engine, hero, "@goto the", role=Role.BUILDER)
    assert "matches several rooms" in out
    assert "No room or character matches 'atlantis'" in await cmd(
        engine, hero, "@goto atlantis", role=Role.ADMIN
    )
    assert await cmd(engine, hero, "@goto warden_hut", role=Role.ADMIN) == "You are already there."


async def test_at_who_lists_sessions_for_admins(engine: GameEngine, hero: UUID) -> None:
    bob = new_character(engine, "Bob", online=False)
    await connect(engine, bob)
    await connect(engine, hero, role=Role.ADMIN)
    session_for(engine, hero).data["last_input"] = None
    assert "Huh? '@who' is not a command." in await cmd(engine, hero, "@who")
    assert "permission" in await cmd(engine, hero, "@who", role=Role.BUILDER)
    # Nothing after @who: an unexpected word is an error, not silently ignored.
    assert await cmd(engine, hero, "@who extra", role=Role.ADMIN) == (
        "@who takes no arguments (you gave 'extra').\nUsage: @who"
    )
    out = await cmd(engine, hero, "@who", role=Role.ADMIN)
    lines = out.splitlines()
    assert lines[0].startswith("|cCharacter")
    assert any(
        line.startswith("Bob") and "127.0.0.1" in line and "hamlet:green" in line for line in lines
    )
    assert lines[-1] == "2 connections."


async def test_shutdown_needs_an_admin(engine: GameEngine, hero: UUID) -> None:
    seen: list[ShutdownRequestedEvent] = []
    engine.events.subscribe(ShutdownRequestedEvent, seen.append)
    out = await cmd(engine, hero, "@shutdown now")
    assert "Huh?" in out
    assert not engine.shutdown_requested.is_set()
    out = await cmd(engine, hero, "@shutdown for the patch", role=Role.ADMIN)
    assert out == "Shutdown requested: for the patch."
    assert engine.shutdown_requested.is_set()
    assert engine.shutdown_reason == "for the patch"
    assert seen
    assert seen[0].requested_by == hero


async def test_commands_without_a_room_say_so(engine: GameEngine, hero: UUID) -> None:
    ws_of(engine).remove_from_world(hero)
    assert "You are nowhere" in await cmd(engine, hero, "look")
    assert "You are nowhere" in await cmd(engine, hero, "north")
