"""Built-in detectors of conflict: threats, blocked goals, scarcity, crises,
rivalries and faction tension.

All of them are sliced (see :mod:`maid_stdlib.story.detectors`): they yield units
of work as they go and return their detections, in the order a whole scan gives.
"""

from __future__ import annotations

from uuid import UUID

from maid_stdlib.living.api import FACTION_RELATIONS_ID
from maid_stdlib.living.components import (
    FactionRelations,
    GoalsComponent,
    NeedsComponent,
    Relationships,
    clamp_unit,
    target_uuid,
)
from maid_stdlib.living.conditions import Fact
from maid_stdlib.living.facts import SupplyRoutes
from maid_stdlib.story.detectors import (
    DETECTION_UNITS,
    Detection,
    DetectionContext,
    Detector,
    DetectorWork,
    band_of,
    chunks,
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
_UNKNOWN = Fact("", "")


def detect_threats(ctx: DetectionContext) -> DetectorWork:
    """Hostiles in an area that some NPC knows about (saw, watches, or heard of)."""
    found: list[Detection] = []
    for group in list(ctx.threats.groups.values()):
        aware = yield from ctx.aware_of_work(group.key)
        if not aware:
            continue
        count = len(group.entities)
        room = group.primary_room
        rooms = sorted(group.rooms)
        area_ref, area_name = ctx.place_ref(group.place)
        players = sorted({c for r in rooms for c in ctx.ws.characters_in(r)}, key=str)
        aware_names = yield from ctx.names(aware)
        found.append(
            Detection(
                T.THREAT_DETECTED,
                group.key,
                min(0.9, 0.4 + 0.08 * count),
                aware,
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
                    "aware_npc_names": aware_names,
                },
                band="1-2" if count <= 2 else "3-5" if count <= 5 else "6+",
                involved_players=players,
            )
        )
        yield DETECTION_UNITS
    return found


def detect_blocked_goals(ctx: DetectionContext) -> DetectorWork:
    found: list[Detection] = []
    for chunk in ctx.scan(GoalsComponent):
        made = len(found)
        for uid, goals in chunk:
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
                found.append(
                    Detection(
                        T.GOAL_BLOCKED,
                        f"goal_blocked:{uid}:{goal.id}:{goal.blocker_key}",
                        clamp_unit(goal.priority + (0.1 if critical else 0.0)),
                        [uid],
                        context,
                        band="critical" if critical else "strained",
                    )
                )
        yield len(chunk) + DETECTION_UNITS * (len(found) - made)
    return found


def detect_scarcity(ctx: DetectionContext) -> DetectorWork:
    """A resource whose supply routes are cut while its dependants' need is unmet
    (the stock has run out, not merely the road closed)."""
    threats = ctx.threats  # one threat map for the whole pass
    if not threats:
        return []
    by_resource: dict[str, list[tuple[UUID, float, str, tuple[str, ...]]]] = {}
    # Many NPCs share a route; its fact depends only on its rooms and the map.
    facts: dict[tuple[str, ...], Fact | None] = {}
    for chunk in ctx.scan(SupplyRoutes):
        unmet = 0
        for uid, routes in chunk:
            needs = ctx.world.try_component(uid, NeedsComponent)
            if needs is None:
                continue
            for route in routes.routes:
                state = needs.needs.get(route.need)
                if state is None or not state.unmet:
                    continue
                unmet += 1
                rooms = tuple(route.rooms)
                fact = facts.get(rooms, _UNKNOWN)
                if fact is _UNKNOWN:
                    fact = facts[rooms] = threats.fact_for(route.rooms)
                if fact is not None:
                    by_resource.setdefault(route.resource, []).append(
                        (uid, state.value, fact.description, fact.rooms)
                    )
        yield 2 * len(chunk) + 2 * unmet  # needs looked up; an unmet route's fact too
    found: list[Detection] = []
    for resource, rows in sorted(by_resource.items()):
        rows.sort(key=lambda r: (r[1], str(r[0])))
        severity = round(1.0 - sum(r[1] for r in rows) / len(rows), 3)
        npcs = [r[0] for r in rows]
        names = yield from ctx.names(npcs)
        found.append(
            Detection(
                T.RESOURCE_SCARCITY,
                f"scarcity:{resource}",
                clamp_unit(0.3 + 0.6 * severity),
                npcs,
                {
                    "resource_type": resource,
                    "affected_npcs": uid_list(npcs),
                    "affected_npc_names": names,
                    "shortage_severity": severity,
                    "cause": "; ".join(sorted({r[2] for r in rows})),
                    "blocked_rooms": sorted({room for r in rows for room in r[3]}),
                },
                band=severity_band(severity),
            )
        )
        yield DETECTION_UNITS
    return found


