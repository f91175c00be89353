"""Chat channels: ``ooc``, ``newbie``, ``gossip`` and whatever packs add.

Each channel is a command of its key: ``<channel> <message>`` talks on it,
``<channel> history`` shows its last lines, ``<channel> on|off`` joins or leaves
it. ``channels`` lists them with their state, ``history <channel>`` is the same
as ``<channel> history``. Which channels a character left is stored with the
character (``ChannelPrefs``); history is kept in memory, the last
:data:`HISTORY` lines of each channel.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.ecs import Component
from maid_engine.ports import ClockPort, SessionsPort, WorldPort
from maid_stdlib.talk.data import ChannelSpec, TalkData
from maid_stdlib.world.text import player_words, spoken

#: Lines of history kept per channel.
HISTORY = 20
#: The longest message a channel carries.
MAX_MESSAGE = 400


@dataclass
class ChannelPrefs(Component):
    """The channels a character has turned off (all are on by default)."""

    component_name = "ChannelPrefs"
    off: list[str] = field(default_factory=list)


class ChannelsHost(WorldPort, SessionsPort, ClockPort, Protocol):
    """What channels use: the characters' preferences, who is online, and the wall
    clock for the history's times."""


class Channels:
    """Service: talking on channels, their history, who listens."""

    def __init__(self, engine: ChannelsHost, data: TalkData) -> None:
        self.engine = engine
        self.data = data
        self._history: dict[str, deque[str]] = {}

    def spec(self, key: str) -> ChannelSpec:
        return self.data.channels[key]

    def keys(self) -> list[str]:
        return list(self.data.channels)

    def tag(self, key: str) -> str:
        spec = self.spec(key)
        return f"|{spec.colour}[{spec.name}]|n"

    def listening(self, uid: UUID, key: str) -> bool:
        prefs = self.engine.world.try_component(uid, ChannelPrefs)
        return prefs is None or key not in prefs.off

    def set_listening(self, uid: UUID, key: str, on: bool) -> None:
        world = self.engine.world
        prefs = world.get_or_add(uid, ChannelPrefs)
        if on and key in prefs.off:
            prefs.off.remove(key)
        elif not on and key not in prefs.off:
            prefs.off.append(key)
        world.modified(uid, prefs)

    def say(self, key: str, speaker: UUID, text: str) -> int:
        """Send ``text`` (already made safe) from ``speaker`` to everyone online
        who listens; returns how many got it."""
        world = self.engine.world
        pc = world.try_component(speaker, PlayerCharacter)
        name = pc.name if pc is not None else "Someone"
        line = spoken(f"{self.tag(key)} {name}: {text}")
        stamp = time.strftime("%H:%M", time.gmtime(self.engine.clock.wall()))
        history = self._history.setdefault(key, deque(maxlen=HISTORY))
        history.append(spoken(f"[{stamp}] {self.tag(key)} {name}: {text}"))
        sent = 0
        sessions = self.engine.sessions
        for uid in sessions.characters_online():
            if self.listening(uid, key) and sessions.send_to(uid, line):
                sent += 1
        return sent

    def history(self, key: str) -> list[str]:
        return list(self._history.get(key, ()))


def channels_of(ctx: CommandContext) -> Channels:
    found: Channels = ctx.service(Channels)
    return found


def _show_history(ctx: CommandContext, key: str) -> None:
    chans = channels_of(ctx)
    lines = chans.history(key)
    if not lines:
        ctx.send(f"Nothing has been said on {chans.tag(key)} yet.")
        return
    ctx.send("\n".join([f"Last {len(lines)} on {chans.tag(key)}:", *lines]))


def channel_command(key: str, spec: ChannelSpec) -> Command:
    """The command talking on channel ``key``."""

    def run(ctx: CommandContext) -> None:
        actor = ctx.require_actor()
        chans = channels_of(ctx)
        text = ctx.args.strip()
        word = text.lower()
        if word == "history":
            _show_history(ctx, key)
            return
        if word in ("on", "off"):
            chans.set_listening(actor, key, word == "on")
            state = "on: you hear it again" if word == "on" else "off: you no longer hear it"
            ctx.send(f"{chans.tag(key)} is {state}.")
            return
        if not text:
            raise CommandError(f"Say what on {spec.name}? (Usage: {key} <message>)")
        if not chans.listening(actor, key):
            raise CommandError(f"You have {spec.name} turned off. Type '{key} on' to join it.")
        safe = player_words(text).strip()
        if not safe:
            raise CommandError(f"Say what on {spec.name}?")
        if len(safe) > MAX_MESSAGE:
            raise CommandError(
                f"That is too long for a channel (at most {MAX_MESSAGE} characters)."
            )
        chans.say(key, actor, safe)

    return Command(
        key=key,
        func=run,
        category="channels",
        prefix_match=False,
        help=(
            f"Talk on the {spec.name} channel: {spec.description}\n\n"
            f"Usage: {key} <message>\n"
            f"       {key} history     the last {HISTORY} lines\n"
            f"       {key} on, {key} off   join or leave it (see 'channels')"
        ),
    )


@command("channels", category="channels")
def channels(ctx: CommandContext) -> None:
    """List the chat channels and whether you hear them.

    Usage: channels
    Talk on one with '<channel> <message>'; '<channel> off' leaves it.
    """
    actor = ctx.require_actor()
    chans = channels_of(ctx)
    lines = ["|cChannels:|n"]
    for key in chans.keys():
        spec = chans.spec(key)
        state = "|gon|n " if chans.listening(actor, key) else "|roff|n"
        lines.append(f"  {key:<10} {state}  {spec.description}")
    lines.append("Talk with '<channel> <message>'; also '<channel> on', 'off' or 'history'.")
    ctx.send("\n".join(lines))


@command("history", category="channels", prefix_match=False)
def history(ctx: CommandContext) -> None:
    """Show the last lines said on a channel.

    Usage: history <channel>     e.g. "history ooc"
    """
    ctx.require_actor()
    chans = channels_of(ctx)
    key = ctx.args.strip().lower()
    if not key:
        raise CommandError(f"History of which channel? ({', '.join(chans.keys())})")
    if key not in chans.keys():
        raise CommandError(f"There is no channel '{player_words(key)}'. ('channels' lists them.)")
    _show_history(ctx, key)


COMMANDS: list[Command] = [channels, history]
