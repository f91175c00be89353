"""ObjectiveBuilder: the registry of objective patterns.

A pattern ("clear", "investigate", a pack's "stealth") maps to a builder
``(seed, facts) -> list[QuestObjective]`` (sync or async) that turns the seed's
typed fields into objectives pointing at real entities and rooms. A builder
declares the seed fields it ``requires``; a seed lacking one is not offered to
it (there is no context dict to fall back on). Every built list is checked
against the world before it is returned: an objective naming a missing entity,
an unknown room or an unobtainable item voids the whole list.

The built-in builders live in :mod:`maid_stdlib.questgen.patterns`.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.patterns import BUILTIN_PATTERNS
from maid_stdlib.questgen.quest import BranchOption, QuestBranch, QuestObjective
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.types import ObjectivePattern
from maid_stdlib.questgen.vocabulary import ObjectiveType

log = logging.getLogger("maid.questgen.objectives")

__all__ = [
    "BranchOption",
    "ObjectiveBuilder",
    "ObjectivePatternBuilder",
    "ObjectiveType",
    "QuestBranch",
    "QuestObjective",
    "grounding_problems",
]

ObjectivePatternBuilder = Callable[
    [QuestSeed, WorldFacts], "list[QuestObjective] | Awaitable[list[QuestObjective]]"
]

#: Objective types whose target is a specific living NPC.
_NPC_TARGETS = (ObjectiveType.TALK, ObjectiveType.ESCORT, ObjectiveType.PROTECT)


@dataclass(frozen=True)
class _Spec:
    builder: ObjectivePatternBuilder
    requires: tuple[str, ...]


def _present(value: Any) -> bool:
    return value is not None and value != "" and value != []


class ObjectiveBuilder:
    def __init__(self, register_builtins: bool = True) -> None:
        self._builders: dict[ObjectivePattern, _Spec] = {}
        if register_builtins:
            for pattern, (builder, requires) in BUILTIN_PATTERNS.items():
                self.register(pattern, builder, requires=requires)

    def register(
        self,
        pattern: ObjectivePattern,
        builder: ObjectivePatternBuilder,
        requires: Sequence[str] = (),
        replace: bool = False,
    ) -> None:
        """Register ``builder`` for ``pattern``; ``requires`` names QuestSeed fields
        that must be set for the pattern to be tried at all."""
        if pattern in self._builders and not replace:
            raise ValueError(f"a builder for pattern {pattern!r} is already registered")
        unknown = [f for f in requires if f not in QuestSeed.__dataclass_fields__]
        if unknown:
            raise ValueError(f"not QuestSeed fields: {unknown}")
        self._builders[pattern] = _Spec(builder, tuple(requires))

    def patterns(self) -> list[ObjectivePattern]:
        return list(self._builders)

    def has(self, pattern: ObjectivePattern) -> bool:
        return pattern in self._builders

    def can_build(self, pattern: ObjectivePattern, seed: QuestSeed) -> bool:
        spec = self._builders.get(pattern)
        return spec is not None and all(_present(getattr(seed, f)) for f in spec.requires)

    async def build_objectives(
        self, seed: QuestSeed, pattern: ObjectivePattern, facts: WorldFacts
    ) -> list[QuestObjective]:
        """Grounded objectives for ``seed``; [] if the pattern cannot be grounded.

        Raises ValueError for a pattern nobody registered (a configuration error,
        not a world state).
        """
        spec = self._builders.get(pattern)
        if spec is None:
            raise ValueError(f"No builder registered for pattern {pattern!r}")
        if not self.can_build(pattern, seed):
            return []
        result = spec.builder(seed, facts)
        objectives = list(await result if inspect.isawaitable(result) else result)
        if not objectives or not all(
            isinstance(o, QuestObjective) and isinstance(o.objective_type, ObjectiveType)
            for o in objectives
        ):
            return []
        assign_ids(objectives)
        # Feasible for a player who starts at the giver: every place reachable from
        # there, every item one that can be picked up, every target alive.
        problems = grounding_problems(objectives, facts, origin=facts.room_of(seed.primary_npc))
        if problems:
            log.info("pattern %s for seed %s not feasible: %s", pattern, seed.id, problems)
            return []
        return objectives


def assign_ids(objectives: Sequence[QuestObjective], prefix: str = "o") -> None:
    """Give objectives without an id a QuestManager-valid one ("o3-kill")."""
    used = {o.id for o in objectives if o.id}
    for i, objective in enumerate(objectives, start=1):
        if objective.id:
            continue
        candidate = f"{prefix}{i}-{objective.objective_type.value}"
        n = 2
        while candidate in used:
            candidate = f"{prefix}{i}-{objective.objective_type.value}-{n}"
            n += 1
        objective.id = candidate
        used.add(candidate)


def grounding_problems(
    objectives: Sequence[QuestObjective],
    facts: WorldFacts,
    accepted: bool = False,
    origin: str | None = None,
) -> list[str]:
    """Every way the objectives fail to point at the real world ([] when grounded).

    ``accepted``: the quest is under way, so kill targets may already be dead and
    collected items picked up; both are progress, not staleness. ``origin``: the
    room the player starts from (the giver's); every objective's place and NPC must
    be reachable from it. An item to collect or deliver must be one a character can
    pick up (``WorldFacts.item_obtainable``).
    """
    problems: list[str] = []
    ids = [o.id for o in objectives]
    if len(set(ids)) != len(ids):
        problems.append("duplicate objective ids")
    for o in objectives:
        where = f"objective {o.id or o.description!r}"
        if not isinstance(o.objective_type, ObjectiveType):
            problems.append(f"{where}: {o.objective_type!r} is not a base objective type")
            continue
        if not o.description.strip() or not o.target.strip():
            problems.append(f"{where}: needs a description and a target")
        if o.quantity < 1:
            problems.append(f"{where}: quantity must be at least 1")
        if o.target_location is not None and not facts.room_exists(o.target_location):
            problems.append(f"{where}: unknown room {o.target_location!r}")
        elif (
            origin is not None
            and o.target_location is not None
            and not facts.reachable(origin, o.target_location)
        ):
            problems.append(f"{where}: {o.target_location!r} cannot be reached from {origin!r}")
        if origin is not None and o.target_entity_id is not None:
            there = facts.room_of(o.target_entity_id)
            if there is not None and not facts.reachable(origin, there):
                problems.append(f"{where}: its target is in {there!r}, out of reach")
        t = o.objective_type
        progress_may_remove = accepted and t in (ObjectiveType.KILL, ObjectiveType.COLLECT)
        # A kill objective with a template is matched by kind: a dead target is
        # not a problem while one of its kind is alive or really due to respawn.
        by_kind = t is ObjectiveType.KILL and bool(o.target_template)
        kind_ok = by_kind and facts.kind_available(o.target_template)
        for uid in [*([o.target_entity_id] if o.target_entity_id else []), *o.target_entity_ids]:
            if not progress_may_remove and not kind_ok and not facts.is_alive(uid):
                problems.append(f"{where}: entity {uid} does not exist or is dead")
        if t in _NPC_TARGETS and o.target_entity_id is None:
            problems.append(f"{where}: a {t.value} objective needs a target NPC")
        if t is ObjectiveType.KILL and not accepted:
            targets = o.target_entity_ids or ([o.target_entity_id] if o.target_entity_id else [])
            if len(targets) < o.quantity:
                problems.append(f"{where}: {o.quantity} to defeat but {len(targets)} exist")
        if t is ObjectiveType.VISIT and o.target_location is None:
            problems.append(f"{where}: a visit objective needs a room")
        if t is ObjectiveType.ESCORT and o.target_location is None:
            problems.append(f"{where}: an escort objective needs a destination")
        if t in (ObjectiveType.COLLECT, ObjectiveType.DELIVER) and not accepted:
            if not facts.item_obtainable(o.item_template):
                problems.append(
                    f"{where}: item {o.item_template!r} cannot be obtained (none lies where "
                    "it can be picked up, and none is sold or dropped)"
                )
        if t is ObjectiveType.DELIVER and o.target_entity_id is None:
            problems.append(f"{where}: a deliver objective needs a recipient")
    return problems
