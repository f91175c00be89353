"""Story signals: "something worth a story is happening" (Doc 07 -> quest seeds).

``StorySignalType`` values are plain strings (packs may add their own), like the
questgen's ``QuestSeedType``. :data:`REQUIRED_CONTEXT` is the contract between story
and quest generation: a detector emits a signal only with every required
key filled from real state. Keys that name an NPC or a room carry the entity's
UUID as a string; a ``<key>_name`` (or ``<key>_names``) next to it carries the
human-readable name.
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from maid_engine.events import Event

StorySignalTypeName = str


class StorySignalType:
    THREAT_DETECTED = "THREAT_DETECTED"
    RIVALRY_ESCALATION = "RIVALRY_ESCALATION"
    FACTION_TENSION = "FACTION_TENSION"
    RESOURCE_SCARCITY = "RESOURCE_SCARCITY"
    TRADE_OPPORTUNITY = "TRADE_OPPORTUNITY"
    ALLIANCE_FORMING = "ALLIANCE_FORMING"
    DISCOVERY = "DISCOVERY"
    GOAL_BLOCKED = "GOAL_BLOCKED"
    BETRAYAL = "BETRAYAL"
    SECRET_REVEALED = "SECRET_REVEALED"
    POWER_SHIFT = "POWER_SHIFT"
    UNREQUITED = "UNREQUITED"
    CRISIS = "CRISIS"
    THREAT_REGROUPING = "THREAT_REGROUPING"


#: Signal type -> context keys it must carry (quest generation grounds on them).
REQUIRED_CONTEXT: dict[str, tuple[str, ...]] = {
    StorySignalType.THREAT_DETECTED: ("threat_source", "threat_location"),
    StorySignalType.RIVALRY_ESCALATION: ("npc_a", "npc_b", "cause", "trust_level"),
    StorySignalType.FACTION_TENSION: ("faction_a", "faction_b", "tension_cause"),
    StorySignalType.RESOURCE_SCARCITY: ("resource_type", "affected_npcs", "shortage_severity"),
    StorySignalType.TRADE_OPPORTUNITY: ("supply_npc", "demand_npc", "item_type"),
    StorySignalType.ALLIANCE_FORMING: ("allied_npcs", "common_threat"),
    StorySignalType.DISCOVERY: ("discovery_type", "discovery_location"),
    StorySignalType.GOAL_BLOCKED: ("blocked_goal", "blocker", "npc_id"),
    StorySignalType.BETRAYAL: ("betrayer", "victim", "evidence_location"),
    StorySignalType.SECRET_REVEALED: ("secret_content", "revealer", "subject"),
    StorySignalType.POWER_SHIFT: ("rising_npc", "falling_npc", "faction"),
    StorySignalType.UNREQUITED: ("npc_a", "npc_b", "relationship_type"),
    StorySignalType.CRISIS: ("crisis_type", "affected_area", "severity"),
    StorySignalType.THREAT_REGROUPING: ("threat_source", "threat_location"),
}


def register_signal_type(signal_type: str, required: tuple[str, ...] = ()) -> None:
    """Declare a pack's own signal type and its required context keys."""
    existing = REQUIRED_CONTEXT.get(signal_type)
    if existing is not None and existing != tuple(required):
        raise ValueError(f"signal type {signal_type!r} is registered with {existing}")
    REQUIRED_CONTEXT[signal_type] = tuple(required)


def missing_context(signal_type: str, context: dict[str, Any]) -> list[str]:
    """Required keys absent or empty in ``context``."""
    return [
        k
        for k in REQUIRED_CONTEXT.get(signal_type, ())
        if context.get(k) is None or context.get(k) == "" or context.get(k) == []
    ]


@dataclass
class StorySignal:
    signal_type: str
    importance: float
    involved_npcs: list[UUID] = field(default_factory=list)
    involved_players: list[UUID] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    #: How many quests preceded this one in a consequence chain (0: detected).
    chain_depth: int = 0
    #: Stable key of the situation; the same situation is signalled once per band.
    situation_key: str = ""
    #: Severity band the signal was emitted for ("3-5", "critical", ...).
    band: str = ""
    id: UUID = field(default_factory=uuid.uuid4)
    #: Game time of detection.
    created_at: float = 0.0

    def with_reduced_importance(self, factor: float) -> StorySignal:
        """A copy with importance multiplied by ``factor`` (the seed evaluator's
        variety filter), same id and situation."""
        return dataclasses.replace(
            self, importance=self.importance * factor, context=dict(self.context)
        )

    def missing_context(self) -> list[str]:
        return missing_context(self.signal_type, self.context)

    @property
    def primary_npc(self) -> UUID | None:
        return self.involved_npcs[0] if self.involved_npcs else None


@dataclass
class StorySignalEvent(Event):
    signal: StorySignal


@dataclass
class StorySituationResolvedEvent(Event):
    """A situation that was signalled no longer holds (the bandits are gone)."""

    situation_key: str
    signal_type: str
    signal_id: UUID | None = None
