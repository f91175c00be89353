"""QuestSeed: a validated, enriched story signal ready for quest construction.

Every value an objective builder reads is a typed field filled when the seed is
built; there is no free-form context dict to fall back on. Rooms are
room keys. Times are game seconds on the engine's game clock (never tick counts):
``expires_at`` is 24 game hours scaled down by urgency.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from uuid import UUID

from maid_engine.clock import GAME_HOUR
from maid_stdlib.questgen.quest import DifficultyTier
from maid_stdlib.questgen.signals import StorySignalLike
from maid_stdlib.questgen.types import QuestSeedType

__all__ = ["SEED_BASE_HOURS", "QuestSeed", "seed_expiry"]

SEED_BASE_HOURS = 24.0


def seed_expiry(created_at: float, urgency: float) -> float:
    """Game time at which a seed created at ``created_at`` decays.

    urgency 0 -> 24 game hours, 0.5 -> 14.4, 1 -> 4.8 (an imminent situation
    resolves itself, one way or another, if nobody acts soon).
    """
    urgency = min(1.0, max(0.0, urgency))
    return created_at + SEED_BASE_HOURS * (1.0 - urgency * 0.8) * GAME_HOUR


@dataclass(kw_only=True)
class QuestSeed:
    id: UUID = field(default_factory=uuid.uuid4)
    source_signals: list[StorySignalLike] = field(default_factory=list)
    seed_type: QuestSeedType
    #: Other seed types a compound seed also answers (GOAL_ASSISTANCE in the Iron Crisis).
    secondary_seed_types: list[QuestSeedType] = field(default_factory=list)
    importance: float
    urgency: float = 0.0

    # Grounding context (all from real world state)
    primary_npc: UUID
    primary_npc_motivation: str
    involved_npcs: list[UUID] = field(default_factory=list)
    involved_factions: list[str] = field(default_factory=list)
    #: Room key where the situation is centred.
    location: str
    #: Room keys affected.
    affected_area: list[str] = field(default_factory=list)

    # Typed context fields (the signal's required keys, resolved against the world)
    threat_source: str | None = None
    evidence_location: str | None = None
    subject: str | None = None
    mood: str = "neutral"
    #: Id of the giver's goal the quest serves, and what blocks it.
    blocked_goal: str | None = None
    blocker: str | None = None
    #: The two sides of a rivalry, power struggle or negotiation.
    party_a: UUID | None = None
    party_b: UUID | None = None
    faction_a: str | None = None
    faction_b: str | None = None
    #: Someone to rescue or escort, and where they must be brought.
    rescue_target: UUID | None = None
    destination: str | None = None
    #: Item template ("ironvale:iron_bar") to fetch, deliver or gather, and for whom.
    item_template: str | None = None
    recipient: UUID | None = None
    supplier: UUID | None = None
    resource_type: str | None = None
    discovery_type: str | None = None
    involved_characters: list[UUID] = field(default_factory=list)

    # Narrative context
    backstory: str
    tension: str
    stakes: str

    # Quest feasibility
    estimated_difficulty: DifficultyTier
    estimated_duration_minutes: int

    # Lifecycle (game seconds)
    created_at: float
    expires_at: float
    attempt_count: int = 0
    chain_depth: int = 0
    chain_parent_id: str | None = None

    def is_expired(self, now: float) -> bool:
        return now > self.expires_at

    @property
    def all_seed_types(self) -> list[QuestSeedType]:
        return [self.seed_type, *self.secondary_seed_types]
