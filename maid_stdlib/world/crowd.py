"""Crowds: rooms with more players in them than a screen can list.

A festival square with a thousand players is a place, not an error. Above
:attr:`WorldService.crowd_size` players online in one room:

* ``look`` names the first two and counts the rest ("Ann, Bo and 994 others are
  here."); ``look crowd`` or ``who here`` lists everyone, a page at a time;
* arrivals and departures are collected and told at the end of the tick, one line
  per way in or out ("Ann, Bo and 12 others arrive from the north."), instead of one
  line per mover to everyone there, which made a thousand logins a million lines;
  and a room that was just told waits a second (``GAP_TICKS``) before it is told
  again, so a steady stream of newcomers -- a login storm, one or two a tick -- is
  one line a second to everyone there, not one a tick. The tick tells a crowd a
  slice of it at a time (``TELL_SLICE``) and lets the players' commands in between
  (``lend_point``): a line to a thousand people is a few milliseconds of work that
  would otherwise come in one piece, every second of a storm, ahead of every command
  that arrived meanwhile.

Rooms at or below the size are told at once, one line per mover, as always.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import ClassVar, Protocol
from uuid import UUID

from maid_engine.ecs import System
from maid_engine.english import english
from maid_stdlib.text.morph import join
from maid_stdlib.world.text import capitalize

#: Players online in one room above which it is a crowd.
CROWD_SIZE = 12
#: How many of a crowd are named before "and N others".
NAMED = 2
CROWD_HINT = "('look crowd' lists everyone.)"
#: Recipients of a crowd's line told between two chances for the players' commands
#: to run (a few hundredths of a millisecond each).
TELL_SLICE = 32


@lru_cache(maxsize=512)
def plural_phrase(phrase: str) -> str:
    """A third-person singular verb phrase for several subjects: "arrives from the
    north" -> "arrive from the north", "has left the game" -> "have left the game".

    Remembered: inflect takes a fifth of a millisecond a verb, and a crowd's telling
    needs the phrase once for the room and once more for each mover among them (who
    reads the others) -- a hundred newcomers in the square would be 20 ms of a tick.
    The phrases are few (a verb, a way in or out)."""
    verb, space, rest = phrase.partition(" ")
    plural = english().plural_verb(verb)
    return f"{plural}{space}{rest}"


def crowd_phrase(first: Sequence[str], count: int) -> str:
    """``count`` people whose first names (in order) are ``first``: "Ann", "Ann and
    Bo", "Ann, Bo and Cy", "Ann, Bo and 12 others". ``first`` must hold at least
    ``min(count, NAMED + 1)`` names."""
    if count <= NAMED + 1:
        return join(first[:count])
    return join([*first[:NAMED], f"{count - NAMED} others"])


def crowd_line(names: Sequence[str], skip: int | None = None) -> str:
    """ "Ann, Bo and 994 others are here." for the characters ``names`` (in listing
    order), leaving out the one at index ``skip`` (the viewer)."""
    count = len(names) - (1 if skip is not None else 0)
    first = [n for i, n in enumerate(names[: NAMED + 2]) if i != skip]
    verb = "is" if count == 1 else "are"
    return f"{capitalize(crowd_phrase(first, count))} {verb} here. {CROWD_HINT}"


class _Batch:
    """The movers of one room told with one phrase ("arrives from the north")."""

    __slots__ = ("movers", "names", "phrase")

    def __init__(self, phrase: str) -> None:
        self.phrase = phrase
        self.movers: dict[UUID, int] = {}
        self.names: list[str] = []

    def add(self, mover: UUID, name: str) -> None:
        if mover in self.movers:
            return
        self.movers[mover] = len(self.names)
        self.names.append(name)

    def line_for(self, recipient: UUID | None) -> str | None:
        """The line ``recipient`` reads (None: they are the only mover)."""
        skip = self.movers.get(recipient) if recipient is not None else None
        count = len(self.names) - (1 if skip is not None else 0)
        if count == 0:
            return None
        first = [n for i, n in enumerate(self.names[: NAMED + 2]) if i != skip]
        phrase = self.phrase if count == 1 else plural_phrase(self.phrase)
        return f"{capitalize(crowd_phrase(first, count))} {phrase}."


class Rooms(Protocol):
    """What the announcements use of the world service: who is in a room, and
    sending to them."""

    crowd_size: int

    def count_in(self, room_key: str) -> int: ...

    def characters_in(self, room_key: str, include_offline: bool = False) -> list[UUID]: ...

    def message_room(self, room_key: str, text: str, exclude: Iterable[UUID] = ()) -> int: ...

    def message_character(self, character: UUID, text: str) -> bool: ...

    def room_key_of(self, entity_id: UUID) -> str | None: ...


class RoomAnnouncements:
    """Comings and goings told to a room: at once in a quiet room, collected in a
    crowded one and told at the end of a tick, at most once every ``GAP_TICKS``
    ticks per room (:meth:`tell_due`, run by :class:`CrowdSystem`)."""

    #: Ticks a crowded room that was just told waits before it is told again (a
    #: second at the default rate).
    GAP_TICKS = 10

    def __init__(self, ws: Rooms) -> None:
        self.ws = ws
        #: room key -> phrase -> batch, in the order the rooms and phrases came.
        self._pending: dict[str, dict[str, _Batch]] = {}
        self._tick = 0
        #: room key -> the tick it was last told at (only rooms told recently).
        self._told_at: dict[str, int] = {}

    @property
    def pending(self) -> int:
        """Rooms with lines waiting for the end of the tick."""
        return len(self._pending)

    def announce(self, room_key: str, mover: UUID, name: str, phrase: str) -> None:
        """Tell the players in ``room_key`` (not ``mover``) that ``name`` ``phrase``
        ("has entered the game", "leaves north")."""
        batches = self._pending.get(room_key)
        if batches is None:
            if not self._crowded(room_key):
                self.ws.message_room(room_key, f"{capitalize(name)} {phrase}.", exclude=(mover,))
                return
            batches = self._pending[room_key] = {}
        batch = batches.get(phrase)
        if batch is None:
            batch = batches[phrase] = _Batch(phrase)
        batch.add(mover, name)

    def _crowded(self, room_key: str) -> bool:
        ws = self.ws
        # Cheap first: a room holding few entities of any kind cannot be a crowd.
        if ws.count_in(room_key) <= ws.crowd_size:
            return False
        return len(ws.characters_in(room_key)) > ws.crowd_size

    async def tell_due(self, pause: Callable[[], Awaitable[object]]) -> int:
        """The end of a tick: tell every room whose gap since it was last told is
        over what was collected for it, ``TELL_SLICE`` recipients at a time with
        ``await pause()`` between (where commands may run: someone told nothing yet
        may leave the room, and is then not told). Returns the lines sent."""
        sent = 0
        for room_key, batches in self._take_due():
            for lines in self._telling(room_key, batches):
                sent += lines
                await pause()
        return sent

    def _take_due(self) -> list[tuple[str, dict[str, _Batch]]]:
        """Count a tick; the rooms whose gap is over, with what was collected for
        them (no longer pending), marked as told now."""
        self._tick += 1
        now, gap = self._tick, self.GAP_TICKS
        if self._told_at:
            # Forget rooms whose gap is over: the table stays as small as the rooms
            # told within the last second.
            self._told_at = {k: t for k, t in self._told_at.items() if now - t < gap}
        if not self._pending:
            return []
        due = [key for key in self._pending if key not in self._told_at]
        for room_key in due:
            self._told_at[room_key] = now
        return [(room_key, self._pending.pop(room_key)) for room_key in due]

    def flush(self) -> int:
        """Send everything collected now, whatever the gaps. Returns the lines sent."""
        pending, self._pending = self._pending, {}
        return sum(sum(self._telling(room_key, batches)) for room_key, batches in pending.items())

    def _telling(self, room_key: str, batches: dict[str, _Batch]) -> Iterator[int]:
        """One line per phrase to everyone in the room (a mover reads the others,
        not themselves), yielding the lines sent after each ``TELL_SLICE``
        recipients; whoever is no longer in the room when their turn comes is
        skipped."""
        ws = self.ws
        recipients = ws.characters_in(room_key)
        lines = [(batch, batch.line_for(None)) for batch in batches.values()]
        for start in range(0, len(recipients), TELL_SLICE):
            sent = 0
            for uid in recipients[start : start + TELL_SLICE]:
                if start and ws.room_key_of(uid) != room_key:
                    continue  # left while the slices before were told
                for batch, shared in lines:
                    line = shared if uid not in batch.movers else batch.line_for(uid)
                    if line is not None and ws.message_character(uid, line):
                        sent += 1
            yield sent


class CrowdSystem(System):
    """Tells crowded rooms their comings and goings at the end of the tick, after
    the tick's own movements (NPC schedules) were collected; then starts the next
    tick of the per-tick caches (``who``'s rows) through ``ticked``."""

    phase: ClassVar[str] = "persistence"
    order: ClassVar[int] = 90

    def __init__(
        self, announcements: RoomAnnouncements, ticked: Callable[[], None] | None = None
    ) -> None:
        self.announcements = announcements
        self.ticked = ticked

    async def update(self, delta: float) -> None:
        await self.announcements.tell_due(self.engine.lend_point)
        if self.ticked is not None:
            self.ticked()


def crowd_listing(names: Sequence[str]) -> str:
    """Everyone ``look crowd`` / ``who here`` lists: a count, then the names (the
    pager wraps and pages them)."""
    if not names:
        return "No other players are here."
    count = len(names)
    head = f"|cHere with you ({count} {'player' if count == 1 else 'players'}):|n"
    return f"{head}\n{', '.join(names)}."
