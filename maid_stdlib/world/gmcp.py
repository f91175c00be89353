"""GMCP messages of the world layer (``Char.Name``, ``Room.Info``,
``Room.Players``) and the feeds that send other layers' packages on change.

``Room.Info`` follows the IRE convention mapping clients (Mudlet's mapper) read:
``num`` is a stable integer per room and ``exits`` maps directions to the ``num``
of the target room; ``id`` and ``exit_ids`` carry the readable room keys too. It
also lists who is there (``players``, the IRE ``Room.Players`` shape, and ``npcs``),
as the one who receives it sees them; ``Room.Players`` carries the same players for
scripts written for IRE games.

A client UI wants a message when something changed, not one a second: a
:class:`GmcpFeeds` remembers what each connection was last sent per package and
sends only what differs. Layers add a :class:`GmcpFeed` (a package and how to build
it for a character) and mark the characters whose data may have changed; the
GmcpSystem builds and sends the marked ones once per tick.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar
from uuid import UUID

from maid_engine.ecs import System
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_engine.ports import Sessions
from maid_engine.sessions import gmcp_wanted
from maid_stdlib.world.components import NPC
from maid_stdlib.world.events import EntityDiedEvent, EntityRelocatedEvent
from maid_stdlib.world.look import name_of

if TYPE_CHECKING:
    from maid_stdlib.world.service import WorldService

ROOM_INFO = "Room.Info"
ROOM_PLAYERS = "Room.Players"
ROOM_ADD_PLAYER = "Room.AddPlayer"
ROOM_REMOVE_PLAYER = "Room.RemovePlayer"


def room_num(room_id: UUID) -> int:
    """A positive 31-bit number derived from the room's (deterministic) id."""
    return (room_id.int & 0x7FFFFFFF) or 1


def entity_num(entity_id: UUID) -> int:
    """A positive 31-bit number for an NPC, stable while it exists (IRE item ids)."""
    return (entity_id.int & 0x7FFFFFFF) or 1


def players_in(ws: WorldService, room_key: str, viewer: UUID | None = None) -> list[dict[str, str]]:
    """The player characters ``viewer`` sees in the room, the viewer included, as
    IRE's ``Room.Players`` lists them."""
    out = []
    for uid in ws.characters_in(room_key):
        if uid == viewer or ws.is_visible(uid, viewer):
            name = name_of(ws, uid)
            out.append({"name": name, "fullname": name})
    return out


def npcs_in(ws: WorldService, room_key: str, viewer: UUID | None = None) -> list[dict[str, Any]]:
    return [
        {"id": entity_num(uid), "name": name_of(ws, uid)}
        for uid in ws.npcs_in(room_key)
        if ws.is_visible(uid, viewer)
    ]


def room_info(ws: WorldService, room_key: str, viewer: UUID | None = None) -> dict[str, Any] | None:
    room = ws.room(room_key)
    room_id = ws.room_id(room_key)
    if room is None or room_id is None:
        return None
    exits = ws.exits_of(room_key)
    nums: dict[str, int] = {}
    for name, target in exits.items():
        target_id = ws.room_id(target)
        if target_id is not None:
            nums[name] = room_num(target_id)
    area = ws.area(room.area) if room.area else None
    return {
        "num": room_num(room_id),
        "id": room_key,
        "name": room.name,
        "area": area.name if area is not None else room.area,
        "area_id": room.area,
        "region": area.region if area is not None else "",
        "environment": "outdoors" if "outdoors" in room.flags else "indoors",
        "exits": nums,
        "exit_ids": exits,
        "players": players_in(ws, room_key, viewer),
        "npcs": npcs_in(ws, room_key, viewer),
    }


@dataclass(frozen=True)
class GmcpFeed:
    """A package sent on change: ``build(character)`` is its data for that
    character; None means it has none now (a connection that was sent some gets
    ``{}`` once, so a UI clears it). ``watch`` names characters to check on every
    tick besides the marked ones, for data that changes in ways no event reports
    (still sent only when it differs)."""

    package: str
    build: Callable[[UUID], Any]
    watch: Callable[[], Iterable[UUID]] | None = None


