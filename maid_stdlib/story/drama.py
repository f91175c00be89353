"""Built-in detectors of opportunity and drama: trade, alliances, discoveries,
betrayals, revealed secrets, power shifts and unrequited feelings."""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.clock import GAME_DAY
from maid_stdlib.living.api import get_relationship
from maid_stdlib.living.components import GoalsComponent, GoalType, Relationships, clamp_unit
from maid_stdlib.living.facts import DiscoverySite, TradeGoods
from maid_stdlib.story.detectors import Detection, DetectionContext, uid_list
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
#: A betrayal stays a live situation this long after it happened.
BETRAYAL_WINDOW = 7 * GAME_DAY


def _people(ctx: DetectionContext, uids: list[UUID]) -> tuple[list[UUID], list[UUID]]:
    npcs = [u for u in uids if ctx.is_npc(u)]
    players = [u for u in uids if ctx.world.has_component(u, PlayerCharacter)]
    return npcs, players


def detect_trade(ctx: DetectionContext) -> Iterator[Detection]:
    """Someone offers what someone else is trying to acquire (or wants)."""
    offers: dict[str, list[UUID]] = {}
    demand: dict[tuple[UUID, str], str | None] = {}
    for uid, goods in ctx.world.each(TradeGoods):
        for item in goods.offers:
            offers.setdefault(item, []).append(uid)
        for item in goods.wants:
            demand.setdefault((uid, item), None)
    if not offers:
        return
    for uid, goals in ctx.world.each(GoalsComponent):
        for goal in goals.open_goals():
            if goal.type == GoalType.ACQUIRE and goal.target:
                demand[(uid, goal.target)] = goal.id
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
        if not sellers:
            continue
        seller = min(sellers)[2]
        yield Detection(
            T.TRADE_OPPORTUNITY, f"trade:{seller}:{buyer}:{item}", 0.6 if goal_id else 0.45,
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


def detect_alliances(ctx: DetectionContext) -> Iterator[Detection]:
    """NPCs who trust each other and know of the same threat draw together."""
    for group in ctx.threats.groups.values():
        aware = ctx.aware_of(group.key)
        if len(aware) < 2:
            continue
        parent = {u: u for u in aware}
        # Walk each NPC's own relationships, not all pairs: linear in the aware.
        for a in aware:
            rels = ctx.world.try_component(a, Relationships)
            if rels is None:
                continue
            for target, rel in rels.entries.items():
                if rel.trust < ALLY_TRUST:
                    continue
                try:
                    b = UUID(target)
                except ValueError:
                    continue
                back = get_relationship(ctx.world, b, a) if b in parent else None
                if back is not None and back.trust >= ALLY_TRUST:
                    parent[_root(parent, b)] = _root(parent, a)
        clusters: dict[UUID, list[UUID]] = {}
        for u in aware:
            clusters.setdefault(_root(parent, u), []).append(u)
        for members in clusters.values():
            if len(members) < 2:
                continue
            members.sort(key=str)
            yield Detection(
                T.ALLIANCE_FORMING, f"alliance:{group.key}:{'+'.join(uid_list(members))}",
                0.55, members,
                {
                    "allied_npcs": uid_list(members),
                    "allied_npc_names": [ctx.name(u) for u in members],
                    "common_threat": group.source,
                    "common_threat_name": group.source_name,
                    "common_threat_key": group.key,
                    "threat_location": ctx.room_ref(group.primary_room),
                    "threat_location_name": ctx.room_name(group.primary_room),
                },
            )


def _root(parent: dict[UUID, UUID], u: UUID) -> UUID:
    while parent[u] != u:
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
            T.DISCOVERY, f"discovery:{room.key if room else room_id}", 0.6, npcs,
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


def detect_betrayals(ctx: DetectionContext) -> Iterator[Detection]:
    """A recent memory tagged "betrayal" whose subject is the betrayer."""
    for memory in sorted(ctx.memory.with_tag("betrayal"), key=lambda m: str(m.id)):
        betrayer, victim = memory.subject_id or memory.player_id, memory.npc_id
        when = memory.game_time or 0.0
        if betrayer is None or not ctx.world.entity_exists(victim):
            continue
        if ctx.now - when > BETRAYAL_WINDOW:
            continue
        place = memory.location or ctx.ws.room_key_of(victim)
        if place is None:
            continue
        npcs, players = _people(ctx, [victim, betrayer])
        yield Detection(
            T.BETRAYAL, f"betrayal:{memory.id}", clamp_unit(0.5 + 0.4 * memory.importance), npcs,
            {
                "betrayer": str(betrayer),
                "victim": str(victim),
                "betrayer_name": ctx.name(betrayer),
                "victim_name": ctx.name(victim),
                "evidence_location": ctx.room_ref(place),
                "evidence_location_name": ctx.room_name(place),
                # Private memories are the victim's own: their words stay out.
                "what_happened": memory.content if memory.is_public else None,
            },
            involved_players=players,
        )


def detect_secrets(ctx: DetectionContext) -> Iterator[Detection]:
    """A secret statement known by someone other than its keeper."""
    for statement, holders in sorted(ctx.statements.items()):
        secret = [(u, i) for u, i in holders if i.is_secret]
        if not secret:
            continue
        keeper = secret[0][1].source
        others = sorted((i.heard_at, str(u), u, i) for u, i in secret if str(u) != keeper)
        if not others:
            continue
        _, _, first, item = others[0]
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
        yield Detection(
            T.SECRET_REVEALED, f"secret:{statement}", 0.6, npcs,
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


def detect_power_shifts(ctx: DetectionContext) -> Iterator[Detection]:
    """A member outgrew the faction's leader in influence."""
    for faction, members in sorted(ctx.faction_members.items()):
        leaders = [u for u, role in members if role == "leader"]
        if not leaders:
            continue
        leader = max(leaders, key=lambda u: (ctx.influence(u), str(u)))
        bar = ctx.influence(leader) + POWER_MARGIN
        rivals = [(ctx.influence(u), str(u), u) for u, role in members if role != "leader"]
        rivals = [r for r in rivals if r[0] > bar]
        if not rivals:
            continue
        rising = max(rivals)[2]
        yield Detection(
            T.POWER_SHIFT, f"power:{faction}:{rising}:{leader}", 0.6, [rising, leader],
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


def detect_unrequited(ctx: DetectionContext) -> Iterator[Detection]:
    for uid, rels in ctx.world.each(Relationships):
        for target, rel in sorted(rels.entries.items()):
            if rel.affinity < UNREQUITED_FROM:
                continue
            try:
                other = UUID(target)
            except ValueError:
                continue
            if not ctx.world.entity_exists(other):
                continue
            back = get_relationship(ctx.world, other, uid)
            back_affinity = back.affinity if back is not None else 0.0
            if back_affinity > UNREQUITED_BACK:
                continue
            npcs, players = _people(ctx, [uid, other])
            yield Detection(
                T.UNREQUITED, f"unrequited:{uid}:{other}", 0.45, npcs,
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


BUILTIN = [
    ("trade", T.TRADE_OPPORTUNITY, detect_trade),
    ("alliances", T.ALLIANCE_FORMING, detect_alliances),
    ("discoveries", T.DISCOVERY, detect_discoveries),
    ("betrayals", T.BETRAYAL, detect_betrayals),
    ("secrets", T.SECRET_REVEALED, detect_secrets),
    ("power_shifts", T.POWER_SHIFT, detect_power_shifts),
    ("unrequited", T.UNREQUITED, detect_unrequited),
]
