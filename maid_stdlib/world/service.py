"""WorldService: the room index, movement, lookup by keyword and path finding.

The service keeps an index ``room key -> entities there`` that is updated on every
move in O(1) and rebuilt from the components after the world is loaded, so asking
"who is here" never scans the world. Anything that puts an entity somewhere, moves
it or takes it out of the world goes through :meth:`place`, :meth:`move` or
:meth:`remove_from_world`; assigning ``Position.room`` by hand bypasses the index
(call :meth:`reindex` if you must).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.ecs import Component, World
from maid_engine.events import EntityDestroyedEvent
from maid_engine.ports import EventsPort, SessionsPort, WorldPort
from maid_stdlib.world.components import (
    NPC,
    Area,
    Describable,
    Exits,
    Item,
    Position,
    Room,
    SeenAs,
)
from maid_stdlib.world.crowd import CROWD_SIZE, RoomAnnouncements
from maid_stdlib.world.events import EntityRelocatedEvent
from maid_stdlib.world.graph import RoomGraph
from maid_stdlib.world.text import singular

#: Characters still offline that ``last_change`` looks past to find the one that
#: came online (a login storm places a few newcomers ahead of the first to log in).
_LATER_ARRIVALS_WALKED = 64

log = logging.getLogger("maid.world")

#: ``check(viewer, target) -> bool``; False hides ``target`` from ``viewer``.
VisibilityCheck = Callable[[UUID | None, UUID], bool]


class UnknownRoom(LookupError):
    def __init__(self, key: str) -> None:
        super().__init__(f"there is no room {key!r}")
        self.key = key


class WorldServiceHost(WorldPort, EventsPort, SessionsPort, Protocol):
    """What the world service uses: the world, relocation events, and the sessions
    it messages rooms through."""


class WorldService:
    def __init__(self, engine: WorldServiceHost) -> None:
        self.engine = engine
        self._rooms: dict[str, UUID] = {}
        self._room_keys: dict[UUID, str] = {}
        self._areas: dict[str, UUID] = {}
        # dict-as-ordered-set: O(1) add/remove and a stable arrival order, which
        # makes "2.scout" mean the same thing on every call.
        self._contents: dict[str, dict[UUID, None]] = {}
        #: Of each room's contents, the NPCs and the player characters (in the same
        #: order): who is where by kind without looking at everyone there -- a
        #: crowd of players is asked for its NPCs at every arrival.
        self._kinds: dict[type[Component], dict[str, dict[UUID, None]]] = {
            NPC: {},
            PlayerCharacter: {},
        }
        self._where: dict[UUID, str] = {}
        #: The exits as a graph, built on demand; dropped whenever rooms or exits
        #: change.
        self._graph: RoomGraph | None = None
        #: (area key -> room keys, region -> room keys), in room registration order;
        #: built on demand, dropped whenever rooms or areas change.
        self._placement: tuple[dict[str, list[str]], dict[str, list[str]]] | None = None
        #: ((``version_of(Room)``, ``Room.names_assigned``), every (room key, its
        #: name)) for ``room_names``; dropped with ``_placement``.
        self._named: tuple[tuple[int, int], tuple[tuple[str, str], ...]] | None = None
        #: Room new characters start in (set by the world data of the top pack).
        self.start_room: str | None = None
        #: Extra visibility rules (invisibility, darkness ...) other layers add.
        self.visibility_checks: list[VisibilityCheck] = []
        #: room key -> version, bumped whenever what anyone there could see may have
        #: changed (see ``shown_version``); the room-listing cache in ``look`` keys on it.
        self._shown_versions: dict[str, int] = {}
        #: room key -> the entity whose change last changed its shown version.
        self._last_change: dict[str, UUID] = {}
        #: Changes whenever anything enters or leaves any room.
        self.placement_version = 0
        #: Cache of ``look``'s room listings (owned by maid_stdlib.world.look).
        self.look_cache: dict[str, object] = {}
        #: Players online in one room above which ``look`` summarises them and
        #: their comings and goings are told once per tick (maid_stdlib.world.crowd).
        self.crowd_size = CROWD_SIZE
        self.announcements = RoomAnnouncements(self)
        engine.world.watch_holders(self._seen_changed, Describable, PlayerCharacter, NPC, SeenAs)
        engine.world.watch_holders(self._kind_changed, PlayerCharacter, NPC)
        engine.sessions.watch_presence(self._seen_changed)

    @property
    def world(self) -> World:
        return self.engine.world

    # -- index ------------------------------------------------------------------
    def rebuild_index(self) -> None:
        """Rebuild every index from the components (after loading or bulk spawning)."""
        world = self.world
        self._rooms = {room.key: uid for uid, room in world.each(Room)}
        self._room_keys = {uid: key for key, uid in self._rooms.items()}
        self._areas = {area.key: uid for uid, area in world.each(Area)}
        self._contents = {}
        self._where = {}
        for rooms in self._kinds.values():
            rooms.clear()
        for uid, pos in world.each(Position):
            self._index(uid, pos.room)
        self._graph = None
        self._placement = None
        self._named = None
        self.look_cache.clear()
        unknown = {k for k in self._contents if k not in self._rooms}
        if unknown:
            log.warning("entities are positioned in unknown rooms: %s", sorted(unknown))

    def warm(self) -> None:
        """Build the derived indexes now -- the room graph with its components and
        its zones' routes, the rooms of each area and region, the rooms' names --
        so the first tick that needs them (in a big world, tens of ms) is not the
        one that pays."""
        graph = self.graph()
        graph.components()
        graph.routes()
        self._placements()
        self.room_names()

    def register_room(self, entity_id: UUID) -> None:
        """Index a room entity created (or re-keyed) after the last rebuild."""
        room = self.world.get_component(entity_id, Room)
        old = self._room_keys.pop(entity_id, None)
        if old is not None:
            self._rooms.pop(old, None)
        self._rooms[room.key] = entity_id
        self._room_keys[entity_id] = room.key
        self._graph = None
        self._placement = None
        self._named = None
        self.look_cache.clear()

    def register_area(self, entity_id: UUID) -> None:
        self._areas[self.world.get_component(entity_id, Area).key] = entity_id
        self._placement = None

    def reindex(self, entity_id: UUID) -> None:
        """Bring the index in line with the entity's Position component."""
        self._unindex(entity_id)
        pos = self.world.try_component(entity_id, Position)
        if pos is not None:
            self._index(entity_id, pos.room)

    def shown_version(self, room_key: str) -> int:
        """Changes whenever what anyone in ``room_key`` could see there may have
        changed: something seen entering or leaving, a character there coming online
        or going offline, an entity there becoming or ceasing to be Describable, a
        character or an NPC, or being destroyed. Not when an offline character is
        placed or moved (nobody sees it), nor for anything happening elsewhere: a
        crowd's listing outlives the logins and spawns in the rest of the world."""
        return self._shown_versions.get(room_key, 0)

    def last_change(self, room_key: str) -> UUID | None:
        """The entity whose change (entering or leaving, coming online or going
        offline, gaining or losing a Describable, character or NPC component) last
        changed ``shown_version(room_key)``, if it still exists and nothing seen
        came into the room after it: a listing in arrival order that lacked it need
        only gain it at its end (a character walking into a crowd, or coming online
        there), not be rebuilt.

        For a character, "nothing seen after it" means no character online: the
        listing puts the characters before the NPCs and things, so those may have
        come in later, and so may characters still offline -- in a login storm
        several newcomers are placed in the square before the first of them comes
        online, and each would otherwise have the crowd's listing rebuilt."""
        uid = self._last_change.get(room_key)
        if uid is None or not self.world.entity_exists(uid):
            return None
        chars = self._kinds[PlayerCharacter].get(room_key)
        if chars is not None and uid in chars:
            online = self.engine.sessions.is_online
            for walked, other in enumerate(reversed(chars)):
                if other == uid:
                    return uid
                if online(other) or walked >= _LATER_ARRIVALS_WALKED:
                    return None
            return None
        bucket = self._contents.get(room_key)
        return uid if bucket and next(reversed(bucket)) == uid else None

    def _seen_changed(self, entity_id: UUID) -> None:
        room_key = self._where.get(entity_id)
        if room_key is not None:
            self._bump_shown(room_key, entity_id)

    def _bump_shown(self, room_key: str, entity_id: UUID) -> None:
        shown = self._shown_versions
        shown[room_key] = shown.get(room_key, 0) + 1
        self._last_change[room_key] = entity_id

    def _bump_room(self, room_key: str, entity_id: UUID) -> None:
        self.placement_version += 1
        # An offline character is not seen: placing or moving one shows nothing.
        if self.engine.sessions.is_online(entity_id) or not self.world.has_component(
            entity_id, PlayerCharacter
        ):
            self._bump_shown(room_key, entity_id)

    def _index(self, entity_id: UUID, room_key: str) -> None:
        self._bump_room(room_key, entity_id)
        self._where[entity_id] = room_key
        bucket = self._contents.get(room_key)
        if bucket is None:
            bucket = self._contents[room_key] = {}
        bucket[entity_id] = None
        has = self.world.has_component
        for ctype, rooms in self._kinds.items():
            if has(entity_id, ctype):
                kind = rooms.get(room_key)
                if kind is None:
                    kind = rooms[room_key] = {}
                kind[entity_id] = None

    def _unindex(self, entity_id: UUID) -> str | None:
        room_key = self._where.pop(entity_id, None)
        if room_key is not None:
            self._bump_room(room_key, entity_id)
            bucket = self._contents.get(room_key)
            if bucket is not None:
                bucket.pop(entity_id, None)
                if not bucket:
                    del self._contents[room_key]
            for rooms in self._kinds.values():
                kind = rooms.get(room_key)
                if kind is not None:
                    kind.pop(entity_id, None)
                    if not kind:
                        del rooms[room_key]
        return room_key

    def _kind_changed(self, entity_id: UUID) -> None:
        """An entity became or stopped being an NPC or a character (or is being
        destroyed: it stays listed until it is gone, unseen as it no longer
        exists)."""
        room_key = self._where.get(entity_id)
        if room_key is None:
            return
        has = self.world.has_component
        for ctype, rooms in self._kinds.items():
            kind = rooms.get(room_key)
            listed = kind is not None and entity_id in kind
            if has(entity_id, ctype) == listed:
                continue
            # Made again from the contents: it keeps its place in their order.
            fresh = {u: None for u in self._contents.get(room_key, ()) if has(u, ctype)}
            if fresh:
                rooms[room_key] = fresh
            else:
                rooms.pop(room_key, None)

    def on_destroyed(self, event: EntityDestroyedEvent) -> None:
        uid = event.entity_id
        self._unindex(uid)
        key = self._room_keys.pop(uid, None)
        if key is not None:
            self._rooms.pop(key, None)
            self._graph = None
            self._placement = None
            self._named = None
        for area_key, area_id in list(self._areas.items()):
            if area_id == uid:
                del self._areas[area_key]
                self._placement = None

    # -- rooms and areas --------------------------------------------------------
    def room_id(self, key: str) -> UUID | None:
        return self._rooms.get(key)

    def has_room(self, key: str) -> bool:
        return key in self._rooms

    def room(self, key: str) -> Room | None:
        uid = self._rooms.get(key)
        return None if uid is None else self.world.try_component(uid, Room)

    def room_keys(self) -> list[str]:
        return list(self._rooms)

    def room_names(self) -> tuple[tuple[str, str], ...]:
        """(room key, name) of every room, in ``room_keys`` order ("" for a room
        without a name or a Room): the same tuple until the index changes, a Room
        is added, replaced or removed, or a room's name is assigned
        (``Room.names_assigned``), so a rename shows at once however it is made.
        Quest generation reads every name for each quest it plans: looking the
        rooms up, then reading each name again, was most of a plan."""
        world = self.world
        stamp = (world.version_of(Room), Room.names_assigned)
        named = self._named
        if named is None or named[0] != stamp:
            rooms = ((key, world.try_component(uid, Room)) for key, uid in self._rooms.items())
            names = tuple((key, room.name if room is not None else "") for key, room in rooms)
            named = self._named = (stamp, names)
        return named[1]

    @property
    def room_count(self) -> int:
        return len(self._rooms)

    def exits_of(self, room_key: str) -> dict[str, str]:
        """Exit name -> target room key (a copy)."""
        uid = self._rooms.get(room_key)
        exits = None if uid is None else self.world.try_component(uid, Exits)
        return dict(exits.exits) if exits is not None else {}

    def set_exit(self, room_key: str, name: str, target: str) -> None:
        """Add or change an exit; cached paths are invalidated."""
        uid = self._require_room(room_key)
        self._require_room(target)
        exits = self.world.try_component(uid, Exits)
        if exits is None:
            self.world.add_component(uid, Exits({name: target}))
        else:
            exits.exits[name] = target
            self.world.modified(uid, exits)
        self._graph = None

    def remove_exit(self, room_key: str, name: str) -> bool:
        uid = self._require_room(room_key)
        exits = self.world.try_component(uid, Exits)
        if exits is None or name not in exits.exits:
            return False
        del exits.exits[name]
        self.world.modified(uid, exits)
        self._graph = None
        return True

    def invalidate_paths(self) -> None:
        """Forget cached paths (call after changing an Exits component directly)."""
        self._graph = None

    def area(self, area_key: str) -> Area | None:
        uid = self._areas.get(area_key)
        return None if uid is None else self.world.try_component(uid, Area)

    def area_keys(self) -> list[str]:
        return list(self._areas)

    def area_of(self, room_key: str) -> str | None:
        """Key of the area ``room_key`` belongs to."""
        room = self.room(room_key)
        return room.area if room is not None and room.area else None

    def region_of(self, room_key: str) -> str | None:
        area_key = self.area_of(room_key)
        area = self.area(area_key) if area_key else None
        return area.region if area is not None and area.region else None

    def rooms_in_region(self, region: str) -> list[str]:
        """Room keys of every area of ``region`` (a copy)."""
        return list(self._placements()[1].get(region, ()))

    def rooms_of_area(self, area_key: str) -> list[str]:
        """Room keys of the area (a copy), in ``room_keys()`` order."""
        return list(self._placements()[0].get(area_key, ()))

    def _placements(self) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        # Rooms name their area (and areas their region) when loaded; asking
        # "which rooms are in area X" used to read every Room component.
        placement = self._placement
        if placement is None:
            by_area: dict[str, list[str]] = {}
            by_region: dict[str, list[str]] = {}
            for key in self._rooms:
                area_key = self.area_of(key)
                if area_key is None:
                    continue
                by_area.setdefault(area_key, []).append(key)
                region = self.region_of(key)
                if region is not None:
                    by_region.setdefault(region, []).append(key)
            placement = self._placement = (by_area, by_region)
        return placement

    def _require_room(self, key: str) -> UUID:
        uid = self._rooms.get(key)
        if uid is None:
            raise UnknownRoom(key)
        return uid

    # -- positions ----------------------------------------------------------------
    def room_key_of(self, entity_id: UUID) -> str | None:
        return self._where.get(entity_id)

    def rooms_of(self, entities: Iterable[UUID]) -> list[str | None]:
        """``room_key_of`` each of ``entities``, in order: for hundreds at once."""
        return list(map(self._where.get, entities))

    def place(self, entity_id: UUID, room_key: str, reason: str = "spawn") -> None:
        """Put an entity into a room (adding its Position), as from nowhere."""
        self.move(entity_id, room_key, reason)

    def move(self, entity_id: UUID, to_room: str, reason: str = "walk") -> str | None:
        """Move an entity to ``to_room``; returns the room it left (None: nowhere).

        Emits :class:`EntityRelocatedEvent`. Moving to the room it is in does nothing.
        """
        self._require_room(to_room)
        pos = self.world.try_component(entity_id, Position)
        if pos is None:
            self.world.add_component(entity_id, Position(to_room))  # EntityNotFound if gone
            from_room = self._unindex(entity_id)
        else:
            if pos.room == to_room and self._where.get(entity_id) == to_room:
                return to_room
            from_room = self._unindex(entity_id)
            pos.room = to_room
        self._index(entity_id, to_room)
        self.engine.events.emit(EntityRelocatedEvent(entity_id, from_room, to_room, reason))
        return from_room

    def remove_from_world(self, entity_id: UUID, reason: str = "removed") -> str | None:
        """Take an entity out of every room (e.g. into an inventory). Returns its room."""
        from_room = self._unindex(entity_id)
        if self.world.entity_exists(entity_id):
            self.world.remove_component(entity_id, Position)
        if from_room is not None:
            self.engine.events.emit(EntityRelocatedEvent(entity_id, from_room, None, reason))
        return from_room

    def contents(self, room_key: str) -> list[UUID]:
        """Entities in the room, in arrival order (a copy: safe to move while iterating)."""
        bucket = self._contents.get(room_key)
        if not bucket:
            return []
        exists = self.world.entity_exists
        return [uid for uid in bucket if exists(uid)]

    def count_in(self, room_key: str) -> int:
        return len(self._contents.get(room_key, ()))

    def _with(self, room_key: str, ctype: type[Component]) -> list[UUID]:
        rooms = self._kinds.get(ctype)
        if rooms is not None:
            kind = rooms.get(room_key)
            if not kind:
                return []
            exists = self.world.entity_exists
            return [uid for uid in kind if exists(uid)]
        has = self.world.has_component
        return [uid for uid in self.contents(room_key) if has(uid, ctype)]

    def characters_in(self, room_key: str, include_offline: bool = False) -> list[UUID]:
        """Player characters in the room; offline ones only if asked."""
        sessions = self.engine.sessions
        if not include_offline and not sessions.online_count:
            return []  # nobody is online: no need to look (NPCs walk all the time)
        chars = self._with(room_key, PlayerCharacter)
        if include_offline:
            return chars
        online = sessions.is_online
        return [c for c in chars if online(c)]

    def npcs_in(self, room_key: str) -> list[UUID]:
        return self._with(room_key, NPC)

    def items_in(self, room_key: str) -> list[UUID]:
        return self._with(room_key, Item)

    # -- visibility and lookup ---------------------------------------------------
    def is_visible(self, entity_id: UUID, viewer: UUID | None = None) -> bool:
        """Offline characters are not seen; other layers add rules to visibility_checks."""
        if entity_id == viewer:
            return True
        world = self.world
        if world.has_component(entity_id, PlayerCharacter) and not (
            self.engine.sessions.is_online(entity_id)
        ):
            return False
        return all(check(viewer, entity_id) for check in self.visibility_checks)

    def visible_in(self, room_key: str, viewer: UUID | None = None) -> list[UUID]:
        """Describable entities in the room that ``viewer`` can see, viewer excluded."""
        has = self.world.has_component
        return [
            uid
            for uid in self.contents(room_key)
            if uid != viewer and has(uid, Describable) and self.is_visible(uid, viewer)
        ]

    def keywords_of(self, entity_id: UUID) -> list[str]:
        desc = self.world.try_component(entity_id, Describable)
        if desc is None:
            return []
        words = [k.lower() for k in desc.keywords]
        words.extend(w.strip(".,'\"!?").lower() for w in desc.name.split())
        return [w for w in words if w]

    def matches(self, entity_id: UUID, words: Iterable[str]) -> bool:
        """Every word is a prefix of one of the entity's keywords (classic MUD rule),
        or a plural of one: "casks" after "Three small casks ... wait here"."""
        keywords = self.keywords_of(entity_id)
        return all(any(k.startswith(w) for k in keywords) or singular(w) in keywords for w in words)

    def find_in_room(
        self,
        room_key: str,
        keyword: str,
        kinds: Iterable[type[Component]] | None = None,
        viewer: UUID | None = None,
    ) -> UUID | None:
        """The entity ``keyword`` names in the room: "scout", "bandit sc", "2.scout".

        ``kinds`` limits the search to entities having one of these component types;
        ``viewer`` is skipped and only what they can see is found.
        """
        ordinal, words = parse_ordinal(keyword)
        if not words or ordinal < 1:
            return None
        wanted = tuple(kinds) if kinds is not None else ()
        has = self.world.has_component
        # Lazy: in a crowded room stop at the match instead of filtering everyone.
        for uid in self.contents(room_key):
            if uid == viewer or (wanted and not any(has(uid, k) for k in wanted)):
                continue
            if self.matches(uid, words) and self.is_visible(uid, viewer):
                ordinal -= 1
                if ordinal == 0:
                    return uid
        return None

    # -- travel -----------------------------------------------------------------
    def graph(self) -> RoomGraph:
        """The exits as a graph (maid_stdlib.world.graph), built when first needed
        after a change of rooms or exits."""
        graph = self._graph
        if graph is None:
            adjacency = {}
            zones: dict[str, str] = {}
            world = self.world
            rooms = self._rooms
            for key, uid in rooms.items():
                exits = world.try_component(uid, Exits)
                adjacency[key] = (
                    []
                    if exits is None
                    else [(target, name) for name, target in exits.exits.items() if target in rooms]
                )
                room = world.try_component(uid, Room)
                zones[key] = room.area if room is not None else ""
            # The rooms' areas as they are now: the routes are exact for any split
            # of the rooms, so an area changed later costs speed, never a wrong answer.
            graph = self._graph = RoomGraph(adjacency, zones)
        return graph

    def is_reachable(self, from_room: str, to_room: str) -> bool:
        if from_room not in self._rooms or to_room not in self._rooms:
            return False
        return self.graph().is_reachable(from_room, to_room)

    def path(self, from_room: str, to_room: str) -> list[str] | None:
        """Exit names of a shortest walk from one room to another ([] if the same);
        None if there is no way."""
        if from_room not in self._rooms or to_room not in self._rooms:
            return None
        return self.graph().path(from_room, to_room)

    def distance(self, from_room: str, to_room: str, limit: int | None = None) -> int | None:
        """Rooms walked on a shortest way (None: no way, or longer than ``limit``)."""
        if from_room not in self._rooms or to_room not in self._rooms:
            return None
        return self.graph().distance(from_room, to_room, limit)

    # -- messages -----------------------------------------------------------------
    def message_room(self, room_key: str, text: str, exclude: Iterable[UUID] = ()) -> int:
        """Send ``text`` to the connected characters in the room. Returns how many."""
        skip = set(exclude)
        sent = 0
        for cid in self.characters_in(room_key):
            if cid not in skip and self.engine.sessions.send_to(cid, text):
                sent += 1
        return sent

    def announce(self, room_key: str, mover: UUID, name: str, phrase: str) -> None:
        """Tell the room that ``name`` ``phrase`` ("arrives from the north"): at once
        in a quiet room, batched with the others of this tick in a crowded one."""
        self.announcements.announce(room_key, mover, name, phrase)

    def message_character(self, character: UUID, text: str) -> bool:
        """Send ``text`` to one character if they are connected."""
        return self.engine.sessions.send_to(character, text)


def parse_ordinal(keyword: str) -> tuple[int, list[str]]:
    """ "2.scout" -> (2, ["scout"]); "bandit scout" -> (1, ["bandit", "scout"])."""
    text = keyword.strip().lower()
    ordinal = 1
    head, dot, rest = text.partition(".")
    if dot and head.isdigit():
        ordinal, text = int(head), rest
    return ordinal, text.split()