class GmcpFeeds:
    """Service: what each connection was last sent, per package, and the feeds that
    send only what changed (see the module docstring)."""

    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions
        self._feeds: dict[str, GmcpFeed] = {}
        self._marked: dict[str, set[UUID]] = {}
        #: character -> (session id, package -> the JSON last sent).
        self._sent: dict[UUID, tuple[str, dict[str, str]]] = {}
        #: Counts the packages sent (:meth:`stamp`); character -> package -> the
        #: count when it was last sent one.
        self._count = 0
        self._sent_at: dict[UUID, dict[str, int]] = {}

    def add(self, feed: GmcpFeed) -> None:
        if feed.package in self._feeds:
            raise ValueError(f"GMCP feed {feed.package} is already registered")
        self._feeds[feed.package] = feed
        self._marked[feed.package] = set()

    def mark(self, package: str, characters: Iterable[UUID]) -> None:
        """The data of ``package`` may have changed for these characters."""
        marked = self._marked.get(package)
        if marked is not None:
            marked.update(characters)

    def mark_all(self, character: UUID) -> None:
        """Every feed for ``character`` (it just connected)."""
        for marked in self._marked.values():
            marked.add(character)

    def send(self, character: UUID, package: str, data: Any, *, force: bool = False) -> bool:
        """Send ``data`` unless this connection was last sent the same for
        ``package`` (``force``: send anyway). Returns whether it was sent."""
        session = self._sessions.session_for(character)
        if session is None:
            self._sent.pop(character, None)
            return False
        body = json.dumps(data, sort_keys=True, separators=(",", ":"))
        held = self._sent.get(character)
        if held is None or held[0] != session.id:
            held = self._sent[character] = (session.id, {})
        if not force and held[1].get(package) == body:
            return False
        held[1][package] = body
        self._sessions.gmcp_to(character, package, data)
        self._count += 1
        self._sent_at.setdefault(character, {})[package] = self._count
        return True

    def stamp(self) -> int:
        """A mark of this moment among the sends (for :meth:`sent_since`)."""
        return self._count

    def sent_since(self, character: UUID, package: str, stamp: int) -> bool:
        """Whether ``character`` was sent ``package`` (through :meth:`send`) after
        the moment :meth:`stamp` marked."""
        return self._sent_at.get(character, {}).get(package, 0) > stamp

    def send_delta(self, character: UUID, package: str, data: Any, changes: str) -> None:
        """Send ``data`` now: a change to the ``changes`` package this connection
        holds (a player added to its ``Room.Players``). What was last sent of
        ``changes`` is then no longer what the client holds, so the next one is
        sent whatever it is."""
        held = self._sent.get(character)
        if held is not None:
            held[1].pop(changes, None)
        self._sessions.gmcp_to(character, package, data)

    def takes(self, character: UUID, package: str) -> bool:
        """Whether ``character``'s connection would receive ``package``: building the
        data for a client that refused GMCP (or did not ask for the module) is
        wasted, and in a crowd it is most of a tick."""
        session = self._sessions.session_for(character)
        return session is not None and session.caps.gmcp and gmcp_wanted(session.caps, package)

    def forget(self, character: UUID) -> None:
        self._sent.pop(character, None)
        self._sent_at.pop(character, None)

    def flush(self) -> int:
        """Build and send the marked characters' packages; returns how many were sent."""
        sent = 0
        online = self._sessions.is_online
        for package, feed in self._feeds.items():
            todo, self._marked[package] = self._marked[package], set()
            if feed.watch is not None:
                todo.update(feed.watch())
            for character in todo:
                if not online(character) or not self.takes(character, package):
                    continue
                data = feed.build(character)
                if data is None:
                    held = self._sent.get(character)
                    if held is None or held[1].get(package, "{}") == "{}":
                        continue
                    data = {}
                if self.send(character, package, data):
                    sent += 1
        return sent


class GmcpSystem(System):
    """Sends what the GMCP feeds marked, once per tick, after everything else of
    the tick changed the world."""

    phase: ClassVar[str] = "persistence"
    order: ClassVar[int] = 100

    def __init__(self, feeds: GmcpFeeds, tell_first: Callable[[], object] | None = None) -> None:
        self.feeds = feeds
        #: Sends what was collected to tell before the feeds (the relay's comings
        #: and goings).
        self.tell_first = tell_first

    async def update(self, delta: float) -> None:
        if self.tell_first is not None:
            self.tell_first()
        self.feeds.flush()


def send_room_info(ws: WorldService, character_id: UUID, feeds: GmcpFeeds | None = None) -> None:
    """``Room.Info`` and ``Room.Players`` now (remembered by ``feeds``, if given, so
    the next change is measured against them)."""
    room_key = ws.room_key_of(character_id)
    if feeds is not None and not feeds.takes(character_id, ROOM_INFO):
        return
    info = room_info(ws, room_key, character_id) if room_key is not None else None
    if info is None:
        return
    if feeds is None:
        ws.engine.sessions.gmcp_to(character_id, ROOM_INFO, info)
        return
    feeds.send(character_id, ROOM_INFO, info, force=True)
    feeds.send(character_id, ROOM_PLAYERS, info["players"], force=True)


def send_char_name(ws: WorldService, character_id: UUID) -> None:
    name = name_of(ws, character_id)
    ws.engine.sessions.gmcp_to(character_id, "Char.Name", {"name": name, "fullname": name})


#: Placements the connect handler reports itself (after Char.Name, in that order).
SILENT_REASONS = frozenset({"created", "login"})


