"""Bounded reads and writes of living-world state, for consequences and other layers.

Each helper clamps to its bound (needs and influence [0, 1]; trust, affinity and
faction standings [-1, 1]; wealth >= 0), marks the entity dirty, and creates the
component when a write needs it. ``project_*`` return the *unclamped* value a
change would produce, so a mutation batch can refuse an out-of-bounds change
instead of silently clamping it.
"""

from __future__ import annotations

from uuid import UUID

from maid_engine.ecs import World
from maid_stdlib.living.components import (
    FactionMembership,
    FactionRelations,
    FactionStandings,
    FactionTie,
    Goal,
    GoalsComponent,
    GoalStatus,
    NeedsComponent,
    Relationship,
    Relationships,
    SocialInfluence,
    Wealth,
    clamp_signed,
    clamp_unit,
)
from maid_stdlib.world.components import data_uuid

#: The one entity holding faction-to-faction relations.
FACTION_RELATIONS_ID = data_uuid("living", "state", "faction_relations")


# -- needs ------------------------------------------------------------------------
def get_need_value(world: World, npc: UUID, need: str) -> float | None:
    needs = world.try_component(npc, NeedsComponent)
    return None if needs is None else needs.value(need)


def default_need(world: World, npc: UUID) -> str | None:
    """The need a change without a need key means: the one behind the NPC's primary
    goal, else its lowest need."""
    needs = world.try_component(npc, NeedsComponent)
    if needs is None or not needs.needs:
        return None
    goals = world.try_component(npc, GoalsComponent)
    primary = goals.primary() if goals is not None else None
    if primary is not None and primary.need in needs.needs:
        return primary.need
    lowest = needs.lowest()
    return lowest[0] if lowest is not None else None


def project_need(world: World, npc: UUID, delta: float, need: str | None = None) -> float | None:
    name = need or default_need(world, npc)
    value = None if name is None else get_need_value(world, npc, name)
    return None if value is None else value + delta


def satisfy_need(
    world: World, npc: UUID, delta: float, need: str | None = None
) -> tuple[str, float]:
    """Change a need by ``delta`` (clamped to [0, 1]); returns (need, new value)."""
    name = need or default_need(world, npc)
    needs = world.try_component(npc, NeedsComponent)
    if name is None or needs is None or name not in needs.needs:
        raise KeyError(f"entity {npc} has no need {name!r}")
    value = needs.satisfy(name, delta)
    world.modified(npc, needs)
    return name, value


def set_need(world: World, npc: UUID, need: str, value: float) -> float:
    needs = world.get_component(npc, NeedsComponent)
    state = needs.needs[need]
    state.value = clamp_unit(value)
    world.modified(npc, needs)
    return state.value


# -- goals ------------------------------------------------------------------------
def _goal(world: World, npc: UUID, goal_id: str | None) -> tuple[GoalsComponent, Goal] | None:
    goals = world.try_component(npc, GoalsComponent)
    if goals is None:
        return None
    goal = goals.get(goal_id) if goal_id else goals.primary()
    return None if goal is None else (goals, goal)


def finish_goal(
    world: World,
    npc: UUID,
    goals: GoalsComponent,
    goal: Goal,
    now: float,
    status: str = GoalStatus.DONE,
) -> None:
    """Mark a goal finished; a DONE goal gives its need ``completion_need_delta``."""
    if not goal.is_open:
        return
    goal.status = status
    goal.blocker = goal.blocker_key = goal.blocker_source = None
    goal.blocker_rooms = []
    goal.blocked_since = None
    goal.finished_at = now
    if status == GoalStatus.DONE:
        goal.progress = 1.0
        needs = world.try_component(npc, NeedsComponent)
        if goal.need and needs is not None and goal.need in needs.needs:
            needs.satisfy(goal.need, goal.completion_need_delta)
            world.modified(npc, needs)
    goals.prune()
    world.modified(npc, goals)


def advance_goal(
    world: World, npc: UUID, delta: float, goal_id: str | None = None, now: float = 0.0
) -> Goal | None:
    """Add ``delta`` to a goal's progress (clamped to [0, 1]); reaching 1 completes
    it. ``goal_id=None`` means the NPC's primary goal."""
    found = _goal(world, npc, goal_id)
    if found is None:
        return None
    goals, goal = found
    if not goal.is_open:
        return goal
    goal.progress = clamp_unit(goal.progress + delta)
    if goal.progress >= 1.0:
        finish_goal(world, npc, goals, goal, now)
    world.modified(npc, goals)
    return goal


