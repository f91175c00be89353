"""LivingWorld: the service that holds the living world together.

It owns the registries packs extend (conditions, threat providers, factions,
crisis rules), the memory service, the living data waiting to be applied, and the
threat map every system reads. Provided by the ``stdlib.living`` plugin under
``LivingWorld``; ``MemoryService`` is provided too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.content import Claims, PackContext
from maid_engine.ecs import Component, World
from maid_stdlib.living.api import adjust_relationship, get_relationship
from maid_stdlib.living.components import FactionMembership, Relationships, Stranded
from maid_stdlib.living.conditions import (
    ConditionsHost,
    Evaluation,
    ThreatGroup,
    ThreatMap,
    ThreatProvider,
    builtin_conditions,
    hostile_marker_threats,
)
from maid_stdlib.living.data import LivingData, NpcSpec, read_living_file
from maid_stdlib.living.facts import Hostile
from maid_stdlib.living.gossip import (
    RETELL_TO_PLAYER_AFTER,
    GossipItem,
    KnownGossip,
    gossip_items,
    gossip_lines,
    said_by,
    told_to,
)
from maid_stdlib.living.memory import EpisodicMemory, MemoryHost, MemoryService
from maid_stdlib.living.presence import Presence
from maid_stdlib.living.registries import (
    DEFAULT_CRISES,
    AmbientSettings,
    CrisisRule,
    FactionDef,
    Registries,
)
from maid_stdlib.living.regroup import Clearances
from maid_stdlib.living.seeding import SeedingHost, apply_data
from maid_stdlib.text.morph import join
from maid_stdlib.text.place import place_phrase, with_article
from maid_stdlib.world.components import Describable
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.service import WorldService

log = logging.getLogger("maid.living")


#: Game seconds before talking to the same NPC again makes a new memory.
CONVERSATION_GAP = 3600.0

#: ``guard(entity) -> bool``: False holds an NPC where it is (e.g. in combat).
MovementGuard = Callable[[UUID], bool]


def _has_active_hostile_marker(world: World, entity: UUID) -> bool:
    marker = world.try_component(entity, Hostile)
    return marker is not None and marker.active


class LivingHost(ConditionsHost, SeedingHost, MemoryHost, Protocol):
    """What the living world uses of the engine: the world and who is online
    (conditions, schedules), the world data and game time (seeding), and what its
    memory service uses."""


#: Above this trust or affinity a tie is a warm one.
WARM = 0.4


@dataclass(frozen=True)
class Tie:
    """One of an NPC's relationships as it speaks of it: the other's name, why it
    is the way it is ("" when nothing is written), its kind ("family", "rival"
    ...), and whether it is a grudge or a warm tie."""

    other: str
    cause: str
    sour: bool
    kind: str = ""
    warm: bool = False


class LivingWorld:
    def __init__(self, engine: LivingHost) -> None:
        self.engine = engine
        self.memory = MemoryService(engine)
        self.conditions = builtin_conditions()
        self.threat_providers: list[ThreatProvider] = [
            hostile_marker_threats,
            self._hostile_faction_threats,
        ]
        self.registries = Registries()
        self.movement_guards: list[MovementGuard] = []
        self.pending_data: list[LivingData] = []
        #: NPC template key -> its living data, for NPCs spawned later.
        self.templates: dict[str, tuple[LivingData, NpcSpec]] = {}
        self.applied_data: list[LivingData] = []
        #: Which pack added which living file (an extension registry, locked once
        #: the engine has started).
        self.data_claims = Claims(
            "living data", keys=lambda: [d.file for d in [*self.applied_data, *self.pending_data]]
        )
        #: provider -> ``(world, entity) -> bool``: whether that provider would name
        #: the entity. A move or death invalidates the threat map only when the
        #: entity is (or was) a threat; a provider without a check here makes every
        #: move invalidate it (the map cannot tell who it would name).
        self.threat_checks: dict[ThreatProvider, Callable[[World, UUID], bool]] = {
            hostile_marker_threats: _has_active_hostile_marker,
            self._hostile_faction_threats: self._in_hostile_faction,
        }
        self._threats: ThreatMap | None = None
        #: Component types whose changes may change who is a threat.
        self._threat_sources: set[type[Component]] = set()
        #: (membership version, hostile factions) -> [(member, faction)]
        self._hostile_members: tuple[object, list[tuple[UUID, str]]] | None = None
        #: (hostile factions, entities that joined one since): a superset of the
        #: hostile factions' members (``_hostile_faction_threats``)
        self._hostile_candidates: tuple[frozenset[str], set[UUID]] | None = None
        engine.world.on_changed(FactionMembership, self._on_membership)
        self.watch_threat_sources(Hostile, FactionMembership)
        #: Threats players cleared, held until their faction regroups.
        self.clearances = Clearances(self)
        #: What NPCs, rooms and notice boards show.
        self.presence = Presence(self, self.name_of, lambda: engine.services.try_get(WorldData))
        self._started = False

    @property
    def world(self) -> World:
        return self.engine.world

    @property
    def world_service(self) -> WorldService:
        return self.engine.services.get(WorldService)

    @property
    def started(self) -> bool:
        return self._started

    # -- start-up -------------------------------------------------------------------
    async def startup(self) -> None:
        """Load memories, then apply pending living data. Idempotent: every living
        and story system calls it from its own ``startup``."""
        if self._started:
            return
        self._started = True
        await self.memory.load()
        pending, self.pending_data = self.pending_data, []
        for data in pending:
            apply_data(self, data)
            self.applied_data.append(data)

    def add_data(self, data: LivingData, *, pack: str | None = None) -> None:
        """A pack's validated living data (``pack``: who adds it, by default the
        data's namespace): queued for ``startup`` (after every pack built its
        world), or applied now if the living world has started and the registries
        were reopened (the seam of a reload; once the engine started they are
        locked)."""
        self.data_claims.claim(pack or data.pack, data.file)
        if self._started:
            apply_data(self, data)
            self.applied_data.append(data)
        else:
            self.pending_data.append(data)

    # -- registries -----------------------------------------------------------------
    @property
    def factions(self) -> dict[str, FactionDef]:
        return self.registries.factions

    @property
    def ambient(self) -> AmbientSettings:
        return self.registries.ambient

    @property
    def crises(self) -> list[CrisisRule]:
        return self.registries.crises or DEFAULT_CRISES

    def add_faction(self, faction: FactionDef) -> None:
        self.registries.factions[faction.key] = faction
        self.invalidate_threats()

    def template_factions(self, template: str) -> list[str]:
        """The factions living data puts every NPC of ``template`` in."""
        found = self.templates.get(template)
        return sorted(found[1].factions) if found is not None else []

    def respawn_held(self, template: str, room: str) -> bool:
        """Whether an NPC of ``template`` must not come back to ``room`` yet: its
        faction's threat there was cleared by players and has not regrouped."""
        return self.clearances.holds(template, room)

    def source_name(self, source: str) -> str:
        faction = self.registries.factions.get(source)
        return faction.name if faction is not None else source.replace("_", " ")

    def place_name(self, rooms: list[str]) -> str:
        """The place as it reads in a sentence: a room's prose form ("the Broken
        Wagon on the Old Trade Road"), or the area's ("the Old Trade Road") when
        several rooms of one area are meant. Gossip and memories are read by
        players as they are, so a raw "Area, Landmark" name or a capital "The"
        in mid-sentence never reaches them."""
        ws = self.world_service

        def area_name(room_key: str) -> str:
            key = ws.area_of(room_key)
            area = ws.area(key) if key else None
            return area.name if area is not None and area.name else ""

        if len(rooms) == 1:
            room = ws.room(rooms[0])
            if room is None:
                return rooms[0]
            return place_phrase(room.name, area_name(rooms[0]))
        areas = {ws.area_of(r) for r in rooms}
        if len(areas) == 1 and None not in areas:
            (area_key,) = areas
            assert area_key is not None
            area = ws.area(area_key)
            if area is not None:
                return with_article(area.name)
        names = []
        for r in rooms:
            room = ws.room(r)
            names.append(place_phrase(room.name, area_name(r)) if room is not None else r)
        return join(names)

    # -- threats --------------------------------------------------------------------
    def _hostile_faction_threats(self, world: World) -> Iterable[tuple[UUID, str]]:
        hostile = {k for k, f in self.registries.factions.items() if f.hostile}
        if not hostile:
            return []
        # Walking every membership (10,000 in a big world: 7 ms) for each rebuild
        # of the threat map made rebuilds a spike; the few who ever joined a
        # hostile faction are kept as candidates instead (``_on_membership``) and
        # read in the world's order.
        key = (world.version_of(FactionMembership), frozenset(hostile))
        cached = self._hostile_members
        if cached is None or cached[0] != key:
            candidates = self._hostile_candidates
            if candidates is None or candidates[0] != key[1]:
                found = {
                    uid
                    for uid, m in world.each(FactionMembership)
                    if not hostile.isdisjoint(m.factions)
                }
                candidates = self._hostile_candidates = (key[1], found)
            members = []
            for uid, membership in world.each_in(FactionMembership, candidates[1]):
                for faction in membership.factions:
                    if faction in hostile:
                        members.append((uid, faction))
                        break
            # Forget who left or was destroyed (a rejoin comes back by the hook).
            candidates[1].intersection_update(uid for uid, _ in members)
            self._hostile_members = cached = (key, members)
        return cached[1]

    def _on_membership(self, entity: UUID, membership: FactionMembership) -> None:
        candidates = self._hostile_candidates
        if candidates is not None and not candidates[0].isdisjoint(membership.factions):
            candidates[1].add(entity)

    def _in_hostile_faction(self, world: World, entity: UUID) -> bool:
        membership = world.try_component(entity, FactionMembership)
        if membership is None:
            return False
        factions = self.registries.factions
        return any((f := factions.get(k)) is not None and f.hostile for k in membership.factions)

    def add_threat_provider(
        self,
        provider: ThreatProvider,
        check: Callable[[World, UUID], bool] | None = None,
        *,
        sources: Iterable[type[Component]] = (),
    ) -> None:
        """Add a source of threats; ``check(world, entity)`` tells whether it would
        name ``entity`` (without it, any move invalidates the threat map).
        ``sources``: the component types it reads (see :meth:`watch_threat_sources`).

        A provider names threats by what they are, not by where they stand, and
        in an order their moves do not change: while every provider has a check,
        a threat's move is made in the kept map (:meth:`threat_moved`)."""
        self.threat_providers.append(provider)
        if check is not None:
            self.threat_checks[provider] = check
        self.watch_threat_sources(*sources)
        self.invalidate_threats()

    def watch_threat_sources(self, *ctypes: type[Component]) -> None:
        """Keep the threat map in step with ``ctypes``: giving an entity one,
        taking it away, replacing it or reporting it ``modified`` drops the map
        (rebuilt when next needed) when the entity was or now is a threat. (A
        field assigned in place is not seen: as for ``World.version_of``, report
        it with ``World.modified``.)"""
        world = self.world
        for ctype in ctypes:
            if ctype in self._threat_sources:
                continue
            self._threat_sources.add(ctype)
            world.watch_holders(self._threat_source_changed, ctype)
            world.on_changed(ctype, lambda uid, _c: self._threat_source_changed(uid))

    def _threat_source_changed(self, entity: UUID) -> None:
        threats = self._threats
        if threats is None:
            return
        if not self.world.entity_exists(entity):
            # Being destroyed (or already scheduled): a rebuild would leave it out
            # and change nothing else, so the map is kept less the entity.
            if entity in threats.ids:
                self._threats = threats.without(entity)
            return
        # A marker taken away leaves the entity in the map's ids; one given makes
        # a provider's check name it: either way ``may_be_threat`` says so.
        if self.may_be_threat(entity):
            self._threats = None

    def threat_moved(self, entity: UUID) -> None:
        """``entity`` changed rooms, or came into the world: the kept map follows
        a threat it holds to where it is now (a rebuild is 4-5 ms in a big world,
        and threats walk); anyone else who may be a threat drops it."""
        threats = self._threats
        if threats is None:
            return
        providers, checks = self.threat_providers, self.threat_checks
        if entity in threats.ids and all(provider in checks for provider in providers):
            world = self.world
            room = self.world_service.room_key_of(entity) if world.entity_exists(entity) else None
            self._threats = threats.moved(entity, room)
        elif self.may_be_threat(entity):
            self._threats = None

    def may_be_threat(self, entity: UUID) -> bool:
        """Whether ``entity`` is, or in the cached map was, a threat: its moves and
        death change the threat map; anyone else's do not."""
        threats = self._threats
        if threats is not None and entity in threats.ids:
            return True
        world = self.world
        checks = self.threat_checks
        for provider in self.threat_providers:
            check = checks.get(provider)
            if check is None or check(world, entity):
                return True
        return False

    def invalidate_threats(self) -> None:
        self._threats = None

    def threat_map(self) -> ThreatMap:
        """Threats right now, cached until a threat moves or dies (``may_be_threat``)
        or something calls ``invalidate_threats`` (a new hostile, a new faction)."""
        if self._threats is None:
            pairs: list[tuple[UUID, str]] = []
            for provider in self.threat_providers:
                pairs.extend(provider(self.world))
            self._threats = ThreatMap(self, pairs)
        return self._threats

    def is_threat(self, entity: UUID) -> bool:
        threats = self._threats
        if threats is not None:
            return entity in threats.ids
        # The map is out of date (a threat moved or died) and rebuilding it is
        # milliseconds in a big world; the NPCs met on every arrival (greetings)
        # are asked about one at a time, so ask the providers' checks instead,
        # the way the map would: a located, living entity some provider names.
        checks = self.threat_checks
        providers = self.threat_providers
        if not all(provider in checks for provider in providers):
            return entity in self.threat_map().ids
        world = self.world
        if not world.entity_exists(entity) or self.world_service.room_key_of(entity) is None:
            return False
        return any(checks[provider](world, entity) for provider in providers)

    def known_threat_keys(self, npc: UUID) -> list[str]:
        known = self.world.try_component(npc, KnownGossip)
        if known is None:
            return []
        return sorted(i.subject for i in known.items.values() if "threat" in i.tags)

    def holds(self, npc: UUID, when: Iterable[str]) -> bool:
        """Whether every condition of ``when`` holds for ``npc`` now (what an NPC
        says or shows may depend on them; unknown conditions never hold)."""
        ev = Evaluation(self, self.engine.clock.game_time)
        return all(ev.holds(spec, npc) for spec in when)

    # -- dialogue hooks -------------------------------------------------------------
    def gossip_lines(
        self, npc: UUID, limit: int = 3, about: Callable[[str], bool] | None = None
    ) -> list[str]:
        """Lines an NPC offers when talked to (for the RPG ``talk`` command), or when
        asked about something (``about`` picks the news that is on the subject)."""
        return gossip_lines(self.world, npc, limit, about, self.engine.clock.game_time)

    def ties_about(self, npc: UUID, about: Callable[[str], bool]) -> list[Tie]:
        """``npc``'s relationships that ``about`` accepts, by the other's name or
        the written cause (what it says when asked about someone it knows, or the
        subject of a grudge it is seen to bear): those with a cause first, then
        the sourest first."""
        rels = self.world.try_component(npc, Relationships)
        if rels is None:
            return []
        ties: list[tuple[bool, float, Tie]] = []
        for key, rel in rels.entries.items():
            try:
                other = UUID(key)
            except ValueError:
                continue
            if not self.world.entity_exists(other):
                continue
            name = self.name_of(other)
            if about(name) or (rel.cause and about(rel.cause)):
                sour = rel.trust < 0 or rel.kind == "rival"
                warm = not sour and max(rel.trust, rel.affinity) >= WARM
                tie = Tie(name, rel.cause.rstrip("."), sour, rel.kind, warm)
                ties.append((not rel.cause, rel.trust, tie))
        ties.sort(key=lambda item: item[:2])
        return [tie for _, _, tie in ties]

    def note_conversation(self, npc: UUID, speaker: UUID) -> list[str]:
        """``speaker`` talked to ``npc``: the NPC remembers it (at most once per game
        hour per speaker) and warms a little to them. Returns the news it mentions,
        so a ``talk`` command needs this one call: ``gossip_lines(npc)``, but to a
        player not what they were told in the last game day (``HeardNews``)."""
        now = self.engine.clock.game_time
        rel = get_relationship(self.world, npc, speaker)
        if rel is None or rel.last_seen is None or now - rel.last_seen >= CONVERSATION_GAP:
            is_pc = self.world.has_component(speaker, PlayerCharacter)
            self.memory.add(
                EpisodicMemory(
                    npc,
                    f"{self.name_of(speaker)} stopped to talk with me.",
                    importance=0.2,
                    tags=["conversation"],
                    player_id=speaker if is_pc else None,
                    subject_id=speaker,
                    location=self.world_service.room_key_of(npc),
                )
            )
            adjust_relationship(self.world, npc, speaker, trust=0.01, affinity=0.01, now=now)
        if not self.world.has_component(speaker, PlayerCharacter):
            return self.gossip_lines(npc)
        told = told_to(self.world, speaker).told
        for key in [k for k, at in told.items() if now - at >= RETELL_TO_PLAYER_AFTER]:
            del told[key]  # may be told again: no need to keep it

        mine = str(speaker)

        def fresh_to_them(item: GossipItem) -> bool:
            # Nor their own deed told back to them ("An adventurer helped me.").
            return item.id in told or item.doer == mine

        items = gossip_items(self.world, npc, skip=fresh_to_them)
        for item in items:
            told[item.id] = now
        return said_by(self.world, npc, items, now)

    def name_of(self, entity: UUID) -> str:
        desc = self.world.try_component(entity, Describable)
        if desc is not None and desc.name:
            return desc.name
        pc = self.world.try_component(entity, PlayerCharacter)
        return pc.name if pc is not None and pc.name else str(entity)

    def movement_allowed(self, entity: UUID) -> bool:
        return all(guard(entity) for guard in self.movement_guards)

    # -- people held in place -------------------------------------------------------
    def cornered_by(self, entity: UUID, room: str) -> ThreatGroup | None:
        """The threat that keeps ``entity`` from walking out of ``room``: a threat
        group with a member there, unless ``entity`` is a threat itself (a wolf is
        not trapped by its pack)."""
        threats = self.threat_map()
        if entity in threats.ids:
            return None
        groups = threats.groups_in([room])
        return groups[0] if groups else None

    def hold_stranded(self, entity: UUID, room: str, group: ThreatGroup, now: float) -> None:
        """``entity`` could not leave ``room`` because of ``group``: remember since
        when (kept while it stays held there, even if the threat's key changes)."""
        held = self.world.try_component(entity, Stranded)
        if held is not None and held.room == room:
            if held.threat_key != group.key:
                held.threat_key, held.source = group.key, group.source
                self.world.modified(entity, held)
            return
        self.world.add_component(entity, Stranded(room, group.key, group.source, now))

    def release_stranded(self, entity: UUID) -> None:
        """``entity`` is no longer held (it walked on, or was brought away)."""
        if self.world.has_component(entity, Stranded):
            self.world.remove_component(entity, Stranded)


def load_living_data(
    ctx: PackContext, path: Path | str, namespace: str | None = None
) -> LivingData:
    """Validate a pack's living file now and queue it to be applied at start-up.

    Unqualified keys in the file ("smithy") belong to ``namespace`` (default: the
    calling pack's name). Needs the living world, so the pack must require
    ``stdlib.living`` (or the ``stdlib`` group).
    """
    data = read_living_file(namespace or ctx.pack.name, Path(path))
    add_living_data(ctx, data)
    return data


def add_living_data(ctx: PackContext, data: LivingData) -> None:
    """Queue living data a pack read itself (applied when the living systems start)."""
    living = ctx.engine.services.try_get(LivingWorld)
    if living is None:
        raise ctx.error("living data needs the living world (require 'stdlib.living' or 'stdlib')")
    living.add_data(data, pack=ctx.pack.name)
