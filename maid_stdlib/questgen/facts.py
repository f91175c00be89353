"""WorldFacts: the one place the pipeline reads the world from.

Names, rooms, areas, regions and reachability come from the WorldService;
needs, goals, relationships, factions, wealth, memories and threats from the
living layer (``maid_stdlib.living``). Rules layers add what the stdlib cannot
know through hooks: ``alive_checks`` (a classic RPG: health above zero),
``challenge`` (how characters and threats measure up to difficulty tiers; a
classic RPG rates them by character level), ``item_sources`` (an item template that
can be bought or looted counts as obtainable; ``item_returns``: one whose dropper is
due to respawn still does for a quest already offered), ``portable_checks`` (an item a
character can pick up; only those are asked for), ``respawn_pending`` (a respawn of
an NPC template is scheduled), ``respawners`` (this NPC comes back when killed) and
``authored_claims`` (the NPCs and rooms of hand-written quests someone is on, which
generated quests leave alone).
Kill objectives with a template are matched by kind: :meth:`kind_available`
says whether an NPC of that kind is alive or really due to respawn.
"""

from __future__ import annotations

import random
from bisect import bisect_left, insort
from collections.abc import Callable, Mapping
from typing import Protocol
from uuid import UUID

from maid_engine.ports import ClockPort, RandomPort, ServicesPort, WorldPort
from maid_stdlib.living.components import (
    FactionMembership,
    Goal,
    GoalsComponent,
    NeedsComponent,
    NeedState,
    Relationship,
    Relationships,
    Wealth,
)
from maid_stdlib.living.facts import WatchedRooms
from maid_stdlib.living.gossip import KnownGossip
from maid_stdlib.living.memory import EpisodicMemory, MemoryVisibility
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.questgen.challenge import NEUTRAL_CHALLENGE, ChallengeRating
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.questgen.threats import ThreatFacts
from maid_stdlib.text.place import place_phrase
from maid_stdlib.text.pronouns import Pronouns, pronouns
from maid_stdlib.world.components import NPC, Area, Describable, Item, Position, Room
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.schema import ThingSpec
from maid_stdlib.world.service import WorldService

__all__ = ["HOSTILE_KINDS", "WorldFacts"]

#: Relationship kinds that set two people against each other.
HOSTILE_KINDS = frozenset({"rival", "enemy"})

AliveCheck = Callable[[UUID], bool]
ItemSource = Callable[[str], bool]
ItemDroppers = Callable[[str], "list[UUID]"]
RespawnPending = Callable[[str], bool]
Respawner = Callable[[UUID], bool]
#: ``() -> {entity id or room key: title}``: what the active hand-written quests use.
#: The answer is read, never changed: a hook may hand out the mapping it keeps.
AuthoredClaims = Callable[[], "Mapping[UUID | str, str]"]


class FactsHost(WorldPort, ClockPort, ServicesPort, RandomPort, Protocol):
    """What the world facts read: the world and its services (the world index, the
    living world), game time, and the seeded random source."""


