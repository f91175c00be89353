"""Applying validated living data to the world (at start-up, and to spawned NPCs).

Restart rules: data owns configuration (decay rates, thresholds, goal templates,
routes, schedules, trade goods, faction roles, relationship kinds and drift) and
refreshes it on every start; evolving state (need values, goals, trust and
affinity, standings, influence, wealth, memories, gossip) is set from data once,
the first time an entity is seeded (:class:`LivingProfile`), and persisted after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

from maid_engine.content import PackError
from maid_engine.ecs import World
from maid_engine.ports import ClockPort, ServicesPort
from maid_stdlib.living import api, gossip
from maid_stdlib.living.components import (
    Goal,
    GoalsComponent,
    GoalTemplate,
    NeedModifier,
    NeedRule,
    NeedsComponent,
    NeedState,
    Relationship,
    Relationships,
    Satisfier,
    SocialInfluence,
    Wealth,
)
from maid_stdlib.living.conditions import ConditionRegistry
from maid_stdlib.living.data import (
    GoalTemplateSpec,
    LivingData,
    NeedSpec,
    NpcSpec,
    condition_room,
    problems_error,
)
from maid_stdlib.living.facts import (
    DiscoverySite,
    Hostile,
    LivingProfile,
    Misdeed,
    Misdeeds,
    Schedule,
    ScheduleEntry,
    SupplyRoute,
    SupplyRoutes,
    TradeGoods,
    WatchedRooms,
)
from maid_stdlib.living.memory import EpisodicMemory, MemoryService
from maid_stdlib.living.presence import (
    NoticeBoard,
    PartVariant,
    PresenceLines,
    RoomParts,
    ShownLine,
    render_parts,
)
from maid_stdlib.living.registries import AmbientSettings, CrisisRule, FactionDef, Registries
from maid_stdlib.world.components import NPC, Room, data_uuid
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.schema import RoomSpec, ThingSpec
from maid_stdlib.world.service import WorldService


class SeedingHost(ServicesPort, ClockPort, Protocol):
    """The engine as seeding sees it: the world data's templates and game time."""


class LivingTarget(Protocol):
    """What applying living data uses of the living world (``LivingWorld``, which
    imports this module: typing against the service itself would close an import
    loop)."""

    @property
    def engine(self) -> SeedingHost: ...

    @property
    def world(self) -> World: ...

    @property
    def world_service(self) -> WorldService: ...

    @property
    def conditions(self) -> ConditionRegistry: ...

    @property
    def factions(self) -> dict[str, FactionDef]: ...

    @property
    def registries(self) -> Registries: ...

    @property
    def templates(self) -> dict[str, tuple[LivingData, NpcSpec]]: ...

    @property
    def memory(self) -> MemoryService: ...

    def add_faction(self, faction: FactionDef) -> None: ...

    def invalidate_threats(self) -> None: ...


def npc_index(living: LivingTarget) -> dict[str, list[UUID]]:
    """NPC template key -> its entities, the data-spawned one first."""
    index: dict[str, list[UUID]] = {}
    for uid, npc in living.world.each(NPC):
        index.setdefault(npc.template, []).append(uid)
    for template, uids in index.items():
        uids.sort(key=_data_first(template))
    return index


def _data_first(template: str) -> Callable[[UUID], tuple[bool, str]]:
    pack, _, key = template.partition(":")
    first = data_uuid(pack, "npc", key)
    return lambda u: (u != first, str(u))


#: ``first_npc(template)``: the NPC entity a reference to a template means.
FirstNpc = Callable[[str], "UUID | None"]


