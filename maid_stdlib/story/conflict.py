"""Built-in detectors of conflict: threats, blocked goals, scarcity, crises,
rivalries and faction tension."""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID

from maid_stdlib.living.api import FACTION_RELATIONS_ID
from maid_stdlib.living.components import (
    FactionRelations,
    GoalsComponent,
    NeedsComponent,
    Relationships,
    clamp_unit,
)
from maid_stdlib.living.facts import SupplyRoutes
from maid_stdlib.story.detectors import (
    Detection,
    DetectionContext,
    band_of,
    severity_band,
    uid_list,
)
from maid_stdlib.story.signals import StorySignalType as T

#: Trust at or below which a relationship is a rivalry; each edge crossed escalates.
RIVALRY_EDGES = (0.3, 0.5, 0.7, 0.9)
#: Faction relation at or below which factions are in tension (negated edges).
TENSION_EDGES = (0.5, 0.7, 0.9)
#: A blocked goal whose need is below this is "critical" (a new, stronger signal).
CRITICAL_NEED = 0.2


def detect_threats(ctx: DetectionContext) -> Iterator[Detection]:
    """Hostiles in an area that some NPC knows about (saw, watches, or heard of)."""
    for group in ctx.threats.groups.values():
        aware = ctx.aware_of(group.key)
        if not aware:
            continue
        count = len(group.entities)
        room = group.primary_room
        rooms = sorted(group.rooms)
        area_ref, area_name = ctx.place_ref(group.place)
        players = sorted({c for r in rooms for c in ctx.ws.characters_in(r)}, key=str)
        yield Detection(
            T.THREAT_DETECTED, group.key, min(0.9, 0.4 + 0.08 * count), aware,
            {
                "threat_source": group.source,
                "threat_source_name": group.source_name,
                "threat_location": ctx.room_ref(room),
                "threat_location_name": ctx.room_name(room),
                "threat_room_key": room,
                "threat_rooms": rooms,
                "threat_area": area_ref,
                "threat_area_name": area_name,
                "threat_count": count,
                "threat_entities": uid_list(group.entities),
                "aware_npc_names": [ctx.name(u) for u in aware],
            },
            band="1-2" if count <= 2 else "3-5" if count <= 5 else "6+",
            involved_players=players,
        )


def detect_blocked_goals(ctx: DetectionContext) -> Iterator[Detection]:
    for uid, goals in ctx.world.each(GoalsComponent):
        blocked = goals.blocked_goals()
        if not blocked:
            continue
        needs = ctx.world.try_component(uid, NeedsComponent)
        for goal in blocked:
            value = needs.value(goal.need) if needs is not None and goal.need else None
            critical = value is not None and value < CRITICAL_NEED
            room = goal.blocker_rooms[0] if goal.blocker_rooms else None
            context = {
                "blocked_goal": goal.description or goal.id,
                "blocked_goal_id": goal.id,
                "goal_type": goal.type,
                "goal_target": goal.target,
                "goal_priority": goal.priority,
                "blocker": goal.blocker,
                "blocker_key": goal.blocker_key,
                "threat_source": goal.blocker_source,
                "blocker_location": ctx.room_ref(room) if room else None,
                "blocker_location_name": ctx.room_name(room) if room else None,
                "npc_id": str(uid),
                "npc_name": ctx.name(uid),
                "need": goal.need,
                "need_value": None if value is None else round(value, 3),
                "blocked_since": goal.blocked_since,
            }
            yield Detection(
                T.GOAL_BLOCKED, f"goal_blocked:{uid}:{goal.id}:{goal.blocker_key}",
                clamp_unit(goal.priority + (0.1 if critical else 0.0)), [uid], context,
                band="critical" if critical else "strained",
            )


def detect_scarcity(ctx: DetectionContext) -> Iterator[Detection]:
    """A resource whose supply routes are cut while its dependants' need is unmet
    (the stock has run out, not merely the road closed)."""
    if not ctx.threats:
        return
    by_resource: dict[str, list[tuple[UUID, float, str, tuple[str, ...]]]] = {}
    for uid, routes in ctx.world.each(SupplyRoutes):
        needs = ctx.world.try_component(uid, NeedsComponent)
        if needs is None:
            continue
        for route in routes.routes:
            state = needs.needs.get(route.need)
            if state is None or not state.unmet:
                continue
            fact = ctx.threats.fact_for(route.rooms)
            if fact is not None:
                by_resource.setdefault(route.resource, []).append(
                    (uid, state.value, fact.description, fact.rooms)
                )
    for resource, rows in sorted(by_resource.items()):
        rows.sort(key=lambda r: (r[1], str(r[0])))
        severity = round(1.0 - sum(r[1] for r in rows) / len(rows), 3)
        npcs = [r[0] for r in rows]
        yield Detection(
            T.RESOURCE_SCARCITY, f"scarcity:{resource}", clamp_unit(0.3 + 0.6 * severity), npcs,
            {
                "resource_type": resource,
                "affected_npcs": uid_list(npcs),
                "affected_npc_names": [ctx.name(u) for u in npcs],
                "shortage_severity": severity,
                "cause": "; ".join(sorted({r[2] for r in rows})),
                "blocked_rooms": sorted({room for r in rows for room in r[3]}),
            },
            band=severity_band(severity),
        )


