"""Over a real socket, as a new player meets them: the newbie guide, help topics and
search, typo suggestions, who/score/equipment, reports and settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e.client import ClientPool, flat
from e2e.fixtures import served, telnet

from maid_engine.accounts.service import AccountService
from maid_engine.app import MaidServer
from maid_engine.sessions import ColorMode
from maid_stdlib.reports import ReportDesk

__all__ = ["telnet"]


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[MaidServer]:
    async with served(tmp_path, commands_per_second=100, command_burst=100) as server:
        yield server


async def test_guide_help_topics_search_and_suggestions(
    live: MaidServer, telnet: ClientPool
) -> None:
    client = await telnet.open("127.0.0.1", live.telnet_port)
    out = flat(await client.create("Orla", "quiet-harbour-7"))
    assert "New here? A short guide" in out
    assert "A good start: walk north up Watch Street to the Guard Post" in out
    assert "lost? back to the village square (not in a fight)" in out
    assert "New here?" not in await client.command("look")
    combat = flat(await client.command("help combat"))
    assert combat.startswith("Fighting (help combat)")
    assert "wimpy <hp>" in combat
    assert "Pyrrhic victory" in flat(await client.command("help pyrrhic"))
    found = flat(await client.command("help search draught"))
    assert "newbie (A short guide to Ironvale)" in found
    assert "combat (Fighting)" in found
    assert "Huh? 'lok' is not a command. Did you mean 'look'?" in flat(await client.command("lok"))
    index = flat(await client.command("help"))
    if "-- more --" in index:  # taller than the window: the pager has the rest
        index += " " + flat(await client.command("more all"))
    assert "Topics (type 'help <topic>'" in index
    assert "The world: ironvale" in index


async def test_who_score_equipment_and_looking_at_a_player(
    live: MaidServer, telnet: ClientPool
) -> None:
    ada = await telnet.open("127.0.0.1", live.telnet_port)
    await ada.create("Ada", "bright-copper-12")
    bob = await telnet.open("127.0.0.1", live.telnet_port)
    await bob.create("Bob", "dark-bellows-34")
    await bob.command("title the bellows-boy")
    await bob.command("describe A soot-faced lad.")
    who = flat(await ada.command("who"))
    assert "[ 1] Ada" in who
    assert "[ 1] Bob the bellows-boy" in who
    assert "2 players online." in who
    score = flat(await ada.command("score"))
    assert "Level: 1 Experience: 0/100 (100 to next level)" in score
    assert "Quests: none done yet" in score
    eq = flat(await ada.command("eq"))
    assert eq.startswith("You are not wearing anything. <weapon> (nothing)")
    looked = flat(await ada.command("look bob"))
    assert "A soot-faced lad." in looked
    assert "Bob is not using any equipment." in looked


async def test_a_bug_report_reaches_the_database(live: MaidServer, telnet: ClientPool) -> None:
    client = await telnet.open("127.0.0.1", live.telnet_port)
    await client.create("Tamsin", "low-lantern-51")
    out = flat(await client.command("bug the square's fountain is dry"))
    assert "Thank you: bug report #1 is filed for the admins." in out
    assert "Huh? '@reports' is not a command." in flat(await client.command("@reports"))
    [report] = await live.engine.services.get(ReportDesk).listing()
    assert (report.kind, report.reporter, report.room_name) == (
        "bug",
        "Tamsin",
        "Ironvale Village Square",
    )
    assert "typo report #2" in flat(await client.command("typo the well is spelt 'wel'"))
    assert "idea #3" in flat(await client.command("idea a ferry at the ford"))
    await live.engine.services.get(AccountService).set_role("Tamsin", "admin")
    listing = flat(await client.command("@reports"))
    assert "3 open reports:" in listing
    assert "#2 [typo]" in listing
    closed = flat(await client.command("@reports close 1 the fountain is fixed"))
    assert "Report #1 is closed." in closed
    assert "Your bug report #1 was closed by Tamsin: the fountain is fixed" in closed


async def test_read_and_a_confirmed_abandon(live: MaidServer, telnet: ClientPool) -> None:
    client = await telnet.open("127.0.0.1", live.telnet_port)
    await client.create("Ivo", "green-anvil-19")
    await client.command("north")
    await client.command("north")
    assert "Red crosses cluster" in flat(await client.command("read map"))
    await client.command("talk voss")
    await client.command("accept road-scouts")
    asked = flat(await client.command("abandon road-scouts"))
    assert "Type 'abandon road-scouts confirm' to give it up." in asked
    done = flat(await client.command("abandon road-scouts confirm"))
    assert "You abandon 'Scouts on the Road'." in done


async def test_settings_change_the_game_and_survive_a_new_login(
    live: MaidServer, telnet: ClientPool
) -> None:
    client = await telnet.open("127.0.0.1", live.telnet_port)
    await client.create("Orrin", "slow-river-88")
    assert "Pages are 10 lines long." in await client.command("config pagelength 10")
    assert "Colour is on." in await client.command("config colour on")
    [uid] = live.engine.sessions.characters_online()
    session = live.engine.sessions.session_for(uid)
    assert session is not None
    colours = [session.caps.color]
    await client.command("config colour off")
    colours.append(session.caps.color)
    assert colours == [ColorMode.ANSI16, ColorMode.NONE]
    await client.command("config prompt [%h/%H %n]>")
    out = await client.command("config autoexits off")
    assert out.rstrip().endswith("[30/30 Orrin]>")  # the new prompt, right away
    assert "Exits:" not in await client.command("look")
    await client.command("config brief on")
    walked = flat(await client.command("north"))
    assert walked.startswith("Watch Street [30/30 Orrin]>")  # no description, no exits
    await client.quit()

    again = await telnet.open("127.0.0.1", live.telnet_port)
    back = await again.connect_as("Orrin", "slow-river-88")
    assert back.rstrip().endswith("[30/30 Orrin]>")
    assert "Exits:" not in back
    listing = flat(await again.command("config"))
    assert "colour off" in listing
    assert "pagelength 10" in listing
    assert "brief on" in listing


async def test_messages_that_arrive_on_their_own_are_followed_by_a_prompt(
    live: MaidServer, telnet: ClientPool
) -> None:
    ada = await telnet.open("127.0.0.1", live.telnet_port)
    await ada.create("Ada", "bright-copper-12")
    bob = await telnet.open("127.0.0.1", live.telnet_port)
    await bob.create("Bob", "dark-bellows-34")
    ada.skip()
    await bob.command("tell ada the forge is lit")
    told = await ada.read_until_prompt()
    assert "Bob tells you," in told
    assert told.rstrip().endswith("hp 15/15mp>")  # the prompt came after it
    ada.send_line("x" * 5000)
    refused = await ada.read_until_prompt()
    assert "Line too long" in refused
    assert refused.rstrip().endswith("mp>")


async def test_a_wrong_current_password_is_named(live: MaidServer, telnet: ClientPool) -> None:
    client = await telnet.open("127.0.0.1", live.telnet_port)
    await client.create("Pell", "first-secret-41")
    out = await client.command("password not-my-password second-secret-42")
    if "Your current password" not in out:
        out += await client.read_until_prompt()  # the answer comes when hashing is done
    assert "Your current password is not correct; your password is unchanged." in flat(out)
    assert "Wrong name or password" not in out
