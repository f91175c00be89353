"""String identifiers of the quest pipeline and the registry of seed types.

Seed types, objective patterns and narrative arcs are plain strings, not enums
because content packs add their own at runtime. The ``*s`` classes hold
the built-in constants; :class:`SeedTypeRegistry` is where a seed type must be
registered before the SeedEvaluator accepts a seed of that type.
"""

from __future__ import annotations

import enum

__all__ = [
    "BranchingPattern",
    "NarrativeArc",
    "NarrativeArcs",
    "ObjectivePattern",
    "ObjectivePatterns",
    "QuestSeedType",
    "QuestSeedTypes",
    "SeedTypeRegistry",
    "builtin_constants",
]

QuestSeedType = str
ObjectivePattern = str
NarrativeArc = str


class QuestSeedTypes:
    """Built-in seed types. Content packs extend them through SeedTypeRegistry."""

    # From conflict signals
    THREAT_RESPONSE: QuestSeedType = "threat_response"
    RIVALRY_INTERVENTION: QuestSeedType = "rivalry_intervention"
    FACTION_CONFLICT: QuestSeedType = "faction_conflict"
    RESOURCE_CRISIS: QuestSeedType = "resource_crisis"
    # From opportunity signals
    TRADE_MISSION: QuestSeedType = "trade_mission"
    ALLIANCE_QUEST: QuestSeedType = "alliance_quest"
    DISCOVERY_EXPEDITION: QuestSeedType = "discovery_expedition"
    GOAL_ASSISTANCE: QuestSeedType = "goal_assistance"
    # From drama signals
    MYSTERY: QuestSeedType = "mystery"
    JUSTICE: QuestSeedType = "justice"
    POWER_STRUGGLE: QuestSeedType = "power_struggle"
    RESCUE: QuestSeedType = "rescue"
    # Meta-seeds
    CONSEQUENCE_CHAIN: QuestSeedType = "consequence_chain"
    PLAYER_REPUTATION: QuestSeedType = "player_reputation"
    # Social & crafting seeds
    CRAFTING_REQUEST: QuestSeedType = "crafting_request"
    SOCIAL_MANIPULATION: QuestSeedType = "social_manipulation"
    COLD_CASE: QuestSeedType = "cold_case"


class ObjectivePatterns:
    """Built-in objective patterns; builders for them live on the ObjectiveBuilder."""

    FETCH: ObjectivePattern = "fetch"
    CLEAR: ObjectivePattern = "clear"
    ESCORT: ObjectivePattern = "escort"
    INVESTIGATE: ObjectivePattern = "investigate"
    DELIVER: ObjectivePattern = "deliver"
    NEGOTIATE: ObjectivePattern = "negotiate"
    CRAFT_AND_DELIVER: ObjectivePattern = "craft_and_deliver"
    MULTI_STAGE: ObjectivePattern = "multi_stage"
    CHOICE: ObjectivePattern = "choice"
    #: Carry the giver's word to an ally and bring the answer back.
    ENVOY: ObjectivePattern = "envoy"


class NarrativeArcs:
    THREE_ACT: NarrativeArc = "three_act"
    MYSTERY: NarrativeArc = "mystery"
    JOURNEY: NarrativeArc = "journey"
    DILEMMA: NarrativeArc = "dilemma"
    ESCALATION: NarrativeArc = "escalation"


class BranchingPattern(enum.StrEnum):
    LINEAR = "linear"
    BRANCHING = "branching"  # a choice point with per-option consequences
    OPEN = "open"  # parallel objectives, any order


def builtin_constants(holder: type) -> dict[str, str]:
    """``{value: CONSTANT_NAME}`` of a constants class such as QuestSeedTypes."""
    return {
        value: name
        for name, value in vars(holder).items()
        if not name.startswith("_") and isinstance(value, str)
    }


_BUILTIN_DESCRIPTIONS: dict[str, str] = {
    QuestSeedTypes.THREAT_RESPONSE: "A threat endangers people or their livelihood",
    QuestSeedTypes.RIVALRY_INTERVENTION: "Two people's rivalry is escalating",
    QuestSeedTypes.FACTION_CONFLICT: "Tension between factions",
    QuestSeedTypes.RESOURCE_CRISIS: "A resource has run short",
    QuestSeedTypes.TRADE_MISSION: "Supply and demand could be brought together",
    QuestSeedTypes.ALLIANCE_QUEST: "People could unite against a common threat",
    QuestSeedTypes.DISCOVERY_EXPEDITION: "Something was discovered and waits to be explored",
    QuestSeedTypes.GOAL_ASSISTANCE: "Someone's goal is blocked",
    QuestSeedTypes.MYSTERY: "Something happened that nobody can explain",
    QuestSeedTypes.JUSTICE: "A wrong waits to be put right",
    QuestSeedTypes.POWER_STRUGGLE: "Power is shifting between people",
    QuestSeedTypes.RESCUE: "Someone is in danger and cannot get out alone",
    QuestSeedTypes.CONSEQUENCE_CHAIN: "A quest's outcome created a new situation",
    QuestSeedTypes.PLAYER_REPUTATION: "A character's reputation opened a door",
    QuestSeedTypes.CRAFTING_REQUEST: "Someone needs something made",
    QuestSeedTypes.SOCIAL_MANIPULATION: "Feelings that are not returned",
    QuestSeedTypes.COLD_CASE: "An old wrong was never solved",
}


class SeedTypeRegistry:
    """Seed types known to the pipeline (built-ins are registered on creation)."""

    def __init__(self) -> None:
        self._types: dict[QuestSeedType, str] = {}
        #: Seed types whose signals always stand alone (never merged by the composer).
        self._alone: set[QuestSeedType] = set()
        for value, name in builtin_constants(QuestSeedTypes).items():
            self._types[value] = _BUILTIN_DESCRIPTIONS.get(value, name)

    def register(self, type_id: QuestSeedType, description: str, *, merge: bool = True) -> None:
        """Add a seed type. Re-registering with the same description is harmless.

        ``merge=False``: a signal of this type is never merged with related signals
        into a compound seed (whose type would be the cluster's most actionable
        one, perhaps a built-in): it always becomes a seed of its own type, planned
        by the archetypes that accept it.
        """
        if not isinstance(type_id, str) or not type_id.strip():
            raise ValueError("a seed type is a non-empty string")
        old = self._types.get(type_id)
        if old is not None and old != description:
            raise ValueError(f"seed type {type_id!r} is already registered ({old!r})")
        self._types[type_id] = description
        if not merge:
            self._alone.add(type_id)

    def is_builtin(self, type_id: str) -> bool:
        """Whether ``type_id`` is one of MAID's own seed types (not a pack's)."""
        return type_id in builtin_constants(QuestSeedTypes)

    def mergeable(self, type_id: str) -> bool:
        """Whether signals of ``type_id`` may be merged into a compound seed."""
        return type_id not in self._alone

    def is_registered(self, type_id: str) -> bool:
        return type_id in self._types

    def description(self, type_id: str) -> str | None:
        return self._types.get(type_id)

    def all(self) -> list[QuestSeedType]:
        return list(self._types)

    def __contains__(self, type_id: object) -> bool:
        return type_id in self._types

    def __len__(self) -> int:
        return len(self._types)
