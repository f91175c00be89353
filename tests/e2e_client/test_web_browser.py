"""The web client in a real browser against the shipped world, with the narrated room
on the real LLM path (LiteLLM talking to a local OpenAI-compatible server).

A player creates a character, walks, sees colour, sees another player come and go in
the room panel, takes Voss's quest and finds it in
the quest panel, acts in the narrated cellar and sees the state panel change; the
command line keeps the focus and recalls history from the keyboard alone; when the
web port closes and opens again the page reconnects by itself; the page logs no error. Screenshots
of every step are kept in the test's temporary folder (a CI artifact).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from e2e.client import TelnetClient
from e2e.fixtures import served
from e2e_client.browser import Browser, require_browser
from fakellm import Behaviour, FakeOpenAIServer
from selenium.webdriver.common.keys import Keys
from tlspair import cert_pair

from classic_rpg.components import CharacterStats
from maid_engine.accounts.service import AccountService
from maid_engine.commands import Role
from maid_engine.llm import LiteLLMProvider
from maid_engine.web import WebServer
from maid_stdlib.narration import LLMService, NarrationConfig, NarrationService

ACTION = "rattle the cage door"
NARRATION = (
    "You rattle the cage door. Gwen looks up, and for the first time she almost smiles.\n"
    '```state\n{"npc.gwen.trust": +10}\n```'
)


def answer(body: dict[str, Any]) -> Behaviour:
    """The narrated turn gets its story; anything else the game asks gets filler."""
    if ACTION in json.dumps(body.get("messages", [])):
        return Behaviour("ok", text=NARRATION)
    return Behaviour("ok", text="This is a fake completion.")


@pytest.mark.slow  # a browser and LiteLLM's import
async def test_play_in_a_browser_quest_panel_and_narrated_state(tmp_path: Path) -> None:
    require_browser()
    shots = tmp_path / "screenshots"
    with FakeOpenAIServer() as llm:
        llm.respond_with(answer)
        async with served(
            tmp_path / "data",
            web_port=0,
            commands_per_second=100,
            command_burst=100,
            llm_model="openai/test-model",
            llm_api_base=llm.url,
            llm_api_key="sk-test",
        ) as server:
            engine = server.engine
            provider = engine.services.get(LLMService).provider
            assert isinstance(provider, LiteLLMProvider)
            await provider.warm_up()  # the import takes seconds; not part of the turn
            engine.services.get(NarrationService).config = NarrationConfig(
                unfolding_after=30.0, timeout=30.0
            )
            browser = Browser(shots)
            try:
                await browser.open(f"http://127.0.0.1:{server.web_port}/")
                await browser.wait_text("output", "What is your name?")
                assert await browser.active_id() == "command"
                await browser.screenshot("01-login")

                await browser.type_line("create Aldric correct-horse-battery")
                await browser.wait_text("room", "Village Square")
                await browser.wait_text("vitals", "Health")
                # The password never shows: the line was hidden and is not in the log.
                output = await browser.text_of("output")
                assert "correct-horse-battery" not in output
                # What was typed follows the prompt on its line, as in a terminal.
                assert "What is your name? create Aldric ********" in output
                coloured = await browser.script(
                    "return [...document.querySelectorAll('#output span')]"
                    ".filter(s => s.style.color).length;"
                )
                assert coloured > 0, "no coloured text in the output"
                await browser.screenshot("02-square")

                # Walk, from the keyboard alone.
                before = await browser.text_of("room")
                await browser.type_line("north")
                await browser.wait_text("output", "Watch Street")
                after = await browser.wait_text("room", "Watch Street")
                assert after != before
                rooms = await browser.script("return document.querySelectorAll('#map rect').length")
                assert rooms >= 2
                # Up recalls the last command.
                await browser.keys(Keys.ARROW_UP)
                value = await browser.script("return document.getElementById('command').value;")
                assert value == "north"
                await browser.script("document.getElementById('command').value = '';")
                # The room panel's exits are buttons: one walks back, and the command
                # line keeps the focus.
                await browser.click("#room button[aria-label='Go south']")
                await browser.wait_text("room", "Village Square")
                assert await browser.active_id() == "command"
                await browser.type_line("north")
                await browser.wait_text("room", "Watch Street")

                # Another player walks in and out: the panel follows them (one
                # Room.AddPlayer, then one Room.RemovePlayer).
                async with await TelnetClient.open("127.0.0.1", server.telnet_port) as bryn:
                    await bryn.create("Bryn", "correct-horse-battery")
                    await bryn.command("north")
                    await browser.wait_text("room", "Bryn")
                    await bryn.command("south")
                    await browser.wait_text_gone("room", "Bryn")

                [hero] = engine.sessions.characters_online()
                async with engine.world_lock:
                    engine.world.get_component(hero, CharacterStats).level = 2
                await engine.services.get(AccountService).set_role("Aldric", Role.BUILDER)
                await browser.type_line("@goto Captain Voss")
                await browser.wait_text("room", "Guard Post")
                await browser.type_line("talk voss")
                await browser.wait_text("quests", "The Caged Ranger")
                await browser.type_line("accept caged")
                quests = await browser.wait_text("quests", "in progress")
                assert "Free Gwen from the cage" in quests
                await browser.screenshot("03-quest")

                await browser.type_line("@goto ironvale:camp_cellar")
                state = await browser.wait_text("state", "The Cellar Beneath the Camp")
                assert "trust: 20" in state
                await browser.type_line(ACTION)
                await browser.wait_text("output", "she almost smiles")
                state = await browser.wait_text("state", "trust: 30")
                assert "ally" in state
                changed = await browser.script(
                    "return document.querySelectorAll('#state .changed').length;"
                )
                assert changed >= 1
                await browser.screenshot("04-narrated")
                assert await browser.console_errors() == []

                # Focus: a panel reached by Alt+4 and back with Escape.
                await browser.chord(Keys.ALT, "4")
                assert await browser.active_id() == "quests-panel"
                await browser.keys(Keys.ESCAPE)
                assert await browser.active_id() == "command"

                # The web door closes and opens again: the page reconnects by itself.
                port = server.web_port
                await server.web.stop("The web door is being rebuilt.")
                await browser.wait_text("output", "Connection lost; reconnecting")
                assert "reconnecting in" in await browser.text_of("status")
                server.web = WebServer(engine.sessions, port=port, gate=server.telnet.gate)
                await server.web.start()
                await browser.wait_text("output", "Reconnected.")
                await browser.wait_text("status", "Connected")
                out = await browser.text_of("output")
                assert out.rindex("What is your name?") > out.rindex("Reconnected.")
            finally:
                await browser.quit()
    for name in ("01-login", "02-square", "03-quest", "04-narrated"):
        assert (shots / f"{name}.png").stat().st_size > 10_000


@pytest.mark.slow  # a browser
async def test_the_page_over_https_plays_over_wss(tmp_path: Path) -> None:
    require_browser()
    cert, key = cert_pair(tmp_path)
    async with served(
        tmp_path / "data", web_port=0, tls_cert_file=cert, tls_key_file=key
    ) as server:
        # The pair is self-signed: this browser is told to accept it. A page served
        # over https may only open wss:// (ws:// would be blocked as mixed content).
        browser = Browser(tmp_path / "screenshots", insecure=True)
        try:
            await browser.open(f"https://127.0.0.1:{server.web_port}/")
            await browser.wait_text("output", "What is your name?")
            assert await browser.script("return location.protocol;") == "https:"
            await browser.type_line("create Bryn correct-horse-battery")
            await browser.wait_text("room", "Village Square")
            await browser.screenshot("https")
            assert await browser.console_errors() == []
        finally:
            await browser.quit()
    assert (tmp_path / "screenshots" / "https.png").stat().st_size > 10_000