def first_npc_lookup(living: LivingTarget) -> FirstNpc:
    """``npc_index(living)[template][0]``, found per template when asked.

    A spawned NPC needs only the few templates its relationships, memories and
    gossip name; building the whole index for each spawn walked and sorted every
    NPC of a big world (60 ms at 10,000). The data-spawned entity, when it exists,
    is the answer at once.
    """
    world = living.world
    found: dict[str, UUID | None] = {}

    def first(template: str) -> UUID | None:
        if template in found:
            return found[template]
        pack, _, key = template.partition(":")
        uid: UUID | None = data_uuid(pack, "npc", key)
        assert uid is not None
        npc = world.try_component(uid, NPC) if world.entity_exists(uid) else None
        if npc is None or npc.template != template:
            same = [u for u, n in world.each(NPC) if n.template == template]
            uid = min(same, key=_data_first(template)) if same else None
        found[template] = uid
        return uid

    return first


@dataclass
class WorldRefs:
    """What living data may refer to, asked of the running world (:func:`live_refs`)
    or, before anything is built (``maid check-pack``), of the packs' data
    (:func:`data_refs`)."""

    has_room: Callable[[str], bool]
    #: An NPC placed in the world (relationships, memories, gossip, parts).
    has_npc: Callable[[str], bool]
    #: An NPC template (the keys of ``npcs:``; spawned later is fine).
    has_template: Callable[[str], bool]
    has_area: Callable[[str], bool]
    #: (pack, key): an item of that data key placed in the world (boards).
    has_item: Callable[[str, str], bool]


def live_refs(living: LivingTarget, index: dict[str, list[UUID]]) -> WorldRefs:
    ws = living.world_service
    templates = living.engine.services.try_get(WorldData)
    return WorldRefs(
        # A room new in a reload is in the world data before it is in the world.
        has_room=lambda full: (
            ws.has_room(full)
            or (templates is not None and templates.template(full, "room") is not None)
        ),
        has_npc=lambda full: full in index,
        has_template=lambda full: (
            full in index or (templates is not None and templates.template(full, "npc") is not None)
        ),
        has_area=lambda full: ws.area(full) is not None,
        has_item=lambda pack, ref: living.world.entity_exists(data_uuid(pack, "item", ref)),
    )


def data_refs(data: WorldData) -> WorldRefs:
    """References judged against every declared pack's data. A reference into a
    pack whose entry is broken, or one of whose files could not be read, counts as
    there: that mistake is reported once, where it is."""
    loaded = {name: data.load(name) for name in data.declared()}

    def unchecked(kind: str, full: str) -> bool:
        pack = loaded.get(full.partition(":")[0])
        return pack is not None and pack.reference_unchecked(kind, full)

    def room(full: str) -> bool:
        return any(full in p.room_keys for p in loaded.values()) or unchecked("room", full)

    def npc(full: str) -> bool:
        return data.template(full, "npc") is not None or unchecked("npc", full)

    def area(full: str) -> bool:
        return data.template(full, "area") is not None or unchecked("area", full)

    def item(pack: str, ref: str) -> bool:
        full = f"{pack}:{ref}"
        return data.template(full, "item") is not None or unchecked("item", full)

    return WorldRefs(room, npc, npc, area, item)


