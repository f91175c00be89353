"""The built-in mutation kinds, one per consequence type, and their registry.

All writes go through :mod:`maid_stdlib.living.api` (bounded, marks entities
dirty) or the gossip and memory services, never by poking components directly.
Packs may register more kinds (``MutationKinds.register``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar
from uuid import UUID

from maid_engine.ecs import Component
from maid_stdlib.consequences.mutations import (
    WORLD_FLAGS_ID,
    Applied,
    MutationEnv,
    MutationKind,
    WorldFlags,
    WorldMutation,
)
from maid_stdlib.living import api, gossip
from maid_stdlib.living.components import (
    FactionStandings,
    GoalsComponent,
    GoalStatus,
    NeedsComponent,
    Relationships,
    SocialInfluence,
    Wealth,
)
from maid_stdlib.living.events import GoalStatusChangedEvent
from maid_stdlib.living.memory import EmotionalValence, EpisodicMemory, MemoryVisibility

__all__ = ["MutationKinds"]


def _npc(m: WorldMutation) -> UUID:
    if m.target_entity is None:
        raise ValueError(f"{m.mutation_type} needs a target entity")
    return m.target_entity


class RelationshipChange(MutationKind):
    """How ``target_entity`` sees the character named by ``target_key`` (trust)."""

    name = "relationship_change"
    bounds = (-1.0, 1.0)

    def read(self, env: MutationEnv, m: WorldMutation) -> float | None:
        rel = api.get_relationship(env.world, _npc(m), UUID(str(m.target_key)))
        return rel.trust if rel is not None else 0.0

    def check(self, env: MutationEnv, m: WorldMutation) -> str | None:
        try:
            UUID(str(m.target_key))
        except ValueError:
            return f"relationship_change of {m.target_entity}: {m.target_key!r} is not an entity"
        return None

    def components(self, m: WorldMutation) -> list[tuple[UUID, type[Component]]]:
        return [(_npc(m), Relationships)]

    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        api.adjust_relationship(
            env.world, _npc(m), UUID(str(m.target_key)), trust=m.delta or 0.0, now=env.now
        )
        return None


class FactionStanding(MutationKind):
    """How faction ``target_key`` regards ``target_entity`` (the character)."""

    name = "faction_standing"
    bounds = (-1.0, 1.0)

    def read(self, env: MutationEnv, m: WorldMutation) -> float | None:
        return api.get_faction_standing(env.world, _npc(m), str(m.target_key))

    def components(self, m: WorldMutation) -> list[tuple[UUID, type[Component]]]:
        return [(_npc(m), FactionStandings)]

    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        api.adjust_faction_standing(env.world, _npc(m), str(m.target_key), m.delta or 0.0)
        return None


class NeedSatisfy(MutationKind):
    """Need ``target_key`` of the NPC (None: the need behind its primary goal)."""

    name = "npc_need_satisfy"
    bounds = (0.0, 1.0)

    def read(self, env: MutationEnv, m: WorldMutation) -> float | None:
        need = m.target_key or api.default_need(env.world, _npc(m))
        return None if need is None else api.get_need_value(env.world, _npc(m), need)

    def check(self, env: MutationEnv, m: WorldMutation) -> str | None:
        if self.read(env, m) is None:
            return f"{m.target_entity} has no need {m.target_key!r}"
        return None

    def components(self, m: WorldMutation) -> list[tuple[UUID, type[Component]]]:
        return [(_npc(m), NeedsComponent)]

    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        api.satisfy_need(env.world, _npc(m), m.delta or 0.0, m.target_key)
        return None


def _goal_status(env: MutationEnv, m: WorldMutation) -> str | None:
    goals = env.world.try_component(_npc(m), GoalsComponent)
    goal = None
    if goals is not None:
        goal = goals.get(m.target_key) if m.target_key else goals.primary()
    return None if goal is None else goal.status


class GoalAdvance(MutationKind):
    """Progress of goal ``target_key`` (None: the NPC's primary goal), in [0, 1]."""

    name = "npc_goal_advance"
    bounds: ClassVar[tuple[float, float] | None] = (0.0, 1.0)

    def read(self, env: MutationEnv, m: WorldMutation) -> float | None:
        goals = env.world.try_component(_npc(m), GoalsComponent)
        goal = None
        if goals is not None:
            goal = goals.get(m.target_key) if m.target_key else goals.primary()
        return None if goal is None else goal.progress

    def check(self, env: MutationEnv, m: WorldMutation) -> str | None:
        if self.read(env, m) is None:
            return f"{m.target_entity} has no goal {m.target_key!r}"
        return None

    def components(self, m: WorldMutation) -> list[tuple[UUID, type[Component]]]:
        # Reaching 1.0 completes the goal, which restores its need.
        return [(_npc(m), GoalsComponent), (_npc(m), NeedsComponent)]

    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        before = _goal_status(env, m)
        goal = api.advance_goal(env.world, _npc(m), m.delta or 0.0, m.target_key, env.now)
        if goal is not None and before != goal.status:
            return Applied(
                events=[GoalStatusChangedEvent(_npc(m), goal.id, before or "", goal.status)]
            )
        return None


class GoalComplete(GoalAdvance):
    name = "npc_goal_complete"
    bounds = None
    merge = "once"

    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        before = _goal_status(env, m)
        goal = api.complete_goal(env.world, _npc(m), m.target_key, env.now)
        if goal is not None and before in GoalStatus.OPEN:
            return Applied(
                events=[GoalStatusChangedEvent(_npc(m), goal.id, before or "", goal.status)]
            )
        return None


class EconomicChange(MutationKind):
    """Coin into (or out of) ``target_entity``'s purse; a purse cannot go below 0."""

    name = "economic_change"
    bounds = (0.0, float("inf"))

    def read(self, env: MutationEnv, m: WorldMutation) -> float | None:
        return float(api.wealth_of(env.world, _npc(m)))

    def components(self, m: WorldMutation) -> list[tuple[UUID, type[Component]]]:
        return [(_npc(m), Wealth)]

    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        api.adjust_wealth(env.world, _npc(m), round(m.delta or 0.0))
        return None


class SocialInfluenceChange(MutationKind):
    name = "social_influence"
    bounds = (0.0, 1.0)

    def read(self, env: MutationEnv, m: WorldMutation) -> float | None:
        return api.get_influence(env.world, _npc(m))

    def components(self, m: WorldMutation) -> list[tuple[UUID, type[Component]]]:
        return [(_npc(m), SocialInfluence)]

    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        api.adjust_influence(env.world, _npc(m), m.delta or 0.0)
        return None


def _uuids(values: Iterable[Any]) -> list[UUID]:
    return [v if isinstance(v, UUID) else UUID(str(v)) for v in values]


class GossipInjection(MutationKind):
    """Generated gossip told to ``payload["tellers"]``; confidence capped at 0.9."""

    name = "gossip_injection"
    merge = "keep"

    def entities(self, m: WorldMutation) -> list[UUID]:
        return _uuids(m.payload.get("tellers") or [])

    def check(self, env: MutationEnv, m: WorldMutation) -> str | None:
        if not m.payload.get("tellers"):
            return "gossip needs someone to tell it"
        if not str(m.payload.get("content") or "").strip():
            return "gossip needs content"
        return None

    def components(self, m: WorldMutation) -> list[tuple[UUID, type[Component]]]:
        return [(t, gossip.KnownGossip) for t in self.entities(m)]

    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        p = m.payload
        gossip.inject(
            env.world,
            self.entities(m),
            str(p["statement_id"]),
            str(p["content"]),
            env.now,
            subject=str(p.get("subject") or ""),
            confidence=min(
                float(p.get("confidence", gossip.GENERATED_CONFIDENCE_CAP)),
                gossip.GENERATED_CONFIDENCE_CAP,
            ),
            tags=list(p.get("tags") or []),
            source=str(p.get("source") or ""),
            location=p.get("location"),
            doer=str(p.get("character_id") or ""),
        )
        return None


class MemoryCreation(MutationKind):
    """A memory of ``target_entity`` (public, tagged "quest" + outcome by the planner)."""

    name = "memory_creation"
    merge = "keep"

    def check(self, env: MutationEnv, m: WorldMutation) -> str | None:
        if env.living is None:
            return "no memory service (the living world is not loaded)"
        if not str(m.payload.get("content") or "").strip():
            return "a memory needs content"
        return None

    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        assert env.living is not None
        p = m.payload
        player = p.get("character_id")
        memory = env.living.memory.add(
            EpisodicMemory(
                npc_id=_npc(m),
                content=str(p["content"]),
                importance=float(p.get("importance", 0.5)),
                emotional_valence=EmotionalValence(p.get("valence", EmotionalValence.NEUTRAL)),
                emotional_intensity=float(p.get("intensity", 0.0)),
                tags=list(p.get("tags") or []),
                visibility=MemoryVisibility(p.get("visibility", MemoryVisibility.PUBLIC)),
                player_id=UUID(str(player)) if player else None,
                location=p.get("location"),
            )
        )
        memory_id = memory.id
        assert memory_id is not None
        m.payload["memory_id"] = str(memory_id)
        living = env.living

        def undo() -> None:
            living.memory.forget(memory_id)

        return Applied(undo=undo)


class WorldState(MutationKind):
    """Flag ``target_key`` set to ``payload["value"]`` on the world-flags entity."""

    name = "world_state"
    merge = "last"

    def entities(self, m: WorldMutation) -> list[UUID]:
        return []

    def check(self, env: MutationEnv, m: WorldMutation) -> str | None:
        return None if m.target_key else "a world-state change needs a key"

    def components(self, m: WorldMutation) -> list[tuple[UUID, type[Component]]]:
        return [(WORLD_FLAGS_ID, WorldFlags)]

    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        world = env.world
        flags = world.try_component(WORLD_FLAGS_ID, WorldFlags)
        if flags is None:
            flags = WorldFlags()
            if world.entity_exists(WORLD_FLAGS_ID):
                world.add_component(WORLD_FLAGS_ID, flags)
            else:
                world.create_entity(flags, entity_id=WORLD_FLAGS_ID)
        value = m.payload.get("value")
        key = str(m.target_key)
        if value is None:
            flags.flags.pop(key, None)
        else:
            flags.flags[key] = str(value)
        world.modified(WORLD_FLAGS_ID, flags)
        living = env.living
        if value != "cleared" or living is None:
            return None
        # Players cleared a threat: its faction stays away until it regroups.
        before = living.clearances.get(key)
        if living.clearances.clear(key, env.now) is None:
            return None

        def undo() -> None:
            living.clearances.forget(key)
            if before is not None:
                living.clearances.restore(before)

        return Applied(undo=undo)


class MutationKinds:
    """Registry of mutation kinds by ``mutation_type``."""

    def __init__(self, kinds: Iterable[MutationKind] = ()) -> None:
        self._kinds: dict[str, MutationKind] = {}
        for kind in kinds:
            self.register(kind)

    def register(self, kind: MutationKind, replace: bool = False) -> None:
        if not kind.name:
            raise ValueError("a mutation kind needs a name")
        if kind.name in self._kinds and not replace:
            raise ValueError(f"mutation kind {kind.name!r} is already registered")
        self._kinds[kind.name] = kind

    def get(self, name: str) -> MutationKind | None:
        return self._kinds.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self._kinds

    @classmethod
    def builtin(cls) -> MutationKinds:
        return cls(
            [
                RelationshipChange(),
                FactionStanding(),
                NeedSatisfy(),
                GoalAdvance(),
                GoalComplete(),
                EconomicChange(),
                SocialInfluenceChange(),
                GossipInjection(),
                MemoryCreation(),
                WorldState(),
            ]
        )
