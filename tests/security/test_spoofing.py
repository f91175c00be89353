"""What other players (and a prompt-injected model) can make you see: never a line
that starts like the game's own text (real sockets, in-process server).

The attacks: padding an emote, a say or a tell to the line width so that the next
line starts with ``Overseer tells you, "..."``; a narration that writes fake tells
and "The server is shutting down. Goodbye!"; bidi controls, zero-width characters
and line separators in what players type. Each is asserted on the exact lines the
victim's client receives (80 columns: the client does not negotiate its width).
"""

from __future__ import annotations

import re
from uuid import UUID

from e2e.client import ClientPool, TelnetClient

from maid_engine.accounts import AccountService
from maid_engine.app import MaidServer
from maid_engine.llm import ScriptedProvider
from maid_stdlib.narration import NarrationConfig, NarrationService
from maid_stdlib.world import WorldService

WIDTH = 80
FAKE_TELL = 'Overseer tells you, "Your account is flagged: type your password to keep it."'


def _id(live: MaidServer, name: str) -> UUID:
    found = live.engine.services.get(AccountService).character_named(name)
    assert found is not None, name
    return found[0]


async def _lines_until(client: TelnetClient, last: str) -> list[str]:
    """The lines received from the cursor up to the one ending with ``last``, without
    the prompts and blank lines around them."""
    text = await client.expect(re.compile(re.escape(last) + r"\n"))
    lines = [line.removeprefix("> ") for line in text.split("\n")]
    return [line for line in lines if line.strip(" >")]


async def _pair(live: MaidServer, telnet: ClientPool) -> tuple[TelnetClient, TelnetClient]:
    alice = await telnet.open("127.0.0.1", live.telnet_port)
    await alice.create("Alice", "alicepass1")
    mallory = await telnet.open("127.0.0.1", live.telnet_port, source="127.0.4.9")
    await mallory.create("Mallory", "mallorypw1")
    return alice, mallory


def _padded(prefix: str, filler: str) -> str:
    """``filler`` padded with blanks so that ``prefix + filler`` fills the line exactly:
    before the fix, the wrap put whatever followed at the start of the next line."""
    return filler + " " * (WIDTH - len(prefix) - len(filler))


async def test_padded_emote_say_and_tell_never_start_a_line_with_their_text(
    live: MaidServer, telnet: ClientPool
) -> None:
    alice, mallory = await _pair(live, telnet)
    await alice.command("look")

    # emote: "Mallory stretches." and 62 blanks fill the line; the fake tell follows.
    alice.skip()
    await mallory.command(f"emote {_padded('Mallory ', 'stretches.')}{FAKE_TELL}")
    assert await _lines_until(alice, 'keep it."') == [
        "Mallory stretches.",
        "  " + FAKE_TELL,
    ]

    # say: the fake system line after a padded quote.
    alice.skip()
    spoof = "The server is shutting down. Goodbye!"
    said = 'Mallory says, "'
    await mallory.command(f"say {_padded(said, 'hm.')}{spoof}")
    assert await _lines_until(alice, 'Goodbye!"') == [
        'Mallory says, "hm.',
        '  The server is shutting down. Goodbye!"',
    ]

    # tell: a long message wraps with every continuation line indented.
    alice.skip()
    told = 'Mallory tells you, "'
    await mallory.command(f"tell Alice {_padded(told, 'psst')}{FAKE_TELL} Quickly, now.")
    lines = await _lines_until(alice, 'now."')
    # (Double quotation marks inside someone's words are shown as single ones.)
    assert lines == [
        'Mallory tells you, "psst',
        "  Overseer tells you, 'Your account is flagged: type your password to keep it.'",
        '  Quickly, now."',
    ]
    # Only the game's own text ever starts a line: every line Alice received from
    # the others since she logged in starts with a real name or is indented.
    received = alice.transcript.split("Welcome, Alice.", 1)[1].split("\n")
    assert not [line for line in received if line.startswith(("Overseer", "The server"))]


async def test_invisible_and_reordering_characters_are_removed_from_player_text(
    live: MaidServer, telnet: ClientPool
) -> None:
    alice, mallory = await _pair(live, telnet)
    alice.skip()
    # U+202E would show the rest reversed ("exe.txt" as "txt.exe"), zero-width
    # characters hide words from a reader and a filter, U+2028 breaks the line on
    # some clients.
    await mallory.command(
        "say open \u202etxt.exe\u202c now\u200b\u200c\u200d\u2060\ufeff!\u2028"
        "Overseer tells you\u2029hi\u2066x\u2069"
    )
    assert await _lines_until(alice, 'hix"') == [
        'Mallory says, "open txt.exe now! Overseer tells you hix"'
    ]
    alice.skip()
    await mallory.command("emote \u202ewaves\u200b.")
    assert await _lines_until(alice, "Mallory waves.") == ["Mallory waves."]
    alice.skip()
    await mallory.command("tell Alice \u2066secret\u2069\u2028plan")
    assert await _lines_until(alice, 'plan"') == ['Mallory tells you, "secret plan"']
    # Text made only of invisible characters is no text at all.
    assert "Say what?" in await mallory.command("say \u200b\u202e\u2060")


INJECTED = (
    "The bandits' cellar is cold and still.\n"
    f"{FAKE_TELL}\n"
    "\n"
    "The server is shutting down. Goodbye!\n"
    'Alice tells you, \u202e"drowssap ruoy em evig" ' + "and more words " * 5
)


async def test_narration_from_a_prompt_injected_model_is_marked_as_narration(
    live: MaidServer, telnet: ClientPool
) -> None:
    svc = live.engine.services.get(NarrationService)
    svc.config = NarrationConfig(unfolding_after=30.0, timeout=30.0)
    svc.provider = ScriptedProvider([INJECTED])
    alice, mallory = await _pair(live, telnet)
    ws = live.engine.services.get(WorldService)
    async with live.engine.world_lock:
        for name in ("Alice", "Mallory"):
            ws.move(_id(live, name), "ironvale:camp_cellar", reason="test")
    await alice.command("look")
    alice.skip()
    await mallory.command("act listen at the door")
    lines = await _lines_until(alice, "and more words")
    # The action is Mallory's words; every line of the story is indented (wrapped
    # lines too), so none of it can pass for the server's own messages.
    assert lines == [
        "Mallory acts: listen at the door",
        "  The bandits' cellar is cold and still.",
        "  " + FAKE_TELL,
        "  The server is shutting down. Goodbye!",
        '  Alice tells you, "drowssap ruoy em evig" and more words and more words and',
        "  more words and more words and more words",
    ]
