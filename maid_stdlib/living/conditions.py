"""World facts the simulation reads: threats, and named conditions about an NPC.

A *condition* ("supply_blocked", "company", "threat_known", "at:tavern") answers
"does this hold for this NPC right now?" with a :class:`Fact` (why it holds) or
None. Needs decay and recover under conditions, and goals are blocked by them; the
fact's description becomes the goal's blocker ("bandits on the Old Trade Road").
Packs add their own with ``LivingWorld.conditions.register``.

Threats come from *threat providers* (``(world) -> [(entity, source)]``): the
stdlib ones read the :class:`Hostile` marker and members of factions declared
``hostile``. A combat layer can add one for its own hostility flag, keeping this
layer free of any import of it.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.ecs import World
from maid_engine.ports import SessionsPort, WorldPort
from maid_stdlib.living.components import NeedsComponent
from maid_stdlib.living.facts import Hostile, Schedule, SupplyRoutes, WatchedRooms
from maid_stdlib.living.gossip import KnownGossip
from maid_stdlib.text.place import located
from maid_stdlib.world.components import NPC
from maid_stdlib.world.service import WorldService

ThreatProvider = Callable[[World], Iterable[tuple[UUID, str]]]


class ConditionsHost(WorldPort, SessionsPort, Protocol):
    """The engine as conditions see it: the world, and who is online (company)."""


class LivingView(Protocol):
    """What threat maps and condition checks read of the living world
    (``LivingWorld``, which imports this module: typing against the service
    itself would close an import loop)."""

    @property
    def engine(self) -> ConditionsHost: ...

    @property
    def world_service(self) -> WorldService: ...

    @property
    def conditions(self) -> ConditionRegistry: ...

    def threat_map(self) -> ThreatMap: ...

    def source_name(self, source: str) -> str: ...

    def place_name(self, rooms: list[str]) -> str: ...

    def known_threat_keys(self, npc: UUID) -> list[str]: ...


@dataclass(frozen=True)
class Fact:
    key: str
    description: str
    source: str = ""
    rooms: tuple[str, ...] = ()
    entities: tuple[UUID, ...] = ()


@dataclass
class ThreatGroup:
    """Threats of one source in one area (or one room outside any area)."""

    key: str
    source: str
    source_name: str
    place: str
    entities: list[UUID] = field(default_factory=list)
    rooms: dict[str, int] = field(default_factory=dict)

    @property
    def primary_room(self) -> str:
        return max(sorted(self.rooms), key=lambda r: self.rooms[r])


class ThreatMap:
    """Where the threats are right now, grouped by source and area."""

    def __init__(self, living: LivingView, pairs: Iterable[tuple[UUID, str]]) -> None:
        ws = living.world_service
        self.living = living
        self.by_room: dict[str, list[tuple[UUID, str]]] = {}
        self.groups: dict[str, ThreatGroup] = {}
        #: Every threat entity.
        self.ids: set[UUID] = set()
        self._group_of: dict[tuple[str, str], str] = {}
        self._facts: dict[tuple[tuple[str, ...], str], Fact | None] = {}
        self._groups_in: dict[tuple[str, ...], list[ThreatGroup]] = {}
        self._places: dict[str, str] = {}
        #: threat -> (its place in the order the providers named them, its room,
        #: its source): what ``without`` needs to give a rebuild's answer.
        self._at: dict[UUID, tuple[int, str, str]] = {}
        # Rebuilt whenever a threat appears (a death or a walk is made in the kept
        # map): after each respawn in the 10,000-NPC world. So the loop looks each
        # key up once per (source, room), not once per threat, and binds what it
        # calls.
        world = living.engine.world
        room_key_of, area_of = ws.room_key_of, ws.area_of
        by_room, groups, ids, group_of = self.by_room, self.groups, self.ids, self._group_of
        at = self._at
        for uid, source in pairs:
            if uid in ids:
                continue
            room = room_key_of(uid)
            if room is None or not world.entity_exists(uid):
                continue
            at[uid] = (len(ids), room, source)
            ids.add(uid)
            here = by_room.get(room)
            if here is None:
                here = by_room[room] = []
            here.append((uid, source))
            key = group_of.get((source, room))
            if key is None:
                place = area_of(room) or room
                key = group_of[(source, room)] = f"threat:{source}:{place}"
                if key not in groups:
                    groups[key] = ThreatGroup(key, source, living.source_name(source), place)
            group = groups[key]
            group.entities.append(uid)
            group.rooms[room] = group.rooms.get(room, 0) + 1

    def __bool__(self) -> bool:
        return bool(self.groups)

    def without(self, entity: UUID) -> ThreatMap | None:
        """This map less ``entity`` (one of its threats, being destroyed): what a
        rebuild would give once it is gone, to the order of the groups and of
        their rooms, without asking every provider again (a kill in a big world
        rebuilt the map in 4-5 ms). None when ``entity`` is not in it."""
        if entity not in self._at:
            return None
        return self._placed(entity, None)

    def moved(self, entity: UUID, room: str | None) -> ThreatMap | None:
        """This map with ``entity`` (one of its threats) in ``room`` (None: nowhere,
        so out of the map): what a rebuild would give when the providers name the
        same threats in the same order and only this one has moved. None when
        ``entity`` is not in it."""
        at = self._at.get(entity)
        if at is None:
            return None
        if at[1] == room:
            return self
        return self._placed(entity, room)

    def _placed(self, entity: UUID, room: str | None) -> ThreatMap:
        index, old, source = self._at[entity]
        out = ThreatMap.__new__(ThreatMap)
        out.living = self.living
        out.by_room = dict(self.by_room)
        out._at = dict(self._at)
        out._group_of = self._group_of
        here = [pair for pair in self.by_room[old] if pair[0] != entity]
        if here:
            out.by_room[old] = here
        else:
            del out.by_room[old]
        groups = dict(self.groups)
        changed = [self._group_of[(source, old)]]
        if room is None:
            out.ids = self.ids - {entity}
            del out._at[entity]
        else:
            out.ids = self.ids
            out._at[entity] = (index, room, source)
            # A rebuild lists a room's threats, and a group's, in the providers'
            # order: the moved one goes back in at its place in it.
            there = list(out.by_room.get(room, ()))
            insort(there, (entity, source), key=lambda pair: out._at[pair[0]][0])
            out.by_room[room] = there
            place = self.living.world_service.area_of(room) or room
            key = self._group_of.get((source, room))
            if key is None:
                key = f"threat:{source}:{place}"
                out._group_of = {**self._group_of, (source, room): key}
            if key not in groups:
                groups[key] = ThreatGroup(key, source, self.living.source_name(source), place)
            if key != changed[0]:
                changed.append(key)
        for key in changed:
            group = groups[key]
            members = [uid for uid in group.entities if uid != entity]
            if key == changed[-1] and room is not None:
                insort(members, entity, key=lambda uid: out._at[uid][0])
            if not members:
                del groups[key]
                continue
            # A group's rooms count its threats in its threats' order.
            rooms: dict[str, int] = {}
            for uid in members:
                where = out._at[uid][1]
                rooms[where] = rooms.get(where, 0) + 1
            groups[key] = replace(group, entities=members, rooms=rooms)
        # A rebuild meets the groups in the order of their first threats.
        out.groups = {
            g.key: g for g in sorted(groups.values(), key=lambda g: out._at[g.entities[0]][0])
        }
        out._facts = {}
        out._groups_in = {}
        out._places = {k: v for k, v in self._places.items() if k not in changed}
        return out

    def place_of(self, group: ThreatGroup) -> str:
        """``LivingWorld.place_name`` of the group's rooms (kept: every NPC that
        sees the group tells it the same way)."""
        name = self._places.get(group.key)
        if name is None:
            name = self._places[group.key] = self.living.place_name(sorted(group.rooms))
        return name

    def groups_in(self, rooms: Iterable[str]) -> list[ThreatGroup]:
        """Threat groups with a member in any of ``rooms``, by key."""
        wanted = tuple(rooms)
        found = self._groups_in.get(wanted)
        if found is None:
            keys = {
                self._group_of[(source, room)]
                for room in wanted
                for _uid, source in self.by_room.get(room, ())
            }
            found = self._groups_in[wanted] = [self.groups[k] for k in sorted(keys)]
        return list(found)

    def fact_for(self, rooms: list[str], what: str = "") -> Fact | None:
        """The threats among ``rooms`` as one Fact, described by where they are.

        A map never changes once built (a change of threats builds a new one), so
        its answers are kept: thousands of NPCs share a few supply routes."""
        key = (tuple(rooms), what)
        if key in self._facts:
            return self._facts[key]
        fact = self._facts[key] = self._fact_for(rooms, what)
        return fact

    def _fact_for(self, rooms: list[str], what: str) -> Fact | None:
        hit = [r for r in rooms if r in self.by_room]
        if not hit:
            return None
        groups = self.groups_in(hit)
        sources = sorted({g.source for g in groups})
        entities = tuple(uid for r in hit for uid, _ in self.by_room[r])
        names = [self.living.source_name(s) for s in sources]
        who = " and ".join(names)
        desc = f"{who} {located(self.living.place_name(hit))}"
        key = "+".join(g.key for g in groups)
        return Fact(key, desc if not what else f"{desc} ({what})", sources[0], tuple(hit), entities)


def hostile_marker_threats(world: World) -> Iterable[tuple[UUID, str]]:
    for uid, marker in world.each(Hostile):
        if marker.active:
            yield uid, marker.source


ConditionFunc = Callable[["Evaluation", UUID, str], Fact | None]


class ConditionRegistry:
    """Named conditions; a name may take an argument after a colon ("at:tavern")."""

    def __init__(self) -> None:
        self._funcs: dict[str, ConditionFunc] = {}
        #: spec -> (function, argument): the same few specs are checked for every
        #: NPC visit.
        self._resolved: dict[str, tuple[ConditionFunc, str]] = {}

    def register(self, name: str, func: ConditionFunc) -> None:
        if name in self._funcs:
            raise ValueError(f"condition {name!r} is already registered")
        self._funcs[name] = func

    def names(self) -> list[str]:
        return sorted(self._funcs)

    def __contains__(self, spec: str) -> bool:
        return spec.partition(":")[0] in self._funcs

    def resolve(self, spec: str) -> tuple[ConditionFunc, str]:
        found = self._resolved.get(spec)
        if found is not None:
            return found
        name, _, arg = spec.partition(":")
        func = self._funcs.get(name)
        if func is None:
            raise KeyError(f"unknown condition {name!r} (known: {', '.join(self.names())})")
        found = self._resolved[spec] = (func, arg)
        return found


class Evaluation:
    """One pass of the simulation: a snapshot of threats and a per-NPC cache."""

    def __init__(self, living: LivingView, now: float) -> None:
        self.living = living
        self.now = now
        self.world = living.engine.world
        self.ws: WorldService = living.world_service
        self.threats = living.threat_map()
        self._cache: dict[UUID, dict[str, Fact | None]] = {}
        self._company: dict[str, set[UUID]] = {}
        self._resolve = living.conditions.resolve

    def check(self, spec: str, npc: UUID) -> Fact | None:
        mine = self._cache.get(npc)
        if mine is None:
            mine = self._cache[npc] = {}
        elif spec in mine:
            return mine[spec]
        try:
            func, arg = self._resolve(spec)
        except KeyError:
            mine[spec] = None
            return None
        fact = mine[spec] = func(self, npc, arg)
        return fact

    def company_in(self, room: str) -> set[UUID]:
        """Who counts as company in a room: non-hostile NPCs and online characters."""
        found = self._company.get(room)
        if found is None:
            has = self.world.has_component
            online = self.living.engine.sessions.is_online
            threats = self.threats.ids
            found = {
                uid
                for uid in self.ws.contents(room)
                if (has(uid, NPC) and uid not in threats)
                or (has(uid, PlayerCharacter) and online(uid))
            }
            self._company[room] = found
        return found

    def holds(self, spec: str, npc: UUID) -> bool:
        return self.check(spec, npc) is not None

    def observed_rooms(self, npc: UUID) -> list[str]:
        """Rooms the NPC knows first-hand: where it is, what it watches, its routes."""
        rooms: list[str] = []
        here = self.ws.room_key_of(npc)
        if here is not None:
            rooms.append(here)
        watched = self.world.try_component(npc, WatchedRooms)
        if watched is not None:
            rooms.extend(watched.rooms)
        routes = self.world.try_component(npc, SupplyRoutes)
        if routes is not None:
            for route in routes.routes:
                rooms.extend(route.rooms)
        return list(dict.fromkeys(rooms))


# -- built-in conditions -----------------------------------------------------------
def _supply_blocked(ev: Evaluation, npc: UUID, resource: str) -> Fact | None:
    routes = ev.world.try_component(npc, SupplyRoutes)
    if routes is None or not ev.threats:
        return None
    for route in routes.routes:
        if resource and route.resource != resource:
            continue
        fact = ev.threats.fact_for(route.rooms)
        if fact is not None:
            return fact
    return None


def _supply_clear(ev: Evaluation, npc: UUID, resource: str) -> Fact | None:
    routes = ev.world.try_component(npc, SupplyRoutes)
    blocked = ev.check(f"supply_blocked:{resource}" if resource else "supply_blocked", npc)
    if routes is None or not routes.routes or blocked is not None:
        return None
    return Fact("supply_clear", "the supply routes are clear")


def _company(ev: Evaluation, npc: UUID, _arg: str) -> Fact | None:
    room = ev.ws.room_key_of(npc)
    if room is None:
        return None
    others = ev.company_in(room)
    if len(others) - (npc in others) > 0:
        return Fact(f"company:{room}", "in company", rooms=(room,))
    return None


def _alone(ev: Evaluation, npc: UUID, _arg: str) -> Fact | None:
    if ev.check("company", npc) is not None:
        return None
    return Fact("alone", "alone")


def _threat_known(ev: Evaluation, npc: UUID, _arg: str) -> Fact | None:
    for key in ev.living.known_threat_keys(npc):
        group = ev.threats.groups.get(key)
        if group is not None:
            return Fact(
                group.key,
                f"{group.source_name} about",
                group.source,
                tuple(sorted(group.rooms)),
                tuple(group.entities),
            )
    return None


def _no_threat_known(ev: Evaluation, npc: UUID, _arg: str) -> Fact | None:
    if ev.check("threat_known", npc) is not None:
        return None
    return Fact("safe", "no known threat")


def _threat_near(ev: Evaluation, npc: UUID, _arg: str) -> Fact | None:
    return ev.threats.fact_for(ev.observed_rooms(npc))


def _threat_in(ev: Evaluation, npc: UUID, room: str) -> Fact | None:
    """``threat_in:<room>``: a threat is in that room now, wherever the NPC is (a
    hunter at his lodge speaks of the wolves in the glade while they are there)."""
    return ev.threats.fact_for([room]) if room else None


def _at(ev: Evaluation, npc: UUID, room: str) -> Fact | None:
    here = ev.ws.room_key_of(npc)
    if here is None or here != room:
        return None
    return Fact(f"at:{room}", f"at {room}", rooms=(room,))


def _away(ev: Evaluation, npc: UUID, room: str) -> Fact | None:
    return None if _at(ev, npc, room) is not None else Fact(f"away:{room}", f"away from {room}")


def _not(ev: Evaluation, npc: UUID, spec: str) -> Fact | None:
    """``not:<condition>``: holds when the other does not."""
    if not spec or ev.check(spec, npc) is not None:
        return None
    return Fact(f"not:{spec}", f"not {spec}")


def _heard(ev: Evaluation, npc: UUID, tag: str) -> Fact | None:
    """``heard:<tag>``: the NPC knows a statement tagged so ("threat_cleared")."""
    known = ev.world.try_component(npc, KnownGossip)
    if known is None:
        return None
    for item in known.items.values():
        if tag in item.tags:
            return Fact(
                f"heard:{item.id}", item.content, rooms=(item.location,) if item.location else ()
            )
    return None


def _doing(ev: Evaluation, npc: UUID, activity: str) -> Fact | None:
    """``doing:<activity>``: the NPC's schedule has it doing that now (where it
    should be at this hour and already there)."""
    schedule = ev.world.try_component(npc, Schedule)
    if schedule is None:
        return None
    entry = schedule.entry_at(int(ev.now // 3600) % 24)
    if entry is None or entry.activity != activity or ev.ws.room_key_of(npc) != entry.room:
        return None
    return Fact(f"doing:{activity}", activity, rooms=(entry.room,))


def _need_low(ev: Evaluation, npc: UUID, need: str) -> Fact | None:
    """``need_low[:<need>]``: the need (any, without one) is below its threshold."""
    needs = ev.world.try_component(npc, NeedsComponent)
    if needs is None:
        return None
    for name, state in sorted(needs.needs.items()):
        if (not need or name == need) and state.value < state.threshold:
            return Fact(f"need_low:{name}", f"short of {name}")
    return None


def builtin_conditions() -> ConditionRegistry:
    reg = ConditionRegistry()
    for name, func in (
        ("supply_blocked", _supply_blocked),
        ("supply_clear", _supply_clear),
        ("company", _company),
        ("alone", _alone),
        ("threat_known", _threat_known),
        ("no_threat_known", _no_threat_known),
        ("threat_near", _threat_near),
        ("threat_in", _threat_in),
        ("at", _at),
        ("away", _away),
        ("always", lambda _ev, npc, _a: Fact("always", "always")),
        ("not", _not),
        ("heard", _heard),
        ("doing", _doing),
        ("need_low", _need_low),
    ):
        reg.register(name, func)
    return reg
