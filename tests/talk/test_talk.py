"""Talking on Hamlet: channels (history, on/off stored per character), shout,
whisper, reply, afk and data-driven socials, with players' words made inert."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from uuid import UUID

import pytest
from kits.engines import hamlet_engine, hv, make_engine
from kits.hamlet.pack import HamletPack
from kits.heroes import new_character, place

from maid_engine.content import ContentPack, PackContext, PackError
from maid_engine.engine import GameEngine
from maid_engine.net.markup import strip_markup
from maid_engine.testing import FakeSession, cmd, session_for
from maid_stdlib.pack import StdlibContentPack
from maid_stdlib.talk import ChannelPrefs, TalkData
from maid_stdlib.talk.channels import HISTORY
from maid_stdlib.world.components import Away


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    async with hamlet_engine(tmp_path).lifespan() as eng:
        yield eng


def player(engine: GameEngine, name: str, room: str = "hamlet:green") -> UUID:
    uid = new_character(engine, name)
    place(engine, uid, room)
    return uid


def heard(engine: GameEngine, uid: UUID) -> str:
    session = session_for(engine, uid)
    assert isinstance(session, FakeSession)
    text = "\n".join(session.sent)
    session.sent.clear()
    return text


async def test_a_channel_reaches_everyone_online_who_listens(engine: GameEngine) -> None:
    alice, bob = player(engine, "Alice"), player(engine, "Bob", "hamlet:mill")
    await cmd(engine, alice, "ooc hello all")
    assert "[OOC]|n Alice: hello all" in heard(engine, bob)
    assert "[OOC]|n Alice: hello all" in heard(engine, alice)
    out = await cmd(engine, bob, "ooc off")
    assert "is off: you no longer hear it" in out
    assert engine.world.get_component(bob, ChannelPrefs).off == ["ooc"]
    await cmd(engine, alice, "ooc anyone?")
    assert "anyone?" not in heard(engine, bob)
    refused = await cmd(engine, bob, "ooc me too")
    assert refused == "You have OOC turned off. Type 'ooc on' to join it."
    channels = await cmd(engine, bob, "channels")
    assert "ooc" in channels
    assert "off" in channels
    assert "newbie" in channels
    assert "gossip" in channels
    await cmd(engine, bob, "ooc on")
    assert engine.world.get_component(bob, ChannelPrefs).off == []
    await cmd(engine, alice, "newbie where is the mill?")
    assert "[Newbie]|n Alice: where is the mill?" in heard(engine, bob)
    assert "Say what on OOC?" in await cmd(engine, alice, "ooc")


async def test_history_keeps_the_last_lines(engine: GameEngine) -> None:
    alice = player(engine, "Alice")
    assert "Nothing has been said" in await cmd(engine, alice, "gossip history")
    for i in range(HISTORY + 5):
        await cmd(engine, alice, f"gossip line {i}")
    out = await cmd(engine, alice, "gossip history")
    assert f"Last {HISTORY} on" in out
    assert "line 4\n" not in out + "\n"
    assert "line 5" in out
    assert f"line {HISTORY + 4}" in out
    assert await cmd(engine, alice, "history gossip") == out
    assert "There is no channel 'nope'" in await cmd(engine, alice, "history nope")
    assert "History of which channel?" in await cmd(engine, alice, "history")


async def test_players_words_cannot_paint_or_fake_lines(engine: GameEngine) -> None:
    alice, bob = player(engine, "Alice"), player(engine, "Bob")
    await cmd(engine, alice, "ooc |rred||")
    got = heard(engine, bob)
    assert "||rred" in got
    assert "|rred" not in got.replace("||r", "")
    await cmd(engine, alice, "shout |[hi")
    assert "||[hi" in heard(engine, bob)


async def test_shout_reaches_the_whole_area_only(engine: GameEngine) -> None:
    alice = player(engine, "Alice")
    bob = player(engine, "Bob", "hamlet:inn")
    carl = player(engine, "Carl", "hamlet:road_copse")
    heard(engine, carl)
    assert 'You shout, "Wolves!"' in await cmd(engine, alice, "shout Wolves!")
    assert 'Alice shouts, "Wolves!"' in heard(engine, bob)
    assert "Wolves" not in heard(engine, carl)
    assert await cmd(engine, alice, "shout") == "Shout what?"
    assert 'You shout, "Run!"' in await cmd(engine, alice, 'shout "Run!"')


async def test_whisper_is_private_but_seen(engine: GameEngine) -> None:
    alice, bob, carl = player(engine, "Alice"), player(engine, "Bob"), player(engine, "Carl")
    for uid in (bob, carl):
        heard(engine, uid)
    out = await cmd(engine, alice, "whisper bob the key is under the mat")
    assert 'You whisper to Bob,|n "the key is under the mat"' in out
    assert 'Alice whispers to you,|n "the key is under the mat"' in heard(engine, bob)
    seen = heard(engine, carl)
    assert "Alice whispers something to Bob." in seen
    assert "mat" not in seen
    player(engine, "Dave", "hamlet:mill")
    assert "nobody called 'dave' here" in await cmd(engine, alice, "whisper dave hi")
    assert "to yourself" in await cmd(engine, alice, "whisper alice hi")
    assert "Usage: whisper" in await cmd(engine, alice, "whisper bob")
    assert "Usage: whisper" in await cmd(engine, alice, 'whisper bob ""')
    out = await cmd(engine, alice, 'whisper bob "the old "mill" key"')
    assert "You whisper to Bob,|n \"the old 'mill' key\"" in out


async def test_reply_answers_the_last_tell_or_whisper(engine: GameEngine) -> None:
    alice, bob = player(engine, "Alice"), player(engine, "Bob", "hamlet:mill")
    assert "Nobody has sent you" in await cmd(engine, bob, "reply hi")
    await cmd(engine, alice, "tell bob are you there?")
    out = await cmd(engine, bob, "reply yes, at the mill")
    assert 'You tell Alice,|n "yes, at the mill"' in out
    assert 'Bob tells you,|n "yes, at the mill"' in heard(engine, alice)
    # Alice's reply goes back to Bob, who last wrote to her.
    await cmd(engine, alice, "r good")
    assert 'Alice tells you,|n "good"' in heard(engine, bob)
    assert await cmd(engine, alice, "reply") == "Reply what?"
    # Quoting what was said (gossip, a tell) does not nest quotation marks.
    await cmd(engine, alice, 'reply Tam says "the wolves are back"')
    assert "Alice tells you,|n \"Tam says 'the wolves are back'\"" in heard(engine, bob)
    engine.sessions.detach(session_for(engine, bob))
    assert await cmd(engine, alice, "reply still there?") == "Bob is not playing right now."


async def test_afk_shows_in_who_answers_tells_and_ends_when_typing(engine: GameEngine) -> None:
    alice, bob = player(engine, "Alice"), player(engine, "Bob")
    out = await cmd(engine, bob, "afk making |rtea")
    assert "You are now away (AFK): making ||rtea." in out
    assert "Bob |y[AFK]|n" in await cmd(engine, alice, "who")
    out = await cmd(engine, alice, "tell bob hi")
    assert "Bob is away (AFK): making ||rtea" in out
    out = await cmd(engine, alice, "whisper bob psst")
    assert "Bob is away (AFK)" in out
    assert "You are back (no longer AFK)." in await cmd(engine, bob, "look")
    assert not engine.world.has_component(bob, Away)
    assert "[AFK]" not in await cmd(engine, alice, "who")
    await cmd(engine, bob, "afk")
    assert "Bob is away (AFK)." in await cmd(engine, alice, "tell bob hi")


async def test_socials_untargeted_targeted_and_at_oneself(engine: GameEngine) -> None:
    alice, bob, carl = player(engine, "Alice"), player(engine, "Bob"), player(engine, "Carl")
    for uid in (bob, carl):
        heard(engine, uid)
    assert await cmd(engine, alice, "smile") == "You smile happily."
    assert "Alice smiles happily." in heard(engine, bob)
    assert await cmd(engine, alice, "bow bob") == "You bow before Bob."
    assert "Alice bows before you." in heard(engine, bob)
    assert "Alice bows before Bob." in heard(engine, carl)
    assert await cmd(engine, alice, "poke self") == "You poke yourself. Ow."
    assert "Alice pokes themselves" in heard(engine, carl)
    assert await cmd(engine, alice, "wave me") == "You wave."
    # NPCs can be targets too.
    assert await cmd(engine, alice, "nod pell") == "You nod to Pell."
    assert await cmd(engine, alice, "hug nobody") == "You do not see 'nobody' here."
    assert "You cannot think at someone" in await cmd(engine, alice, "think bob")
    listing = await cmd(engine, alice, "socials")
    data = engine.services.get(TalkData)
    assert len(data.socials) >= 30
    for key in ("smile", "nod", "bow", "wave", "laugh", "grin", "shrug", "sigh", "hug", "poke"):
        assert key in data.socials
        assert key in listing
    assert "A social" in await cmd(engine, alice, "help smile")
    assert engine.world.entity_exists(hv("pell"))


class ExtraTalk(ContentPack):
    """A pack adding a social and a channel from its own files."""

    name = "extratalk"
    requires = (HamletPack,)
    files: Path = Path()

    def register(self, ctx: PackContext) -> None:
        talk = ctx.service(TalkData)
        talk.add_socials(self.name, self.files / "socials.yaml")
        talk.add_channels(self.name, self.files / "channels.yaml")


def _extra(tmp_path: Path, socials: str, channels: str = "channels: {}\n") -> ContentPack:
    (tmp_path / "socials.yaml").write_text(socials, encoding="utf-8")
    (tmp_path / "channels.yaml").write_text(channels, encoding="utf-8")
    pack = ExtraTalk()
    pack.files = tmp_path
    return pack


async def test_a_pack_adds_socials_and_channels(tmp_path: Path) -> None:
    pack = _extra(
        tmp_path,
        "socials:\n  curtsy:\n    actor: You curtsy.\n    room: $n curtsies.\n",
        "channels:\n  trade: {name: Trade, colour: y, description: Buying and selling.}\n",
    )
    async with make_engine(tmp_path, [StdlibContentPack, HamletPack, pack]).lifespan() as eng:
        alice = player(eng, "Alice")
        assert await cmd(eng, alice, "curtsy") == "You curtsy."
        await cmd(eng, alice, "trade selling flour")
        assert "[Trade]|n Alice: selling flour" in heard(eng, alice)
        assert "trade" in await cmd(eng, alice, "channels")
        assert eng.services.get(TalkData).social_claims.owner("curtsy") == "extratalk"


@pytest.mark.parametrize(
    ("socials", "problem"),
    [
        ("socials:\n  look:\n    actor: You look.\n    room: $n looks.\n", "command 'look'"),
        ("socials:\n  smile:\n    actor: You.\n    room: $n.\n", "already added by pack"),
        ("socials:\n  odd:\n    actor: You.\n    room: $n.\n    target: $n.\n", "come together"),
        ("socials:\n  odd:\n    actor: You at $N.\n    room: $n.\n", "no target to name"),
        ("socials: [", "cannot read it"),
    ],
)
async def test_bad_social_data_stops_the_start(tmp_path: Path, socials: str, problem: str) -> None:
    eng = make_engine(tmp_path, [StdlibContentPack, HamletPack, _extra(tmp_path, socials)])
    with pytest.raises(PackError, match=problem):
        eng.register_packs()


async def test_command_observers_see_each_command_and_never_break_it(
    engine: GameEngine, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[str] = []

    def broken(_ctx: object, command: object) -> None:
        seen.append(getattr(command, "key", ""))
        raise RuntimeError("boom")

    engine.commands.add_observer(broken)
    alice = player(engine, "Alice")
    assert await cmd(engine, alice, "smile") == "You smile happily."
    assert seen == ["smile"]
    assert "command observer" in caplog.text
    await cmd(engine, alice, "xyzzy")
    assert seen == ["smile"], "a line no command matched is not a command"


async def test_channel_texts_read_whole_once_markup_is_rendered(engine: GameEngine) -> None:
    """A '|' in the game's own text would be taken for a colour code and eat a letter."""
    alice = player(engine, "Alice")
    footer = strip_markup(await cmd(engine, alice, "channels"))
    assert "also '<channel> on', 'off' or 'history'." in footer
    assert "ooc on, ooc off   join or leave it" in strip_markup(
        await cmd(engine, alice, "help ooc")
    )