def complete_goal(
    world: World, npc: UUID, goal_id: str | None = None, now: float = 0.0
) -> Goal | None:
    found = _goal(world, npc, goal_id)
    if found is None:
        return None
    goals, goal = found
    finish_goal(world, npc, goals, goal, now)
    return goal


def add_goal(world: World, npc: UUID, goal: Goal) -> Goal:
    goals = world.get_or_add(npc, GoalsComponent)
    goals.add(goal)
    world.modified(npc, goals)
    return goal


# -- relationships ----------------------------------------------------------------
def get_relationship(world: World, source: UUID, target: UUID) -> Relationship | None:
    rels = world.try_component(source, Relationships)
    return None if rels is None else rels.entries.get(str(target))


def adjust_relationship(
    world: World,
    source: UUID,
    target: UUID,
    trust: float = 0.0,
    affinity: float = 0.0,
    now: float | None = None,
) -> Relationship:
    """Shift how ``source`` sees ``target`` (clamped to [-1, 1]); creates it if new."""
    rels = world.get_or_add(source, Relationships)
    rel = rels.entries.get(str(target))
    if rel is None:
        rel = rels.entries[str(target)] = Relationship()
    rel.trust = clamp_signed(rel.trust + trust)
    rel.affinity = clamp_signed(rel.affinity + affinity)
    if now is not None:
        rel.last_seen = now
    world.modified(source, rels)
    return rel


# -- factions ---------------------------------------------------------------------
def get_faction_standing(world: World, entity: UUID, faction: str) -> float:
    standings = world.try_component(entity, FactionStandings)
    return 0.0 if standings is None else standings.standings.get(faction, 0.0)


def adjust_faction_standing(world: World, entity: UUID, faction: str, delta: float) -> float:
    standings = world.get_or_add(entity, FactionStandings)
    value = clamp_signed(standings.standings.get(faction, 0.0) + delta)
    standings.standings[faction] = value
    world.modified(entity, standings)
    return value


def join_faction(world: World, entity: UUID, faction: str, role: str = "member") -> None:
    membership = world.get_or_add(entity, FactionMembership)
    membership.factions[faction] = role
    world.modified(entity, membership)  # LivingWorld keeps who is in a hostile faction


def faction_relations(world: World) -> FactionRelations:
    """The world-wide faction relations (created on first use)."""
    ties = world.try_component(FACTION_RELATIONS_ID, FactionRelations)
    if ties is None:
        ties = FactionRelations()
        if world.entity_exists(FACTION_RELATIONS_ID):
            world.add_component(FACTION_RELATIONS_ID, ties)
        else:
            world.create_entity(ties, entity_id=FACTION_RELATIONS_ID)
    return ties


def get_faction_relation(world: World, a: str, b: str) -> FactionTie | None:
    ties = world.try_component(FACTION_RELATIONS_ID, FactionRelations)
    return None if ties is None else ties.ties.get(FactionRelations.pair(a, b))


def adjust_faction_relation(
    world: World, a: str, b: str, delta: float, cause: str | None = None
) -> float:
    ties = faction_relations(world)
    key = FactionRelations.pair(a, b)
    tie = ties.ties.get(key)
    if tie is None:
        tie = ties.ties[key] = FactionTie()
    tie.value = clamp_signed(tie.value + delta)
    if cause is not None:
        tie.cause = cause
    world.modified(FACTION_RELATIONS_ID, ties)
    return tie.value


# -- influence and wealth ---------------------------------------------------------
def get_influence(world: World, entity: UUID) -> float:
    inf = world.try_component(entity, SocialInfluence)
    return 0.0 if inf is None else inf.value


def adjust_influence(world: World, entity: UUID, delta: float) -> float:
    inf = world.try_component(entity, SocialInfluence)
    if inf is None:
        inf = SocialInfluence(0.0)
        world.add_component(entity, inf)
    inf.value = clamp_unit(inf.value + delta)
    return inf.value


def wealth_of(world: World, entity: UUID) -> int:
    wealth = world.try_component(entity, Wealth)
    return 0 if wealth is None else wealth.gold


def adjust_wealth(world: World, entity: UUID, delta: int) -> int:
    wealth = world.get_or_add(entity, Wealth)
    wealth.gold = max(0, wealth.gold + delta)
    return wealth.gold