def check(
    living: LivingTarget,
    data: LivingData,
    index: dict[str, list[UUID]],
    refs: WorldRefs | None = None,
    factions_known: Iterable[str] = (),
) -> list[str]:
    """Every reference the data makes that the world cannot satisfy (``refs``:
    what exists; by default the running world)."""
    refs = refs or live_refs(living, index)
    spec = data.spec
    factions = set(living.factions) | set(spec.factions) | set(factions_known)
    problems: list[str] = []

    def bad(entry: str, message: str) -> None:
        problems.append(f"{data.file}: {entry}: {message}")

    def room(entry: str, where: str, ref: str) -> None:
        if not refs.has_room(data.qualify(ref)):
            bad(entry, f"{where}: unknown room {data.qualify(ref)!r}")

    def npc_known(key: str) -> bool:
        return refs.has_template(data.qualify(key))

    def condition(entry: str, where: str, cond: str | None) -> None:
        if cond is None:
            return
        if cond not in living.conditions:
            bad(
                entry,
                f"{where}: unknown condition {cond!r} "
                f"(known: {', '.join(living.conditions.names())})",
            )
        named = condition_room(cond)
        if named is not None:
            room(entry, where, named)

    for rel in spec.faction_relations:
        for f in (rel.a, rel.b):
            if f not in factions:
                bad("faction_relations", f"unknown faction {f!r}")
    for ref in spec.discoveries:
        room(f"discovery {ref!r}", "room", ref)
    for key, npc in spec.npcs.items():
        entry = f"npc {key!r}"
        if not npc_known(key):
            bad(entry, f"no NPC {data.qualify(key)!r} in the world data")
        for name, need in npc.needs.items():
            for i, mod in enumerate(need.modifiers):
                condition(entry, f"needs.{name}.modifiers[{i}].when", mod.when)
            for i, sat in enumerate(need.satisfied_by):
                condition(entry, f"needs.{name}.satisfied_by[{i}].when", sat.when)
            if need.goal is not None:
                _check_goal(need.goal, f"needs.{name}.goal", entry, condition)
        for i, goal in enumerate(npc.goals):
            _check_goal(goal, f"goals[{i}]", entry, condition)
        for target in npc.relationships:
            if not refs.has_npc(data.qualify(target)):
                bad(entry, f"relationships: no NPC {data.qualify(target)!r} in the world")
        for f in npc.factions:
            if f not in factions:
                bad(entry, f"factions: unknown faction {f!r}")
        for i, sup in enumerate(npc.supply):
            for ref in sup.route:
                room(entry, f"supply[{i}].route", ref)
        for ref in npc.watch:
            room(entry, "watch", ref)
        for i, item in enumerate(npc.schedule):
            room(entry, f"schedule[{i}].room", item.room)
        for i, mem in enumerate(npc.memories):
            if mem.location is not None:
                room(entry, f"memories[{i}].location", mem.location)
            if mem.about is not None and not refs.has_npc(data.qualify(mem.about)):
                bad(entry, f"memories[{i}].about: no NPC {data.qualify(mem.about)!r}")
        for i, gos in enumerate(npc.gossip):
            if gos.location is not None:
                room(entry, f"gossip[{i}].location", gos.location)
            if gos.about is not None and not refs.has_npc(data.qualify(gos.about)):
                bad(entry, f"gossip[{i}].about: no NPC {data.qualify(gos.about)!r}")
        for i, line in enumerate(npc.presence):
            for j, cond in enumerate(line.when):
                condition(entry, f"presence[{i}].when[{j}]", data.qualify_condition(cond))
        for i, deed in enumerate(npc.misdeeds):
            for j, cond in enumerate(deed.when):
                condition(entry, f"misdeeds[{i}].when[{j}]", data.qualify_condition(cond))
            if not refs.has_npc(data.qualify(deed.victim)):
                bad(entry, f"misdeeds[{i}].victim: no NPC {data.qualify(deed.victim)!r}")
    for ref, room_spec in spec.rooms.items():
        entry = f"room {ref!r}"
        room(entry, "room", ref)
        for name, variants in room_spec.parts.items():
            for i, v in enumerate(variants):
                if v.who is not None and not refs.has_npc(data.qualify(v.who)):
                    bad(entry, f"parts.{name}[{i}].who: no NPC {data.qualify(v.who)!r}")
                if v.when and v.who is None:
                    bad(entry, f"parts.{name}[{i}]: conditions need a 'who' (an NPC)")
                for j, cond in enumerate(v.when):
                    condition(entry, f"parts.{name}[{i}].when[{j}]", data.qualify_condition(cond))
    for ref, board in spec.boards.items():
        entry = f"board {ref!r}"
        if not refs.has_item(data.pack, ref):
            bad(entry, f"no item {data.qualify(ref)!r} placed in the world")
        if not refs.has_area(data.qualify(board.area)):
            bad(entry, f"area: no area {data.qualify(board.area)!r}")
    return problems


