"""``config``: colour, prompt, page length, brief and auto-exits, kept with the
character across logins."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import HAMLET, HAMLET_RPG, make_engine, room_key
from kits.heroes import new_character, place
from world.worldkit import connect, disconnect

from maid_engine.engine import GameEngine
from maid_engine.sessions import ColorMode
from maid_engine.testing import cmd, session_for
from maid_stdlib.options import PlayerOptions, PromptFormatter, PromptTokens
from maid_stdlib.options.prompt import clean_format
from maid_stdlib.options.session import apply_options
from maid_stdlib.world.pager import page_height


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    async with make_engine(tmp_path, HAMLET, tick=None, seed=None).lifespan() as started:
        yield started


async def test_config_lists_every_setting_with_defaults(engine: GameEngine) -> None:
    ada = new_character(engine, "Ada")
    out = (await cmd(engine, ada, "config")).splitlines()
    assert out[0] == "Your settings (change one with 'config <setting> <value>'):"
    assert out[1].startswith("  |ccolour    |n  as your client says")
    assert "default" in out[2]
    assert "your window's height" in out[3]
    assert out[4].startswith("  |cbrief     |n  off")
    assert out[5].startswith("  |cautoexits |n  on")
    # Looking is not changing: nothing is stored yet.
    assert not engine.world.has_component(ada, PlayerOptions)


async def test_colour_off_strips_it_and_on_restores_it(engine: GameEngine) -> None:
    ada = new_character(engine, "Ada")
    session = session_for(engine, ada)
    session.caps.color = ColorMode.XTERM256
    assert await cmd(engine, ada, "config colour off") == "Colour is off."
    assert session.caps.color is ColorMode.NONE
    assert await cmd(engine, ada, "config color") == "Colour is on."  # switched over
    assert session.caps.color == ColorMode(2)  # what the client negotiated
    # A client that never said it shows colour gets plain ANSI when asked for it.
    plain = session_for(engine, new_character(engine, "Bob"))
    apply_options(plain, PlayerOptions(color=True))
    assert plain.caps.color is ColorMode.ANSI16
    apply_options(plain, None)
    assert plain.caps.color == ColorMode(0)  # back to what it negotiated
    assert "'maybe' is not on or off." in await cmd(engine, ada, "config colour maybe")


async def test_brief_leaves_out_descriptions_when_walking_only(engine: GameEngine) -> None:
    ada = new_character(engine, "Ada")
    place(engine, ada, room_key(engine, "green"))
    full = await cmd(engine, ada, "look")
    description = full.splitlines()[1]
    assert "Brief mode is on" in await cmd(engine, ada, "config brief on")
    exits = next(ln for ln in full.splitlines() if ln.startswith("|gExits:|n"))
    direction = exits.split("|n ", 1)[1].split(", ")[0]
    walked = await cmd(engine, ada, direction)
    assert walked.splitlines()[1].startswith("|gExits:|n")
    looked = await cmd(engine, ada, "look")
    assert looked.splitlines()[1] not in ("", walked.splitlines()[1])  # description is back
    assert description  # the green has one
    assert "Brief mode is off" in await cmd(engine, ada, "config brief")


async def test_autoexits_off_hides_the_exits_line(engine: GameEngine) -> None:
    ada = new_character(engine, "Ada")
    place(engine, ada, room_key(engine, "green"))
    assert "|gExits:|n" in await cmd(engine, ada, "look")
    assert "hidden" in await cmd(engine, ada, "config autoexits off")
    out = await cmd(engine, ada, "look")
    assert "Exits:" not in out
    assert out.splitlines()[0].startswith("|c")
    await cmd(engine, ada, "config exits on")
    assert "|gExits:|n" in await cmd(engine, ada, "look")


async def test_page_length_drives_the_pager(engine: GameEngine) -> None:
    ada = new_character(engine, "Ada")
    session = session_for(engine, ada)
    assert page_height(session) > 10
    assert await cmd(engine, ada, "config pagelength 8") == "Pages are 8 lines long."
    assert page_height(session) == 8
    assert "at least 5" in await cmd(engine, ada, "config page 2")
    assert "0 to 500" in await cmd(engine, ada, "config pagelength 9999")
    assert "Usage: config pagelength" in await cmd(engine, ada, "config pagelength lots")
    assert "as tall as your window" in await cmd(engine, ada, "config pagelength 0")
    assert page_height(session) > 10


async def test_prompt_formats_tokens_and_default(engine: GameEngine) -> None:
    ada = new_character(engine, "Ada")
    place(engine, ada, room_key(engine, "green"))
    session = session_for(engine, ada)
    game = engine.services.get(PromptFormatter)
    before = game(session)
    out = await cmd(engine, ada, "config prompt [%n in %r, 100%% %q]>")
    assert out == "Your prompt is now: [%n in %r, 100%% %q]>"
    room = engine.services.get(PromptTokens).render("%r", ada)
    assert game(session) == f"[Ada in {room}, 100% %q]> "
    listing = await cmd(engine, ada, "config prompt")
    assert "%n your name" in listing
    assert "%r your room" in listing
    assert "A prompt is at most 120" in await cmd(engine, ada, "config prompt " + "x" * 121)
    assert "game's own" in await cmd(engine, ada, "config prompt default")
    assert game(session) == before
    assert "There is no setting 'hue'" in await cmd(engine, ada, "config hue red")


def test_tokens_are_single_characters() -> None:
    tokens = PromptTokens()
    with pytest.raises(ValueError, match="one character"):
        tokens.add("hp", "health", lambda _uid: 1)
    with pytest.raises(ValueError, match="one character"):
        tokens.add("%", "percent", lambda _uid: 1)
    assert clean_format("  <%h>  ") == "<%h> "


async def test_rpg_tokens_fill_the_prompt(tmp_path: Path) -> None:
    async with make_engine(tmp_path, HAMLET_RPG, tick=None, seed=None).lifespan() as engine:
        ada = new_character(engine, "Ada")
        await cmd(engine, ada, "config prompt <%h/%Hhp %m/%Mmn %gg %xtnl>")
        shown = engine.services.get(PromptFormatter)(session_for(engine, ada))
        assert shown == "<30/30hp 15/15mn 10g 100tnl> "
        # Without a format of their own, a character keeps the game's prompt.
        bob = new_character(engine, "Bob")
        assert "hp" in engine.services.get(PromptFormatter)(session_for(engine, bob))


async def test_settings_are_kept_across_logins(tmp_path: Path) -> None:
    first = make_engine(tmp_path, HAMLET, tick=None, seed=None, use_store=True)
    async with first.lifespan():
        ada = new_character(first, "Ada", online=False)
        session = await connect(first, ada)
        session.caps.color = ColorMode.ANSI16
        for line in ("colour off", "brief on", "autoexits off", "pagelength 12", "prompt >>"):
            await cmd(first, ada, f"config {line}")
        await disconnect(first, session)
        await first.save_entities_now()
    again = make_engine(tmp_path, HAMLET, tick=None, seed=None, use_store=True)
    async with again.lifespan():
        session = await connect(again, ada)
        assert again.world.get_component(ada, PlayerOptions) == PlayerOptions(
            color=False, prompt=">> ", page_length=12, brief=True, auto_exits=False
        )
        assert session.caps.color is ColorMode.NONE  # applied on login
        assert page_height(session) == 12
        assert "Exits:" not in session.text()  # the room shown on login follows them too
        assert again.services.get(PromptFormatter)(session) == ">> "