class WorldFacts(ThreatFacts):
    """What quest generation may ask about the world (a service of the quest layer).

    Grounders, objective builders and archetypes read entities, rooms, living state
    and items only through it, so every quest is built from what is really there.
    A rules layer adds its own judgement through the hooks below (what is alive,
    where items come from, how hard a threat is).
    """

    engine: FactsHost
    """The world, its services, game time and the seeded random source."""

    def __init__(self, engine: FactsHost) -> None:
        self.engine = engine
        self.alive_checks: list[AliveCheck] = []
        """``(entity) -> bool`` checks that all must pass for ``is_alive`` (a rules
        layer's: not dead)."""
        self.challenge: ChallengeRating = NEUTRAL_CHALLENGE
        """The rules layer's rating of characters and threats against difficulty
        tiers; the neutral default fits every tier and rates no threat."""
        self.item_sources: list[ItemSource] = []
        """``(template) -> bool``: a rules layer can supply that item (a shop sells
        it, a monster drops it), for ``item_obtainable``."""
        self.item_returns: list[ItemSource] = []
        """``(template) -> bool``: none can be had now, but the rules layer will
        supply it again (the only monster that drops it is dead and due to respawn).
        An offered quest asking for it still stands (``item_obtainable``); a new
        fetch or delivery is not built for it (the builders ask ``item_supplied``)."""
        self.item_droppers: list[ItemDroppers] = []
        """``(template) -> living entities that drop it`` (a monster's loot), for
        ``droppers_of``: a quest for an item only they have is a fight with them."""
        self.portable_checks: list[Callable[[UUID], bool]] = []
        """``(item entity) -> bool``: a character can pick it up (a classic RPG: it
        has item stats; a sack of flour fixed to the mill's floor has not). None
        registered: the stdlib cannot tell, every item counts as portable."""
        self._init_threats()
        self.respawn_pending: list[RespawnPending] = []
        """``(template) -> bool``: the rules layer has a respawn of that NPC template
        scheduled (a classic RPG's PendingRespawn)."""
        self.respawners: list[Respawner] = []
        """``(entity) -> bool``: this NPC will be respawned when it dies."""
        self.item_claims: list[Callable[[str], int]] = []
        """``(template) -> int``: how many items of the template the open generated
        quests (and the builds in flight) already send someone to collect; a fetch
        asks only for what they leave."""
        self.authored_claims: list[AuthoredClaims] = []
        """``() -> {entity id or room key: title}``: what the hand-written quests someone
        is on use (NPCs, rooms); generated quests leave it alone."""
        #: template -> NPC entities that have (or had) it: see ``npcs_of_template``
        self._template_members: dict[str, set[UUID]] | None = None
        #: (faction, leader?) -> id as an integer -> entity that holds (or held) it;
        #: and those integers sorted: see ``faction_representatives``
        self._faction_roles: dict[tuple[str, bool], dict[int, UUID]] | None = None
        self._faction_order: dict[tuple[str, bool], list[int]] = {}
        #: (the WorldService's names and the area names they were made of,
        #: ``room_names``, ``place_names``)
        self._names: tuple[object, tuple[str, ...], list[tuple[str, str]], str] | None = None

    # -- plumbing ---------------------------------------------------------------------
    @property
    def ws(self) -> WorldService:
        """The world index (rooms, positions, paths)."""
        return self.engine.services.get(WorldService)

    @property
    def living(self) -> LivingWorld | None:
        """The living world, when it is loaded."""
        return self.engine.services.try_get(LivingWorld)

    @property
    def now(self) -> float:
        """Game seconds now."""
        return self.engine.clock.game_time

    @property
    def rng(self) -> random.Random:
        """The engine's seeded random source."""
        return self.engine.random

    def new_uuid(self) -> UUID:
        """A UUID from the engine's seeded random source (reproducible runs)."""
        return UUID(int=self.rng.getrandbits(128), version=4)

    def claimed_by_authored(self, *refs: UUID | str | None) -> tuple[UUID | str, str] | None:
        """The first of ``refs`` (NPCs, room keys) an active hand-written quest uses,
        with that quest's title; None when none is. Generated quests never reference
        them: they would contradict or spoil a story someone is in the middle of."""
        wanted = [r for r in refs if r is not None]
        if not wanted or not self.authored_claims:
            return None
        # A later hook's title wins over an earlier one's for the same reference.
        claims = [hook() for hook in reversed(self.authored_claims)]
        for ref in wanted:
            for claimed in claims:
                if ref in claimed:
                    return ref, claimed[ref]
        return None

    # -- entities ---------------------------------------------------------------------
    def exists(self, entity: UUID | None) -> bool:
        """Whether ``entity`` is an entity of the world."""
        return entity is not None and self.engine.world.entity_exists(entity)

    def is_alive(self, entity: UUID | None) -> bool:
        """Whether it exists and every alive check (a rules layer's: not dead) agrees."""
        return self.exists(entity) and all(check(entity) for check in self.alive_checks)  # type: ignore[arg-type]

    def is_npc(self, entity: UUID) -> bool:
        """Whether it is an NPC."""
        return self.engine.world.has_component(entity, NPC)

    def name(self, entity: UUID | None) -> str:
        """Its name ("Gundrik", "a bandit scout"); "" for None."""
        if entity is None:
            return ""
        desc = self.engine.world.try_component(entity, Describable)
        if desc is not None and desc.name:
            return desc.name
        living = self.living
        return living.name_of(entity) if living is not None else str(entity)

    def pronouns(self, entity: UUID | None) -> Pronouns:
        """How text refers back to it ("she", "her"): its data's, else "they"."""
        desc = self.engine.world.try_component(entity, Describable) if entity else None
        return pronouns(desc.pronouns if desc is not None else None)

    def short(self, entity: UUID) -> str:
        """The line it shows in a room."""
        desc = self.engine.world.try_component(entity, Describable)
        return desc.short if desc is not None else ""

    def template(self, entity: UUID) -> str | None:
        """The data entry it was made from ("ironvale:bandit_scout"), if any."""
        world = self.engine.world
        npc = world.try_component(entity, NPC)
        if npc is not None and npc.template:
            return npc.template
        item = world.try_component(entity, Item)
        return item.template if item is not None and item.template else None

    def kind_available(self, template: str | None, dying: UUID | None = None) -> bool:
        """Is an NPC of ``template`` alive, or is one really due to respawn?

        ``dying``: an NPC of that kind being killed right now (it still counts if
        the rules layer will respawn it, even before the respawn is scheduled).
        """
        if not template:
            return False
        for uid in self.npcs_of_template(template):
            if uid != dying and self.is_alive(uid):
                return True
        if any(pending(template) for pending in self.respawn_pending):
            return True
        return (
            dying is not None
            and self.exists(dying)
            and any(respawns(dying) for respawns in self.respawners)
        )

    def warm(self) -> None:
        """Build the indexes the pipeline keeps (NPCs by template, faction members
        by role, the names of every place) now, at start-up, rather than in the
        first tick that asks (milliseconds in a big world)."""
        self.npcs_of_template("")
        self._role_holders("", False)
        self._named()

    def npcs_of_template(self, template: str) -> list[UUID]:
        """NPC entities of ``template``, in world order.

        The grounding monitor and quest building ask for each kill objective; a
        scan of every NPC was milliseconds in a big world, and NPCs die and respawn
        all the time there. So candidates per template are kept -- all NPCs once,
        then each NPC added since (``World.on_changed``) -- and checked on reading.
        """
        world = self.engine.world
        members = self._template_members
        if members is None:
            members = self._template_members = {}
            for uid, npc in world.each(NPC):
                members.setdefault(npc.template, set()).add(uid)
            world.on_changed(NPC, self._npc_added)
        candidates = members.get(template)
        if not candidates:
            return []
        found = [uid for uid, npc in world.each_in(NPC, candidates) if npc.template == template]
        if len(found) < len(candidates):
            candidates.intersection_update(found)  # forget the dead and the changed
        return found

    def _npc_added(self, entity: UUID, npc: NPC) -> None:
        members = self._template_members
        if members is not None:
            members.setdefault(npc.template, set()).add(entity)

    def resolve_npc(self, ref: object) -> UUID | None:
        """An existing NPC from a UUID, a UUID string, a template key or a name."""
        if isinstance(ref, UUID):
            return ref if self.exists(ref) else None
        if not isinstance(ref, str) or not ref.strip():
            return None
        text = ref.strip()
        try:
            uid = UUID(text)
        except ValueError:
            pass
        else:
            return uid if self.exists(uid) else None
        world = self.engine.world
        if ":" in text:
            found = self.npcs_of_template(text)
            if found:
                return found[0]
        found = [u for u in world.find_by_name(text) if world.has_component(u, NPC)]
        return sorted(found)[0] if found else None

    # -- rooms --------------------------------------------------------------------------
    def room_of(self, entity: UUID | None) -> str | None:
        """The room key it is in (None: nowhere, e.g. carried)."""
        if entity is None:
            return None
        room = self.ws.room_key_of(entity)
        if room is None:
            pos = self.engine.world.try_component(entity, Position)
            room = pos.room if pos is not None and pos.room else None
        return room

    def room_exists(self, room: str | None) -> bool:
        """Whether ``room`` is a room of the world."""
        return room is not None and self.ws.has_room(room)

    def room_name(self, room: str | None) -> str:
        """The room's name (its key when it has none)."""
        found = self.ws.room(room) if room else None
        return found.name if found is not None and found.name else (room or "")

    def room_names(self) -> list[tuple[str, str]]:
        """(room key, ``room_name``) of every room, in the world index's order: the
        same list while the WorldService's names are the same (do not change it)."""
        return self._named()[2]

    def place_names(self) -> str:
        """The names of every room and area, in one text (" | " between them): a
        name mentioned in a quest's text is a place when it is part of this."""
        return self._named()[3]

    def _named(self) -> tuple[object, tuple[str, ...], list[tuple[str, str]], str]:
        ws = self.ws
        names = ws.room_names()
        areas = tuple(self.area_name(a) for a in ws.area_keys())
        cached = self._names
        if cached is None or cached[0] is not names or cached[1] != areas:
            pairs = [(room, name or room) for room, name in names]
            text = " | ".join([*(name for _, name in pairs), *(a for a in areas if a)])
            cached = self._names = (names, areas, pairs, text)
        return cached

    def place(self, room: str | None) -> str:
        """The room as it reads in a sentence ("the Broken Wagon on the Old Trade Road")."""
        return place_phrase(self.room_name(room), self.area_name(self.area_of(room)))

    def area_of(self, room: str | None) -> str | None:
        """The area key of a room."""
        return self.ws.area_of(room) if room else None

    def area_name(self, area: str | None) -> str:
        """The area's name (its key when it has none)."""
        found = self.ws.area(area) if area else None
        return found.name if found is not None and found.name else (area or "")

    def region_of(self, room: str | None) -> str | None:
        """The region of a room (quest density is limited per region)."""
        return self.ws.region_of(room) if room else None

    def rooms_of_area(self, area: str) -> list[str]:
        """Room keys of an area."""
        return self.ws.rooms_of_area(area)

    def reachable(self, from_room: str | None, to_room: str | None) -> bool:
        """Whether a player can walk from one room to the other."""
        if from_room is None or to_room is None:
            return False
        return self.ws.is_reachable(from_room, to_room)

    def distance(
        self, from_room: str | None, to_room: str | None, limit: int | None = None
    ) -> int | None:
        """Rooms walked from one room to another (None: no way or, with ``limit``,
        farther than ``limit`` rooms: a bounded search)."""
        if from_room is None or to_room is None:
            return None
        return self.ws.distance(from_room, to_room, limit)

    def resolve_place(self, ref: object) -> list[str]:
        """Room keys a reference names: one room (room key, room entity id, room
        name) or every room of an area (area key, area entity id, area name)."""
        ws = self.ws
        if isinstance(ref, list | tuple | set):
            out: list[str] = []
            for item in ref:
                out.extend(r for r in self.resolve_place(item) if r not in out)
            return out
        if isinstance(ref, str):
            text = ref.strip()
            if not text:
                return []
            if ws.has_room(text):
                return [text]
            try:
                ref = UUID(text)
            except ValueError:
                pass
        if isinstance(ref, UUID):
            room = self.engine.world.try_component(ref, Room)
            if room is not None:
                return [room.key] if ws.has_room(room.key) else []
            area = self.engine.world.try_component(ref, Area)
            return self.rooms_of_area(area.key) if area is not None else []
        if not isinstance(ref, str):
            return []
        wanted = text.casefold()
        for area_key in ws.area_keys():
            if text in (area_key, area_key.split(":")[-1]) or (
                self.area_name(area_key).casefold() == wanted
            ):
                return self.rooms_of_area(area_key)
        for key, name in self.room_names():
            if name.casefold() == wanted or key.split(":")[-1] == text:
                return [key]
        return []

    def resolve_room(self, ref: object) -> str | None:
        """A room key from any place reference (an area means its first room)."""
        rooms = self.resolve_place(ref)
        return rooms[0] if rooms else None

    # -- living state -------------------------------------------------------------------
    def needs(self, npc: UUID) -> dict[str, NeedState]:
        """The NPC's needs by name (a copy)."""
        comp = self.engine.world.try_component(npc, NeedsComponent)
        return dict(comp.needs) if comp is not None else {}

    def open_goals(self, npc: UUID) -> list[Goal]:
        """The NPC's goals not yet completed or failed."""
        comp = self.engine.world.try_component(npc, GoalsComponent)
        return comp.open_goals() if comp is not None else []

    def goal(self, npc: UUID, goal_id: str) -> Goal | None:
        """One goal of the NPC by id."""
        comp = self.engine.world.try_component(npc, GoalsComponent)
        return comp.get(goal_id) if comp is not None else None

    def find_goal(self, npc: UUID, ref: str | None) -> Goal | None:
        """An open goal by id, or the one whose description/target shares words with ``ref``."""
        goals = self.open_goals(npc)
        if ref:
            for goal in goals:
                if goal.id == ref:
                    return goal
            wanted = topic_tokens(ref)
            scored = [(len(wanted & topic_tokens(g.description, g.target, g.id)), g) for g in goals]
            scored = [(s, g) for s, g in scored if s > 0]
            if scored:
                return max(scored, key=lambda sg: (sg[0], sg[1].priority))[1]
            return None
        blocked = [g for g in goals if g.status == "blocked"]
        pool = blocked or goals
        return max(pool, key=lambda g: g.priority) if pool else None

    def relationship(self, source: UUID, target: UUID) -> Relationship | None:
        """How ``source`` regards ``target`` (None: no relationship is modelled)."""
        rels = self.engine.world.try_component(source, Relationships)
        return rels.entries.get(str(target)) if rels is not None else None

    def at_odds(self, a: UUID, b: UUID) -> bool:
        """Either of ``a`` and ``b`` distrusts or dislikes the other, or calls them a
        rival or an enemy."""
        for x, y in ((a, b), (b, a)):
            rel = self.relationship(x, y)
            if rel is None:
                continue
            if rel.trust < 0 or rel.affinity < 0 or rel.kind in HOSTILE_KINDS:
                return True
        return False

    def trust(self, source: UUID, target: UUID) -> float | None:
        """How much ``source`` trusts ``target`` (None: no relationship)."""
        rel = self.relationship(source, target)
        return rel.trust if rel is not None else None

    def wealth(self, npc: UUID) -> int | None:
        """Coin the NPC can spend; None when its wealth is not modelled."""
        comp = self.engine.world.try_component(npc, Wealth)
        return comp.gold if comp is not None else None

    def factions(self, entity: UUID) -> dict[str, str]:
        """Faction key -> role of the entity."""
        comp = self.engine.world.try_component(entity, FactionMembership)
        return dict(comp.factions) if comp is not None else {}

    def faction_name(self, faction: str) -> str:
        """A faction's name as players read it."""
        living = self.living
        return living.source_name(faction) if living is not None else faction.replace("_", " ")

    def faction_representative(self, faction: str) -> UUID | None:
        """A living NPC of ``faction``: its leader if it has one (the lowest id
        among its living leaders, else among its living members)."""
        return self.faction_representatives(faction)[faction]

    def faction_representatives(self, *factions: str) -> dict[str, UUID | None]:
        """``faction_representative`` of each of ``factions``.

        A faction may count thousands of members; walking every membership for
        each question was 4-40 ms a faction at 10,000 NPCs, in one tick. Members
        are kept per faction and role instead -- all of them once, then everyone
        who joins or changes role since (``World.on_changed``) -- in id order,
        and checked on reading: the first that still holds the role and is a
        living NPC is the answer, usually the first asked."""
        return {faction: self._representative(faction) for faction in factions}

    def _representative(self, faction: str) -> UUID | None:
        world = self.engine.world
        for leader in (True, False):
            members, order = self._role_holders(faction, leader)
            gone: list[int] = []
            found: UUID | None = None
            for number in order:
                uid = members[number]
                membership = world.try_component(uid, FactionMembership)
                role = membership.factions.get(faction) if membership is not None else None
                if role is None or (role == "leader") != leader:
                    gone.append(number)  # left the faction, changed role, destroyed
                elif self.is_npc(uid) and self.is_alive(uid):
                    found = uid
                    break
            for number in gone:
                del members[number]
                del order[bisect_left(order, number)]
            if found is not None:
                return found
        return None

    def _role_holders(self, faction: str, leader: bool) -> tuple[dict[int, UUID], list[int]]:
        """Who joined ``faction`` as a leader (or not), by id as an integer, and
        those integers in order."""
        roles = self._faction_roles
        if roles is None:
            roles = self._faction_roles = {}
            world = self.engine.world
            for uid, membership in world.each(FactionMembership):
                self._joined(uid, membership)
            world.on_changed(FactionMembership, self._joined)
        key = (faction, leader)
        members = roles.get(key)
        if members is None:
            return {}, []
        order = self._faction_order.get(key)
        if order is None:
            order = self._faction_order[key] = sorted(members)
        return members, order

    def _joined(self, entity: UUID, membership: FactionMembership) -> None:
        roles = self._faction_roles
        if roles is None:
            return
        number = entity.int
        for faction, role in membership.factions.items():
            key = (faction, role == "leader")
            members = roles.get(key)
            if members is None:
                members = roles[key] = {}
            if number not in members:
                members[number] = entity
                order = self._faction_order.get(key)
                if order is not None:
                    insort(order, number)

    def public_memories(self, npc: UUID, limit: int = 5) -> list[EpisodicMemory]:
        """The NPC's newest PUBLIC memories; private ones never reach a quest."""
        living = self.living
        if living is None:
            return []
        return living.memory.get_recent(npc, limit=limit, visibility_filter=MemoryVisibility.PUBLIC)

    def knowledge(self, npc: UUID, topics: set[str], rooms: set[str] | None = None) -> float:
        """How much ``npc`` knows about a topic: public memories and gossip that
        mention it, and whether it watches the rooms (a guard's patrol reports)."""
        score = 0.0
        if topics:
            for memory in self.public_memories(npc, limit=20):
                if topics & topic_tokens(memory.content):
                    score += 1.0
            known = self.engine.world.try_component(npc, KnownGossip)
            if known is not None:
                for item in known.items.values():
                    if topics & topic_tokens(item.content, item.subject):
                        score += 0.5 * item.confidence
        if rooms:
            watched = self.engine.world.try_component(npc, WatchedRooms)
            if watched is not None and rooms & set(watched.rooms):
                score += 2.0
        return score

    def heard(self, npc: UUID, topics: set[str]) -> str | None:
        """The gossip ``npc`` holds on the topics that it is surest of (its words as
        it passes them on), or None."""
        known = self.engine.world.try_component(npc, KnownGossip) if topics else None
        if known is None:
            return None
        matching = [
            item
            for item in known.items.values()
            if item.content.strip() and topics & topic_tokens(item.content, item.subject)
        ]
        if not matching:
            return None
        best = max(matching, key=lambda item: item.confidence)
        return best.content.strip()

    def npcs_in_region(self, region: str | None) -> list[UUID]:
        """Living NPCs in a region (every region for None), sorted."""
        out = []
        for uid, _npc in self.engine.world.each(NPC):
            if not self.is_alive(uid):
                continue
            if region is None or self.region_of(self.room_of(uid)) == region:
                out.append(uid)
        return sorted(out)

    # -- items ------------------------------------------------------------------------------
    def items_with_template(self, template: str) -> list[UUID]:
        """Item entities made from an item template."""
        return [
            uid
            for uid, item in self.engine.world.each(Item)
            if item.template == template and self.exists(uid)
        ]

    def item_portable(self, item: UUID) -> bool:
        """Whether a character can pick ``item`` up (every ``portable_checks`` says so)."""
        return all(check(item) for check in self.portable_checks)

    def items_lying(self, template: str) -> list[UUID]:
        """Items of the template lying in a room that a character can pick up: what
        a hero can come by there. One an NPC holds (ore brought to the smith for an
        earlier quest) is not to be had, though it still exists."""
        return [
            uid
            for uid in self.items_with_template(template)
            if self.room_of(uid) is not None and self.item_portable(uid)
        ]

    def items_to_spare(self, template: str) -> int:
        """Items of the template lying about that no open quest already sends
        someone to collect. Counts a claim until its quest closes, even once its
        item is taken: too few rather than two quests racing for one lump."""
        claimed = sum(claim(template) for claim in self.item_claims)
        return max(0, len(self.items_lying(template)) - claimed)

    def item_supplied(self, template: str) -> bool:
        """A rules layer can supply the item (sold, dropped) whatever lies about."""
        return any(source(template) for source in self.item_sources)

    def item_obtainable(self, template: str | None) -> bool:
        """A portable item lying in a room somewhere, or one a rules layer can
        supply (sold, dropped) now or once a dropper respawns: what a fetch or
        delivery may ask for."""
        if not template:
            return False
        if self.items_lying(template) or self.item_supplied(template):
            return True
        return any(returns(template) for returns in self.item_returns)

    def droppers_of(self, template: str) -> list[UUID]:
        """The living entities a rules layer says drop ``template``."""
        return [uid for source in self.item_droppers for uid in source(template)]

    def item_room(self, template: str) -> str | None:
        """A room where an item of the template lies, if one does."""
        for uid in self.items_with_template(template):
            room = self.room_of(uid)
            if room is not None:
                return room
        return None

    def item_name(self, template: str) -> str:
        """The name of an item of the template: one in the world, else the one its
        data gives (loot nobody has dropped yet), else one made from its key."""
        for uid in self.items_with_template(template):
            name = self.name(uid)
            if name:
                return name
        data = self.engine.services.try_get(WorldData)
        entry = data.template(template, "item") if data is not None else None
        if entry is not None and isinstance(entry.spec, ThingSpec) and entry.spec.name:
            return entry.spec.name
        return template.split(":")[-1].replace("_", " ")