def _check_goal(
    goal: GoalTemplateSpec,
    where: str,
    entry: str,
    condition: Callable[[str, str, str | None], None],
) -> None:
    for i, cond in enumerate(goal.blocked_when):
        condition(entry, f"{where}.blocked_when[{i}]", cond)
    condition(entry, f"{where}.progress_when", goal.progress_when)


def apply_data(living: LivingTarget, data: LivingData) -> None:
    index = npc_index(living)
    problems = check(living, data, index)
    if problems:
        raise problems_error(data.pack, problems, data.file)
    spec = data.spec
    world = living.world
    for key, fdef in spec.factions.items():
        living.add_faction(
            FactionDef(
                key,
                fdef.name,
                fdef.hostile,
                fdef.description,
                fdef.regroup_days,
                fdef.regroup_warning_hours,
            )
        )
    for rel in spec.faction_relations:
        if api.get_faction_relation(world, rel.a, rel.b) is None:
            api.adjust_faction_relation(world, rel.a, rel.b, rel.value, rel.cause)
    if spec.ambient is not None:
        a = spec.ambient
        living.registries.ambient = AmbientSettings(a.interval, a.budget, a.window, a.greet)
    for crisis in spec.crises:
        living.registries.crises.append(
            CrisisRule(crisis.need, crisis.below, crisis.min_npcs, crisis.crisis_type)
        )
    ws = living.world_service
    for ref, disc in spec.discoveries.items():
        room_id = ws.room_id(data.qualify(ref))
        if room_id is None:
            continue
        site = world.try_component(room_id, DiscoverySite)
        if site is None:
            world.add_component(room_id, DiscoverySite(disc.type, disc.description))
        else:
            site.discovery_type, site.description = disc.type, disc.description
    _apply_places(living, data, index)
    for key, npc in spec.npcs.items():
        template = data.qualify(key)
        living.templates[template] = (data, npc)
        for uid in index.get(template, []):
            apply_npc(living, data, template, npc, uid, index)


def _apply_places(living: LivingTarget, data: LivingData, index: dict[str, list[UUID]]) -> None:
    """Rooms' state-dependent parts and notice boards (their text from the world
    data, refreshed on every start like all configuration)."""
    world = living.world
    ws = living.world_service
    worlddata = living.engine.services.try_get(WorldData)
    for ref, room_spec in data.spec.rooms.items():
        key = data.qualify(ref)
        room_id = ws.room_id(key)
        if room_id is None:
            continue
        entry = worlddata.template(key, "room") if worlddata is not None else None
        base = (
            entry.spec.description if entry is not None and isinstance(entry.spec, RoomSpec) else ""
        )
        if not base:
            current = world.try_component(room_id, Room)
            base = current.description if current is not None else ""
        parts = {}
        for name, variants in room_spec.parts.items():
            out = []
            for v in variants:
                who = index.get(data.qualify(v.who), []) if v.who else []
                out.append(
                    PartVariant(
                        v.text,
                        [data.qualify_condition(c) for c in v.when],
                        str(who[0]) if who else "",
                    )
                )
            parts[name] = out
        world.add_component(room_id, RoomParts(base, parts))
        current = world.try_component(room_id, Room)
        if current is not None:
            # Until the first refresh: each part's unconditional text.
            current.description = render_parts(base, parts, lambda v: not v.when)
    for ref, board in data.spec.boards.items():
        key = data.qualify(ref)
        uid = data_uuid(data.pack, "item", ref) if ":" not in ref else None
        if uid is None or not world.entity_exists(uid):
            continue
        entry = worlddata.template(key, "item") if worlddata is not None else None
        base = (
            entry.spec.description
            if entry is not None and isinstance(entry.spec, ThingSpec)
            else ""
        )
        world.add_component(uid, NoticeBoard(data.qualify(board.area), " ".join(base.split())))