class GmcpRelay:
    """Sends ``Room.Info`` and ``Room.Players`` to a connected character after each
    of its moves, and tells whoever stays in a room what changed there.

    A player coming or going is told to those who stay as IRE games do it:
    ``Room.AddPlayer`` (``{"name", "fullname"}``) and ``Room.RemovePlayer`` (the
    name), one small message each, never the room's whole list again: in a crowd
    of a thousand clients every arrival would otherwise build, encode and send a
    thousand-name list to each of them. They are collected and sent at the end of
    the tick (:meth:`tell_presence`), in the order they happened, the room's
    people looked up once for all of that tick's comings and goings there: a
    login storm into a crowd walked the whole crowd for each newcomer, inside the
    step that puts the newcomer into the game. Someone sent the room's whole list
    after a coming or going (they arrived meanwhile) is not told it again. An NPC
    coming, going or dying marks the room's ``Room.Info`` (its ``npcs``) for the
    end of the tick."""

    def __init__(self, ws: WorldService, feeds: GmcpFeeds) -> None:
        self.ws = ws
        self.feeds = feeds
        #: room key -> (player, their name, arrived, the feeds' stamp), in order.
        self._presence: dict[str, list[tuple[UUID, str, bool, int]]] = {}
        feeds.add(GmcpFeed(ROOM_INFO, self._info))
        feeds.add(GmcpFeed(ROOM_PLAYERS, self._players))

    def _info(self, character: UUID) -> dict[str, Any] | None:
        room = self.ws.room_key_of(character)
        return room_info(self.ws, room, character) if room is not None else None

    def _players(self, character: UUID) -> list[dict[str, str]] | None:
        room = self.ws.room_key_of(character)
        return players_in(self.ws, room, character) if room is not None else None

    def _mark_npcs(self, room: str | None) -> None:
        if room is None or not self.ws.engine.sessions.online_count:
            return
        self.feeds.mark(ROOM_INFO, self.ws.characters_in(room))

    def _tell_room(self, room: str | None, player: UUID, arrived: bool) -> None:
        """Tell the players in ``room`` who see ``player`` that it arrived or left
        (at the end of the tick)."""
        if room is None:
            return
        entry = (player, name_of(self.ws, player), arrived, self.feeds.stamp())
        self._presence.setdefault(room, []).append(entry)

    def tell_presence(self) -> int:
        """Send the comings and goings collected since the last call. Returns the
        messages sent."""
        if not self._presence:
            return 0
        pending, self._presence = self._presence, {}
        ws, feeds = self.ws, self.feeds
        # The player is online (or was, until now): only the other rules of who
        # sees whom are asked.
        checks = ws.visibility_checks
        sent = 0
        for room, entries in pending.items():
            for other in ws.characters_in(room):
                adds = feeds.takes(other, ROOM_ADD_PLAYER)
                removes = feeds.takes(other, ROOM_REMOVE_PLAYER)
                if not (adds or removes):
                    continue
                for player, name, arrived, stamp in entries:
                    if (
                        not (adds if arrived else removes)
                        or other == player
                        or feeds.sent_since(other, ROOM_PLAYERS, stamp)
                        or not all(check(other, player) for check in checks)
                    ):
                        continue
                    if arrived:
                        feeds.send_delta(
                            other, ROOM_ADD_PLAYER, {"name": name, "fullname": name}, ROOM_PLAYERS
                        )
                    else:
                        feeds.send_delta(other, ROOM_REMOVE_PLAYER, name, ROOM_PLAYERS)
                    sent += 1
        return sent

    def on_relocated(self, event: EntityRelocatedEvent) -> None:
        mover = event.entity_id
        if self.ws.engine.sessions.is_online(mover):
            if event.reason in SILENT_REASONS:
                return  # placed as it logs in: the connect handlers tell it and the room
            self._tell_room(event.from_room, mover, arrived=False)
            self._tell_room(event.to_room, mover, arrived=True)
            if event.to_room is not None:
                send_room_info(self.ws, mover, self.feeds)
        elif self.ws.world.has_component(mover, NPC):
            self._mark_npcs(event.from_room)
            self._mark_npcs(event.to_room)
        # Anything else (a thing, an offline character) is in neither package.

    def on_died(self, event: EntityDiedEvent) -> None:
        self._mark_npcs(event.room)

    def on_presence(self, event: CharacterConnectedEvent | CharacterDisconnectedEvent) -> None:
        """Someone came online or went offline where others stand."""
        character = event.character_id
        room = self.ws.room_key_of(character)
        if isinstance(event, CharacterDisconnectedEvent):
            self.feeds.forget(character)
            self._tell_room(room, character, arrived=False)
            return
        self.feeds.mark_all(character)
        if not event.takeover:  # a takeover is a new connection to one already there
            self._tell_room(room, character, arrived=True)
