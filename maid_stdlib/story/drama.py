"""Built-in detectors of opportunity and drama: trade, alliances, discoveries,
betrayals, revealed secrets, power shifts and unrequited feelings.

Those that scan many entities are sliced (see :mod:`maid_stdlib.story.detectors`);
discoveries and betrayals read small indexes and run whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.clock import GAME_DAY
from maid_stdlib.living.api import get_relationship
from maid_stdlib.living.components import (
    GoalsComponent,
    GoalType,
    Relationships,
    clamp_unit,
    target_uuid,
)
from maid_stdlib.living.facts import DiscoverySite, TradeGoods
from maid_stdlib.living.gossip import GossipItem, KnownGossip
from maid_stdlib.living.regroup import ClearedThreats
from maid_stdlib.story.detectors import (
    DETECTION_UNITS,
    SLICE,
    Detection,
    DetectionContext,
    Detector,
    DetectorWork,
    chunks,
    uid_list,
)
from maid_stdlib.story.signals import StorySignalType as T
from maid_stdlib.world.components import Room

#: Mutual trust at which two NPCs facing the same threat are allies.
ALLY_TRUST = 0.5
#: Affinity that counts as feelings, and the most the other may return for them to
#: be unrequited.
UNREQUITED_FROM = 0.6
UNREQUITED_BACK = 0.1
#: A challenger must out-influence the leader by this much.
POWER_MARGIN = 0.05
#: A betrayal stays a live situation this long after it happened ...
BETRAYAL_WINDOW = 7 * GAME_DAY
#: ... then, unanswered, it is a cold case until this long after.
COLD_CASE_WINDOW = 30 * GAME_DAY
#: A cold case matters less than a fresh wrong (still above the evaluator's 0.4).
COLD_CASE_IMPORTANCE = 0.45


def _people(ctx: DetectionContext, uids: list[UUID]) -> tuple[list[UUID], list[UUID]]:
    npcs = [u for u in uids if ctx.is_npc(u)]
    players = [u for u in uids if ctx.world.has_component(u, PlayerCharacter)]
    return npcs, players


def detect_trade(ctx: DetectionContext) -> DetectorWork:
    """Someone offers what someone else is trying to acquire (or wants)."""
    offers: dict[str, list[UUID]] = {}
    demand: dict[tuple[UUID, str], str | None] = {}
    for chunk in ctx.scan(TradeGoods):
        for uid, goods in chunk:
            for item in goods.offers:
                offers.setdefault(item, []).append(uid)
            for item in goods.wants:
                demand.setdefault((uid, item), None)
        yield len(chunk)
    if not offers:
        return []
    for goal_chunk in ctx.scan(GoalsComponent):
        for uid, goals in goal_chunk:
            for goal in goals.open_goals():
                if goal.type == GoalType.ACQUIRE and goal.target:
                    demand[(uid, goal.target)] = goal.id
        yield len(goal_chunk)
    found: list[Detection] = []
    for (buyer, item), goal_id in sorted(demand.items(), key=lambda d: (str(d[0][0]), d[0][1])):
        here = ctx.ws.room_key_of(buyer)
        sellers = []
        for seller in offers.get(item, []):
            there = ctx.ws.room_key_of(seller)
            if seller == buyer or here is None or there is None:
                continue
            if ctx.living.is_threat(seller) or not ctx.ws.is_reachable(here, there):
                continue
            rel = get_relationship(ctx.world, buyer, seller)
            sellers.append((-(rel.trust if rel else 0.0), str(seller), seller))
        yield 1 + len(offers.get(item, ()))
        if not sellers:
            continue
        seller = min(sellers)[2]
        found.append(
            Detection(
                T.TRADE_OPPORTUNITY,
                f"trade:{seller}:{buyer}:{item}",
                0.6 if goal_id else 0.45,
                [buyer, seller],
                {
                    "supply_npc": str(seller),
                    "demand_npc": str(buyer),
                    "supply_npc_name": ctx.name(seller),
                    "demand_npc_name": ctx.name(buyer),
                    "item_type": item,
                    "demand_goal": goal_id,
                },
            )
        )
        yield DETECTION_UNITS
    return found


def detect_alliances(ctx: DetectionContext) -> DetectorWork:
    """NPCs who trust each other and know of the same threat draw together."""
    found: list[Detection] = []
    for group in list(ctx.threats.groups.values()):
        aware = yield from ctx.aware_of_work(group.key)
        if len(aware) < 2:
            continue
        parent = {u: u for u in aware}
        # Walk each NPC's own relationships, not all pairs: linear in the aware.
        for part in chunks(aware):
            entries = 0
            for a in part:
                rels = ctx.world.try_component(a, Relationships)
                if rels is None:
                    continue
                entries += len(rels.entries)
                for target, rel in rels.entries.items():
                    if rel.trust < ALLY_TRUST:
                        continue
                    b = target_uuid(target)
                    if b is None:
                        continue
                    back = get_relationship(ctx.world, b, a) if b in parent else None
                    if back is not None and back.trust >= ALLY_TRUST:
                        parent[_root(parent, b)] = _root(parent, a)
            yield len(part) + entries
        clusters: dict[UUID, list[UUID]] = {}
        for part in chunks(aware):
            for u in part:
                clusters.setdefault(_root(parent, u), []).append(u)
            yield len(part)
        for members in clusters.values():
            if len(members) < 2:
                continue
            members.sort(key=str)
            names = yield from ctx.names(members)
            found.append(
                Detection(
                    T.ALLIANCE_FORMING,
                    f"alliance:{group.key}:{'+'.join(uid_list(members))}",
                    0.55,
                    members,
                    {
                        "allied_npcs": uid_list(members),
                        "allied_npc_names": names,
                        "common_threat": group.source,
                        "common_threat_name": group.source_name,
                        "common_threat_key": group.key,
                        "threat_location": ctx.room_ref(group.primary_room),
                        "threat_location_name": ctx.room_name(group.primary_room),
                    },
                )
            )
            yield DETECTION_UNITS
    return found


def _root(parent: dict[UUID, UUID], u: UUID) -> UUID:
    # Path halving: which node is a set's root stays the same, paths get short.
    while parent[u] != u:
        parent[u] = parent[parent[u]]
        u = parent[u]
    return u


def detect_discoveries(ctx: DetectionContext) -> Iterator[Detection]:
    for room_id, site in ctx.world.each(DiscoverySite):
        if site.found_by is None or site.resolved:
            continue
        room = ctx.world.try_component(room_id, Room)
        finder = UUID(site.found_by)
        npcs, players = _people(ctx, [finder])
        yield Detection(
            T.DISCOVERY,
            f"discovery:{room.key if room else room_id}",
            0.6,
            npcs,
            {
                "discovery_type": site.discovery_type,
                "discovery_location": str(room_id),
                "discovery_location_name": room.name if room else str(room_id),
                "description": site.description,
                "found_by": site.found_by,
                "found_by_name": ctx.name(finder),
            },
            involved_players=players,
        )


#: Importance of a cleared faction gathering again (the rumour is out).
REGROUPING_IMPORTANCE = 0.5


def detect_regrouping(ctx: DetectionContext) -> Iterator[Detection]:
    """A faction players drove off is gathering again: from the rumour until it is
    back (the living world's record of cleared threats)."""
    for _, record in ctx.world.each(ClearedThreats):
        for key, entry in sorted(record.threats.items()):
            if not entry.warned or entry.regroup_at is None:
                continue
            statement = f"{key}:regrouping"
            heard = sorted(
                uid for uid, known in ctx.world.each(KnownGossip) if statement in known.items
            )
            area = ctx.ws.area(entry.place)
            yield Detection(
                T.THREAT_REGROUPING,
                statement,
                REGROUPING_IMPORTANCE,
                heard[:5],
                {
                    "threat_source": entry.source,
                    "threat_source_name": ctx.living.source_name(entry.source),
                    "threat_location": entry.place,
                    "threat_location_name": area.name if area is not None else entry.place,
                    "threat_key": key,
                    "regroup_at": entry.regroup_at,
                },
            )


def detect_betrayals(ctx: DetectionContext) -> Iterator[Detection]:
    """A memory tagged "betrayal" whose subject is the betrayer: a live situation
    for ``BETRAYAL_WINDOW``, then a cold case (``cold`` in the context, a situation
    of its own) until ``COLD_CASE_WINDOW``. A wrong answered by a quest is resolved
    as a situation and not raised again."""
    for memory in sorted(ctx.memory.with_tag("betrayal"), key=lambda m: str(m.id)):
        betrayer, victim = memory.subject_id or memory.player_id, memory.npc_id
        when = memory.game_time or 0.0
        if betrayer is None or not ctx.world.entity_exists(victim):
            continue
        age = ctx.now - when
        if age > COLD_CASE_WINDOW:
            continue
        cold = age > BETRAYAL_WINDOW
        place = memory.location or ctx.ws.room_key_of(victim)
        if place is None:
            continue
        npcs, players = _people(ctx, [victim, betrayer])
        yield Detection(
            T.BETRAYAL,
            f"cold_case:{memory.id}" if cold else f"betrayal:{memory.id}",
            COLD_CASE_IMPORTANCE if cold else clamp_unit(0.5 + 0.4 * memory.importance),
            npcs,
            {
                "betrayer": str(betrayer),
                "victim": str(victim),
                "betrayer_name": ctx.name(betrayer),
                "victim_name": ctx.name(victim),
                "evidence_location": ctx.room_ref(place),
                "evidence_location_name": ctx.room_name(place),
                # Private memories are the victim's own: their words stay out.
                "what_happened": memory.content if memory.is_public else None,
                "occurred_at": when,
                "cold": cold,
            },
            involved_players=players,
        )


def detect_secrets(ctx: DetectionContext) -> DetectorWork:
    """A secret statement known by someone other than its keeper."""
    statements = yield from ctx.build_statements()
    found: list[Detection] = []
    for statement, holders in sorted(statements.items()):
        secret: list[tuple[UUID, GossipItem]] = []
        for part in chunks(holders):
            secret += [(u, i) for u, i in ctx.present(part) if i.is_secret]
            yield len(part) // 2 + 1  # a comprehension: cheaper than a visit
        if not secret:
            continue
        keeper = secret[0][1].source
        # The first outsider to hear it (the least of a sort, without the sort).
        first_heard: tuple[float, str, UUID, GossipItem] | None = None
        for share in chunks(secret):
            for u, i in share:
                if str(u) != keeper:
                    row = (i.heard_at, str(u), u, i)
                    if first_heard is None or row < first_heard:
                        first_heard = row
            yield len(share)
        if first_heard is None:
            continue
        _, _, first, item = first_heard
        revealer = UUID(item.heard_from) if item.heard_from else first
        subject = item.subject
        try:
            subject_id: UUID | None = UUID(subject)
        except ValueError:
            subject_id = None
        involved = [revealer, *([subject_id] if subject_id else [])]
        if keeper:
            involved.append(UUID(keeper))
        npcs, players = _people(ctx, list(dict.fromkeys(involved)))
        found.append(
            Detection(
                T.SECRET_REVEALED,
                f"secret:{statement}",
                0.6,
                npcs,
                {
                    "secret_content": item.content,
                    "revealer": str(revealer),
                    "revealer_name": ctx.name(revealer),
                    "subject": subject,
                    "subject_name": ctx.name(subject_id) if subject_id else subject,
                    "secret_id": statement,
                    "keeper": keeper or None,
                    "known_by": len(secret),
                },
                involved_players=players,
            )
        )
        yield DETECTION_UNITS
    return found


def detect_power_shifts(ctx: DetectionContext) -> DetectorWork:
    """A member outgrew the faction's leader in influence."""
    members_of = yield from ctx.build_faction_members()
    found: list[Detection] = []
    for faction, all_members in sorted(members_of.items()):
        members: list[tuple[UUID, str]] = []
        leaders: list[UUID] = []
        for many in chunks(all_members, 8 * SLICE):
            part = ctx.present(many)
            members += part
            leaders += [u for u, role in part if role == "leader"]
            yield len(many) // 4 + 1  # comprehensions: cheaper than visits
        if not leaders:
            continue
        leader = max(leaders, key=lambda u: (ctx.influence(u), str(u)))
        bar = ctx.influence(leader) + POWER_MARGIN
        rivals: list[tuple[float, str, UUID]] = []
        for part in chunks(members):
            for u, role in part:
                if role != "leader" and (influence := ctx.influence(u)) > bar:
                    rivals.append((influence, str(u), u))
            yield len(part)
        if not rivals:
            continue
        rising = max(rivals)[2]
        found.append(
            Detection(
                T.POWER_SHIFT,
                f"power:{faction}:{rising}:{leader}",
                0.6,
                [rising, leader],
                {
                    "rising_npc": str(rising),
                    "falling_npc": str(leader),
                    "rising_npc_name": ctx.name(rising),
                    "falling_npc_name": ctx.name(leader),
                    "faction": faction,
                    "faction_name": ctx.living.source_name(faction),
                    "rising_influence": round(ctx.influence(rising), 3),
                    "falling_influence": round(ctx.influence(leader), 3),
                },
            )
        )
        yield DETECTION_UNITS
    return found


def detect_unrequited(ctx: DetectionContext) -> DetectorWork:
    found: list[Detection] = []
    for chunk in ctx.scan(Relationships):
        made = len(found)
        for uid, rels in chunk:
            # Sorting only the fond ones keeps their order and skips most sorts.
            fond = [(t, r) for t, r in rels.entries.items() if not r.affinity < UNREQUITED_FROM]
            for target, rel in sorted(fond) if fond else ():
                other = target_uuid(target)
                if other is None:
                    continue
                if not ctx.world.entity_exists(other):
                    continue
                back = get_relationship(ctx.world, other, uid)
                back_affinity = back.affinity if back is not None else 0.0
                if back_affinity > UNREQUITED_BACK:
                    continue
                npcs, players = _people(ctx, [uid, other])
                found.append(
                    Detection(
                        T.UNREQUITED,
                        f"unrequited:{uid}:{other}",
                        0.45,
                        npcs,
                        {
                            "npc_a": str(uid),
                            "npc_b": str(other),
                            "npc_a_name": ctx.name(uid),
                            "npc_b_name": ctx.name(other),
                            "relationship_type": rel.kind or "affection",
                            "affinity_a": round(rel.affinity, 3),
                            "affinity_b": round(back_affinity, 3),
                        },
                        involved_players=players,
                    )
                )
        yield len(chunk) + DETECTION_UNITS * (len(found) - made)
    return found


BUILTIN = [
    Detector("trade", T.TRADE_OPPORTUNITY, detect_trade, sliced=True),
    Detector("alliances", T.ALLIANCE_FORMING, detect_alliances, sliced=True),
    Detector("discoveries", T.DISCOVERY, detect_discoveries),
    Detector("betrayals", T.BETRAYAL, detect_betrayals),
    Detector("regrouping", T.THREAT_REGROUPING, detect_regrouping),
    Detector("secrets", T.SECRET_REVEALED, detect_secrets, sliced=True),
    Detector("power_shifts", T.POWER_SHIFT, detect_power_shifts, sliced=True),
    Detector("unrequited", T.UNREQUITED, detect_unrequited, sliced=True),
]