def _template(spec: GoalTemplateSpec, data: LivingData) -> GoalTemplate:
    return GoalTemplate(
        spec.id,
        spec.type,
        spec.description,
        spec.priority,
        spec.target,
        [data.qualify_condition(c) for c in spec.blocked_when],
        data.qualify_condition(spec.progress_when) if spec.progress_when else None,
        spec.progress_rate,
        spec.completion_need_delta,
    )


def need_rule(spec: NeedSpec, data: LivingData) -> NeedRule:
    """The rule of a need spec, made once per spec and shared by every NPC seeded
    from it."""
    rule = data.need_rules.get(id(spec))
    if rule is None:
        rule = data.need_rules[id(spec)] = NeedRule(
            spec.decay,
            spec.threshold,
            tuple(
                NeedModifier(data.qualify_condition(m.when), m.decay_x, m.add)
                for m in spec.modifiers
            ),
            tuple(Satisfier(data.qualify_condition(s.when), s.rate) for s in spec.satisfied_by),
            _template(spec.goal, data) if spec.goal is not None else None,
        )
    return rule


def apply_npc(
    living: LivingTarget,
    data: LivingData,
    template: str,
    spec: NpcSpec,
    uid: UUID,
    index: dict[str, list[UUID]] | None = None,
) -> None:
    """Give one NPC entity its living components (see the module doc for restarts).
    ``index`` is :func:`npc_index` when the caller has built it already."""
    world = living.world
    now = living.engine.clock.game_time
    first_of: FirstNpc
    if index is not None:
        whole = index

        def first_in_index(template: str) -> UUID | None:
            found = whole.get(template)
            return found[0] if found else None

        first_of = first_in_index
    else:
        first_of = first_npc_lookup(living)
    profile = world.try_component(uid, LivingProfile)
    first = profile is None or not profile.seeded

    def target(ref: str) -> UUID | None:
        return first_of(data.qualify(ref))

    if spec.needs:
        old = world.try_component(uid, NeedsComponent)
        needs = {}
        for name, need in spec.needs.items():
            kept = old.needs.get(name) if old is not None and not first else None
            value = kept.value if kept is not None else need.value
            needs[name] = NeedState(value, need_rule(need, data))
        world.add_component(uid, NeedsComponent(needs))
    if first and spec.goals:
        for goal in spec.goals:
            made = Goal.from_template(_template(goal, data), goal.need, now)
            goals = world.try_component(uid, GoalsComponent)
            existing = goals.get(goal.id) if goals is not None else None
            if existing is None or not existing.is_open:
                api.add_goal(world, uid, made)
    if spec.relationships:
        rels = world.get_or_add(uid, Relationships)
        for ref, rspec in spec.relationships.items():
            other = target(ref)
            if other is None or other == uid:
                continue
            rel = rels.entries.get(str(other))
            if rel is None or first:
                rel = rels.entries[str(other)] = Relationship(rspec.trust, rspec.affinity)
            rel.kind, rel.cause, rel.drift = rspec.kind, rspec.cause, rspec.drift
        world.modified(uid, rels)
    for faction, role in spec.factions.items():
        api.join_faction(world, uid, faction, role)
    if first:
        for faction, value in spec.standings.items():
            api.adjust_faction_standing(
                world, uid, faction, value - api.get_faction_standing(world, uid, faction)
            )
    if spec.influence is not None and (first or not world.has_component(uid, SocialInfluence)):
        world.add_component(uid, SocialInfluence(spec.influence))
    if spec.wealth is not None and (first or not world.has_component(uid, Wealth)):
        world.add_component(uid, Wealth(spec.wealth))
    if spec.supply:
        world.add_component(
            uid,
            SupplyRoutes(
                [
                    SupplyRoute(s.resource, [data.qualify(r) for r in s.route], s.need, s.origin)
                    for s in spec.supply
                ]
            ),
        )
    if spec.watch:
        world.add_component(uid, WatchedRooms([data.qualify(r) for r in spec.watch]))
    if spec.schedule:
        world.add_component(
            uid,
            Schedule(
                [
                    ScheduleEntry(e.hour, data.qualify(e.room), e.activity or "")
                    for e in spec.schedule
                ]
            ),
        )
    if spec.trade is not None:
        world.add_component(uid, TradeGoods(list(spec.trade.offers), list(spec.trade.wants)))
    if spec.presence:
        world.add_component(
            uid,
            PresenceLines(
                [
                    ShownLine(
                        [data.qualify_condition(c) for c in line.when],
                        " ".join(line.short.split()) if line.short else None,
                        " ".join(line.description.split()) if line.description else None,
                        line.activity.strip() if line.activity else None,
                    )
                    for line in spec.presence
                ]
            ),
        )
    if spec.misdeeds:
        acts = []
        for deed in spec.misdeeds:
            victim = target(deed.victim)
            if victim is None or victim == uid:
                continue
            acts.append(
                Misdeed(
                    deed.act,
                    [data.qualify_condition(c) for c in deed.when],
                    str(victim),
                    " ".join(deed.content.split()),
                    deed.need or "",
                    deed.relief,
                    deed.every_days,
                    deed.importance,
                )
            )
        world.add_component(uid, Misdeeds(acts))
    if spec.hostile is not None:
        world.add_component(uid, Hostile(spec.hostile))
    hostile = spec.hostile is not None or any(
        living.factions.get(f) is not None and living.factions[f].hostile for f in spec.factions
    )
    if hostile:
        living.invalidate_threats()  # a new threat (marker or hostile faction)
    if not hostile and not world.has_component(uid, gossip.KnownGossip):
        world.add_component(uid, gossip.KnownGossip())
    if first:
        _seed_knowledge(living, data, template, spec, uid, target, now)
    world.add_component(uid, LivingProfile(template, True))