def detect_crises(ctx: DetectionContext) -> DetectorWork:
    """Many NPCs of one area with the same need below the crisis line."""
    rules = list(ctx.living.crises)
    if not rules:
        return []
    # One scan serves every rule; the rules still report in their order.
    population: list[dict[str, int]] = [{} for _ in rules]
    affected: list[dict[str, list[tuple[UUID, float]]]] = [{} for _ in rules]
    places: dict[str, str] = {}
    room_key_of = ctx.ws.room_key_of
    indexed = list(enumerate(rules))
    for chunk in ctx.scan(NeedsComponent):
        for uid, needs in chunk:
            room = room_key_of(uid)
            if room is None:
                continue
            place = places.get(room)
            if place is None:
                place = places[room] = ctx.ws.area_of(room) or room
            for i, rule in indexed:
                state = needs.needs.get(rule.need)
                if state is None:
                    continue
                counts = population[i]
                counts[place] = counts.get(place, 0) + 1
                if state.value < rule.below:
                    affected[i].setdefault(place, []).append((uid, state.value))
        yield len(chunk) * (1 + len(rules))  # a room and a need per rule looked up
    found: list[Detection] = []
    for i, rule in enumerate(rules):
        for place, rows in sorted(affected[i].items()):
            if len(rows) < rule.min_npcs:
                continue
            rows.sort(key=lambda r: (r[1], str(r[0])))
            share = len(rows) / population[i][place]
            depth = 1.0 - (sum(v for _, v in rows) / len(rows)) / max(rule.below, 1e-9)
            severity = round(clamp_unit(0.5 * share + 0.5 * depth), 3)
            area_ref, area_name = ctx.place_ref(place)
            npcs = [u for u, _ in rows]
            names = yield from ctx.names(npcs)
            found.append(
                Detection(
                    T.CRISIS,
                    f"crisis:{rule.kind}:{place}",
                    clamp_unit(0.5 + 0.5 * severity),
                    npcs,
                    {
                        "crisis_type": rule.kind,
                        "affected_area": area_ref,
                        "affected_area_name": area_name,
                        "affected_area_key": place,
                        "severity": severity,
                        "need": rule.need,
                        "threshold": rule.below,
                        "affected_npcs": uid_list(npcs),
                        "affected_npc_names": names,
                    },
                    band=severity_band(severity),
                )
            )
            yield DETECTION_UNITS
    return found


def detect_rivalries(ctx: DetectionContext) -> DetectorWork:
    """Pairs whose trust sank to a rivalry edge; crossing a deeper edge escalates."""
    seen: dict[tuple[str, str], tuple[float, UUID, UUID, str, str, str]] = {}
    line = -RIVALRY_EDGES[0]
    for chunk in ctx.scan(Relationships):
        for uid, rels in chunk:
            # Most relationships are no rivalry: filter in a comprehension (cheaper).
            low = [(t, r) for t, r in rels.entries.items() if not r.trust > line]
            for target, rel in low:
                other = target_uuid(target)
                if other is None:
                    continue
                if not ctx.world.entity_exists(other):
                    continue
                pair = (min(str(uid), target), max(str(uid), target))
                best = seen.get(pair)
                if best is None or rel.trust < best[0]:
                    seen[pair] = (rel.trust, uid, other, rel.cause, rel.kind, target)
        yield len(chunk)
    found: list[Detection] = []
    for part in chunks(sorted(seen.items())):
        for pair, (trust, a, b, cause, kind, _) in part:
            back = ctx.world.try_component(b, Relationships)
            back_rel = back.entries.get(str(a)) if back is not None else None
            found.append(
                Detection(
                    T.RIVALRY_ESCALATION,
                    f"rivalry:{pair[0]}:{pair[1]}",
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
            )
        yield DETECTION_UNITS * len(part)
    return found


def detect_faction_tension(ctx: DetectionContext) -> DetectorWork:
    ties = ctx.world.try_component(FACTION_RELATIONS_ID, FactionRelations)
    if ties is None:
        return []
    found: list[Detection] = []
    for key, tie in sorted(ties.ties.items()):
        if tie.value > -TENSION_EDGES[0]:
            continue
        a, _, b = key.partition("|")
        voices = (yield from ctx.faction_voices_work(a)) + (yield from ctx.faction_voices_work(b))
        found.append(
            Detection(
                T.FACTION_TENSION,
                f"tension:{key}",
                clamp_unit(0.4 + 0.5 * -tie.value),
                voices,
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
        )
        yield DETECTION_UNITS
    return found


BUILTIN = [
    Detector("threats", T.THREAT_DETECTED, detect_threats, sliced=True),
    Detector("blocked_goals", T.GOAL_BLOCKED, detect_blocked_goals, sliced=True),
    Detector("scarcity", T.RESOURCE_SCARCITY, detect_scarcity, sliced=True),
    Detector("crises", T.CRISIS, detect_crises, sliced=True),
    Detector("rivalries", T.RIVALRY_ESCALATION, detect_rivalries, sliced=True),
    Detector("faction_tension", T.FACTION_TENSION, detect_faction_tension, sliced=True),
]
