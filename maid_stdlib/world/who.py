"""``who`` (the players online: level, name and title, flags, idle time) and ``title``.

The list is game-agnostic; other layers fill it in through the :class:`WhoList`
service: a rules layer gives levels (``level_of``), and any layer may add a flag
(``add_flag("afk", predicate, "AFK")``). The stdlib flags staff itself: [Admin] and
[Builder] from the role of the session playing the character.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, Role, command
from maid_engine.ecs import Component
from maid_engine.sessions import Session
from maid_stdlib.world.components import Away
from maid_stdlib.world.crowd import crowd_listing
from maid_stdlib.world.look import crowd_names
from maid_stdlib.world.pager import page
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import player_words

#: Longest title a player may set (after cleaning).
MAX_TITLE = 40
#: Idle for at least this long shows in ``who``.
IDLE_SHOWN = 60.0

#: ``predicate(character) -> bool``: whether the character carries the flag.
FlagTest = Callable[[UUID], bool]


@dataclass
class Title(Component):
    """What ``who`` shows after the character's name ("the brave")."""

    component_name = "Title"
    text: str = ""


@dataclass
class WhoFlag:
    key: str
    label: str
    test: FlagTest
    order: int = 100


class WhoList:
    """What ``who`` shows besides names; filled in by other layers.

    The listing (every line but the idle times, which are read fresh) is kept for
    ``KEEP_TICKS`` ticks (:meth:`next_tick`, called once per tick; a second at the
    default rate): a thousand players typing ``who`` in that time build it once.
    Kept only for the rest of one tick, it was built again for nearly every
    ``who`` of an evening (ten ticks a second, a few ``who`` a second). Who is
    online, titles, AFK marks and the flags or levels registered here drop it at
    once; a level or flag that changes by other means shows within ``KEEP_TICKS``
    ticks.
    """

    KEEP_TICKS = 10

    def __init__(self) -> None:
        self._level_of: Callable[[UUID], int | None] = lambda _uid: None
        self._flags: dict[str, WhoFlag] = {}
        self._tick = 0
        self._changes = 0
        self._kept: tuple[tuple[object, ...], WhoListing] | None = None

    @property
    def level_of(self) -> Callable[[UUID], int | None]:
        """The character's level, if the game has levels (set by a rules layer)."""
        return self._level_of

    @level_of.setter
    def level_of(self, provider: Callable[[UUID], int | None]) -> None:
        self._level_of = provider
        self.changed()

    def add_flag(self, key: str, test: FlagTest, label: str, order: int = 100) -> None:
        """Show ``[label]`` after a character for whom ``test`` is true (replaces ``key``)."""
        self._flags[key] = WhoFlag(key, label, test, order)
        self.changed()

    def remove_flag(self, key: str) -> bool:
        self.changed()
        return self._flags.pop(key, None) is not None

    def changed(self) -> None:
        """Drop the listing kept (something ``who`` shows changed)."""
        self._changes += 1

    def next_tick(self) -> None:
        """A new tick: the listing is built again at the next ``who`` once
        ``KEEP_TICKS`` have passed."""
        self._tick += 1

    def kept(self, key: tuple[object, ...]) -> WhoListing | None:
        held = self._kept
        if held is not None and held[0] == (self._tick // self.KEEP_TICKS, self._changes, *key):
            return held[1]
        return None

    def keep(self, key: tuple[object, ...], listing: WhoListing) -> None:
        self._kept = ((self._tick // self.KEEP_TICKS, self._changes, *key), listing)

    def flags_of(self, uid: UUID) -> list[str]:
        flags = sorted(self._flags.values(), key=lambda f: (f.order, f.key))
        return [f.label for f in flags if f.test(uid)]


def idle_text(seconds: float) -> str:
    """Idle time as ``who`` shows it: "3m", "1h05m"; nothing under a minute."""
    seconds = max(0, int(seconds))
    if seconds < IDLE_SHOWN:
        return ""
    if seconds < 3600:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"


def _staff(session: Session | None) -> Role:
    if session is None:
        return Role.PLAYER
    try:
        return Role.parse(session.data.get("role", Role.PLAYER))
    except ValueError:
        return Role.PLAYER


@dataclass
class WhoRow:
    uid: UUID
    name: str
    level: int | None
    title: str
    flags: list[str]


@dataclass
class WhoListing:
    """``who``'s rows with their lines as shown but for the idle time, and the
    session each idle time is read from (a new session for a character changes
    the presence the listing is kept for).

    With 200 players on, building the rows and their text for every ``who`` took
    a millisecond and more of the event loop, while every other command waited:
    the most expensive command of an evening. Only the idle times are read per
    ``who`` now, and an idle time is only written out from a minute on."""

    rows: list[WhoRow]
    lines: list[str]
    sessions: list[Session | None]

    def text(self, now: float) -> str:
        if not self.rows:
            return "Nobody is playing right now."
        out = ["|cPlayers online:|n"]
        for line, session in zip(self.lines, self.sessions, strict=True):
            last = session.data.get("last_input") if session is not None else None
            if last is not None and now - float(last) >= IDLE_SHOWN:
                line = f"{line} (idle {idle_text(now - float(last))})"
            out.append(line)
        count = len(self.rows)
        out.append(f"{count} player{'s' if count != 1 else ''} online.")
        return "\n".join(out)


def who_listing(ctx: CommandContext) -> WhoListing:
    """One row per connected character: highest level first, then by name."""
    world = ctx.world
    sessions = ctx.engine.sessions
    whos: WhoList = ctx.service(WhoList)
    key = (
        world,
        sessions.presence_version,
        world.version_of(Title),
        world.version_of(Away),
        world.version_of(PlayerCharacter),
    )
    listing = whos.kept(key)
    if listing is not None:
        return listing
    rows = []
    for uid in sessions.characters_online():
        pc = world.try_component(uid, PlayerCharacter)
        if pc is None or not world.entity_exists(uid):
            continue
        flags = []
        role = _staff(sessions.session_for(uid))
        if role >= Role.ADMIN:
            flags.append("Admin")
        elif role >= Role.BUILDER:
            flags.append("Builder")
        flags.extend(whos.flags_of(uid))
        title = world.try_component(uid, Title)
        rows.append(WhoRow(uid, pc.name, whos.level_of(uid), title.text if title else "", flags))
    rows.sort(key=lambda r: (-(r.level or 0), r.name.casefold()))
    levels = any(r.level is not None for r in rows)
    listing = WhoListing(
        rows,
        [_line(row, levels) for row in rows],
        [sessions.session_for(row.uid) for row in rows],
    )
    whos.keep(key, listing)
    return listing


def _line(row: WhoRow, levels: bool) -> str:
    parts = []
    if levels:
        parts.append(f"[{row.level:>3}]" if row.level is not None else "[   ]")
    parts.append(row.name + (f" {row.title}" if row.title else ""))
    parts.extend(f"|y[{flag}]|n" for flag in row.flags)
    return "  " + " ".join(parts)


@command("who", category="general", needs_character=False)
def who(ctx: CommandContext) -> None:
    """List the players who are online.

    Usage: who | who here

    Highest level first. Each line shows the level (in games with levels), the
    name and title, flags such as [Admin], [Builder] or [AFK], and how long the
    player has been idle (from a minute on).

    'who here' lists the players in your room (all of them, a page at a time),
    like 'look crowd'.
    """
    if ctx.args.strip().lower() == "here":
        ws: WorldService = ctx.service(WorldService)
        actor = ctx.require_actor()
        room = ws.room_key_of(actor)
        if room is None:
            raise CommandError("You are nowhere. (Ask an admin to @goto you somewhere.)")
        page(ctx, crowd_listing(crowd_names(ws, room, actor)))
        return
    ctx.send(who_listing(ctx).text(time.time()))


@command("title", category="general")
def title(ctx: CommandContext) -> None:
    """Set the title shown after your name in 'who'.

    Usage:
      title <text>    e.g. 'title the wandering smith' (at most 40 characters)
      title           show your title
      title clear     remove it
    """
    actor = ctx.require_actor()
    text = " ".join(ctx.args.split())
    current = ctx.world.try_component(actor, Title)
    if not text:
        shown = current.text if current is not None and current.text else "(none)"
        ctx.send(f"Your title: {shown}")
        return
    if text.lower() == "clear":
        if current is not None:
            ctx.world.remove_component(actor, Title)
        ctx.send("Your title is cleared.")
        return
    safe = player_words(text).strip()
    if len(text) > MAX_TITLE:
        raise CommandError(f"A title is at most {MAX_TITLE} characters.")
    ctx.world.add_component(actor, Title(safe))
    ctx.send(f"Your title is now: {safe}")


COMMANDS: list[Command] = [who, title]