def _seed_knowledge(
    living: LivingTarget,
    data: LivingData,
    template: str,
    spec: NpcSpec,
    uid: UUID,
    target: Callable[[str], UUID | None],
    now: float,
) -> None:
    world = living.world
    for mem in spec.memories:
        subject = target(mem.about) if mem.about else None
        living.memory.add(
            EpisodicMemory(
                uid,
                mem.content,
                mem.importance,
                mem.valence,
                mem.intensity,
                list(mem.tags),
                mem.visibility,
                subject_id=subject,
                location=data.qualify(mem.location) if mem.location else None,
                # Negative for backstory older than the world: "before it all began".
                game_time=now - mem.age_hours * 3600.0,
            )
        )
    for i, gos in enumerate(spec.gossip):
        about = target(gos.about) if gos.about else None
        topic = str(about) if about is not None else gos.subject
        tags = [*gos.tags, *(["secret"] if gos.secret else [])]
        statement = gos.id or f"{template}:gossip:{i}"
        location = data.qualify(gos.location) if gos.location else None
        if gos.observed:
            gossip.observe(
                world, uid, statement, gos.content, now, subject=topic, tags=tags, location=location
            )
        else:
            gossip.inject(
                world,
                [uid],
                statement,
                gos.content,
                now,
                subject=topic,
                confidence=gos.confidence,
                tags=tags,
                source=str(uid) if gos.secret else "",
                location=location,
            )


def apply_spawned(living: LivingTarget, uid: UUID) -> bool:
    """Give an NPC spawned after start-up the living components of its template."""
    npc = living.world.try_component(uid, NPC)
    if npc is None or living.world.has_component(uid, LivingProfile):
        return False
    found = living.templates.get(npc.template)
    if found is None:
        return False
    data, spec = found
    try:
        apply_npc(living, data, npc.template, spec, uid)
    except PackError:
        raise
    return True
