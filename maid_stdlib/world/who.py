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
from typing import Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, Role, command
from maid_engine.ecs import Component, World
from maid_engine.ports import Sessions
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


class WhoHost(Protocol):
    """What ``who``'s listing reads: the world and who is online."""

    @property
    def world(self) -> World: ...

    @property
    def sessions(self) -> Sessions: ...


class WhoList:
    """What ``who`` shows besides names, filled in by other layers; and the listing
    itself, kept between ``who``s.

    Who is online, titles, AFK marks and the flags or levels registered here drop
    the kept listing at once: the next ``who`` builds it again. A layer that knows
    when a row changed (a level gained) says so with :meth:`refresh`: the next
    ``who`` reads that row again. Anything else (a role, a flag's own state) is
    seen by the rows' slow refresh: each tick (:meth:`next_tick`) reads
    ``1 / KEEP_TICKS`` of the rows again, so no row is more than ``KEEP_TICKS``
    ticks old (five seconds at the default rate). Building all 200 rows of an
    evening at the next ``who`` once a second instead took two milliseconds and
    more of the event loop -- the slowest ``who``s, and every command that arrived
    meanwhile; reading a tenth of them every tick cost the tick 0.2 ms. The
    refresh stops when nobody asked for a while (``IDLE_TICKS``), and the listing
    with it.
    """

    KEEP_TICKS = 50
    IDLE_TICKS = 100

    def __init__(self, host: WhoHost) -> None:
        self._host = host
        self._level_of: Callable[[UUID], int | None] = lambda _uid: None
        self._flags: dict[str, WhoFlag] = {}
        #: The flags in the order they are shown.
        self._shown: list[WhoFlag] = []
        self._tick = 0
        self._changes = 0
        self._key: tuple[object, ...] | None = None
        self._rows: dict[UUID, tuple[WhoRow, Session | None]] = {}
        self._listing: WhoListing | None = None
        self._stale: set[UUID] = set()
        self._asked = 0
        self._cursor = 0

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
        removed = self._flags.pop(key, None) is not None
        self.changed()
        return removed

    def changed(self) -> None:
        """Drop the listing kept (something ``who`` shows changed)."""
        self._changes += 1
        self._shown = sorted(self._flags.values(), key=lambda f: (f.order, f.key))

    def flags_of(self, uid: UUID) -> list[str]:
        return [f.label for f in self._shown if f.test(uid)]

    def refresh(self, uid: UUID) -> None:
        """``uid``'s row may have changed (its level, say): read it again at the next
        ``who``, without building the others."""
        if uid in self._rows:
            self._stale.add(uid)

    def _presence(self) -> tuple[object, ...]:
        world = self._host.world
        return (
            world,
            self._host.sessions.presence_version,
            world.version_of(Title),
            world.version_of(Away),
            world.version_of(PlayerCharacter),
            self._changes,
        )

    def _row(self, uid: UUID) -> tuple[WhoRow, Session | None] | None:
        world = self._host.world
        pc = world.try_component(uid, PlayerCharacter)
        if pc is None or not world.entity_exists(uid):
            return None
        session = self._host.sessions.session_for(uid)
        role = _staff(session)
        flags = ["Admin"] if role >= Role.ADMIN else ["Builder"] if role >= Role.BUILDER else []
        flags.extend(self.flags_of(uid))
        title = world.try_component(uid, Title)
        row = WhoRow(uid, pc.name, self._level_of(uid), title.text if title else "", flags)
        return row, session

    def listing(self) -> WhoListing:
        """One row per connected character: highest level first, then by name."""
        self._asked = self._tick
        key = self._presence()
        if key != self._key:
            rows = (self._row(uid) for uid in self._host.sessions.characters_online())
            self._rows = {held[0].uid: held for held in rows if held is not None}
            self._key = key
            self._listing = None
            self._stale.clear()
        elif self._stale:
            for uid in self._stale:
                self._reread(uid)
            self._stale.clear()
        listing = self._listing
        if listing is None:
            held = sorted(
                self._rows.values(), key=lambda r: (-(r[0].level or 0), r[0].name.casefold())
            )
            levels = any(row.level is not None for row, _ in held)
            listing = WhoListing(
                [row for row, _ in held],
                [_line(row, levels) for row, _ in held],
                [session for _, session in held],
            )
            self._listing = listing
        return listing

    def next_tick(self) -> None:
        """A new tick: read the next share of the rows again (see the class)."""
        self._tick += 1
        if self._key is None:
            return
        if self._tick - self._asked > self.IDLE_TICKS or self._presence() != self._key:
            # Nobody asked lately, or the next ``who`` builds it all anyway.
            self._key = None
            self._rows = {}
            self._stale.clear()
            self._listing = None
            return
        uids = list(self._rows)
        if not uids:
            return
        share = -(-len(uids) // self.KEEP_TICKS)
        start = self._cursor % len(uids)
        self._cursor = start + share
        for uid in uids[start : start + share] + uids[: max(0, start + share - len(uids))]:
            self._reread(uid)

    def _reread(self, uid: UUID) -> None:
        held = self._rows.get(uid)
        if held is None:
            return
        fresh = self._row(uid)
        if fresh is None or fresh[0] != held[0]:
            # Gone (without a presence change: destroyed) or changed.
            if fresh is None:
                del self._rows[uid]
            else:
                self._rows[uid] = fresh
            self._listing = None


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
    whos: WhoList = ctx.service(WhoList)
    ctx.send(whos.listing().text(time.time()))


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