def detect_crises(ctx: DetectionContext) -> Iterator[Detection]:
    """Many NPCs of one area with the same need below the crisis line."""
    for rule in ctx.living.crises:
        population: dict[str, int] = {}
        affected: dict[str, list[tuple[UUID, float]]] = {}
        for uid, needs in ctx.world.each(NeedsComponent):
            value = needs.value(rule.need)
            room = ctx.ws.room_key_of(uid)
            if value is None or room is None:
                continue
            place = ctx.ws.area_of(room) or room
            population[place] = population.get(place, 0) + 1
            if value < rule.below:
                affected.setdefault(place, []).append((uid, value))
        for place, rows in sorted(affected.items()):
            if len(rows) < rule.min_npcs:
                continue
            rows.sort(key=lambda r: (r[1], str(r[0])))
            share = len(rows) / population[place]
            depth = 1.0 - (sum(v for _, v in rows) / len(rows)) / max(rule.below, 1e-9)
            severity = round(clamp_unit(0.5 * share + 0.5 * depth), 3)
            area_ref, area_name = ctx.place_ref(place)
            npcs = [u for u, _ in rows]
            yield Detection(
                T.CRISIS, f"crisis:{rule.kind}:{place}", clamp_unit(0.5 + 0.5 * severity), npcs,
                {
                    "crisis_type": rule.kind,
                    "affected_area": area_ref,
                    "affected_area_name": area_name,
                    "affected_area_key": place,
                    "severity": severity,
                    "need": rule.need,
                    "threshold": rule.below,
                    "affected_npcs": uid_list(npcs),
                    "affected_npc_names": [ctx.name(u) for u in npcs],
                },
                band=severity_band(severity),
            )


def detect_rivalries(ctx: DetectionContext) -> Iterator[Detection]:
    """Pairs whose trust sank to a rivalry edge; crossing a deeper edge escalates."""
    seen: dict[tuple[str, str], tuple[float, UUID, UUID, str, str, str]] = {}
    for uid, rels in ctx.world.each(Relationships):
        for target, rel in rels.entries.items():
            if rel.trust > -RIVALRY_EDGES[0]:
                continue
            try:
                other = UUID(target)
            except ValueError:
                continue
            if not ctx.world.entity_exists(other):
                continue
            pair = (min(str(uid), target), max(str(uid), target))
            best = seen.get(pair)
            if best is None or rel.trust < best[0]:
                seen[pair] = (rel.trust, uid, other, rel.cause, rel.kind, target)
    for pair, (trust, a, b, cause, kind, _) in sorted(seen.items()):
        back = ctx.world.try_component(b, Relationships)
        back_rel = back.entries.get(str(a)) if back is not None else None
        yield Detection(
            T.RIVALRY_ESCALATION, f"rivalry:{pair[0]}:{pair[1]}",
            clamp_unit(0.4 + 0.5 * min(1.0, -trust)),
            [u for u in (a, b) if ctx.is_npc(u)],
            {
                "npc_a": str(a),
                "npc_b": str(b),
                "npc_a_name": ctx.name(a),
                "npc_b_name": ctx.name(b),
                "cause": cause or f"{ctx.name(a)} no longer trusts {ctx.name(b)}",
                "trust_level": round(trust, 3),
                "trust_back": None if back_rel is None else round(back_rel.trust, 3),
                "relationship_type": kind or "rivalry",
            },
            band=band_of(-trust, RIVALRY_EDGES),
            involved_players=[u for u in (a, b) if not ctx.is_npc(u)],
        )


def detect_faction_tension(ctx: DetectionContext) -> Iterator[Detection]:
    ties = ctx.world.try_component(FACTION_RELATIONS_ID, FactionRelations)
    if ties is None:
        return
    for key, tie in sorted(ties.ties.items()):
        if tie.value > -TENSION_EDGES[0]:
            continue
        a, _, b = key.partition("|")
        voices = ctx.faction_voices(a) + ctx.faction_voices(b)
        yield Detection(
            T.FACTION_TENSION, f"tension:{key}", clamp_unit(0.4 + 0.5 * -tie.value), voices,
            {
                "faction_a": a,
                "faction_b": b,
                "faction_a_name": ctx.living.source_name(a),
                "faction_b_name": ctx.living.source_name(b),
                "tension_cause": tie.cause or f"{a} and {b} are at odds",
                "tension_level": round(tie.value, 3),
                "spokesmen": uid_list(voices),
            },
            band=band_of(-tie.value, TENSION_EDGES),
        )


BUILTIN = [
    ("threats", T.THREAT_DETECTED, detect_threats),
    ("blocked_goals", T.GOAL_BLOCKED, detect_blocked_goals),
    ("scarcity", T.RESOURCE_SCARCITY, detect_scarcity),
    ("crises", T.CRISIS, detect_crises),
    ("rivalries", T.RIVALRY_ESCALATION, detect_rivalries),
    ("faction_tension", T.FACTION_TENSION, detect_faction_tension),
]
