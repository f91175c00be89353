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


def seed_expiry(created_at: float, urgency: float, *, follow_up: bool = False) -> float:
    """Game time at which a seed created at ``created_at`` decays.

    urgency 0 -> 24 game hours, 0.5 -> 14.4, 1 -> 4.8 (an imminent situation
    resolves itself, one way or another, if nobody acts soon). A chain's
    ``follow_up`` keeps the full 24 hours whatever its urgency: what a finished
    quest left behind does not go away within hours, and the follow-up often
    waits out its giver's share of the rolling day (the quest just finished was
    theirs or a neighbour's), which takes up to a day.
    """
    urgency = 0.0 if follow_up else min(1.0, max(0.0, urgency))
    return created_at + SEED_BASE_HOURS * (1.0 - urgency * 0.8) * GAME_HOUR


@dataclass(kw_only=True)
class QuestSeed:
    """The grounded idea of a quest: who wants what, where, and why, all from world state.

    The composer builds seeds from story signals; a seed type's grounder fills the
    typed context fields from the signal's context; objective builders and
    archetypes read them to shape the quest. Entity fields hold entity ids, room
    fields room keys ("ironvale:smithy"), template fields data keys.
    """

    id: UUID = field(default_factory=uuid.uuid4)
    """The seed's own id."""
    source_signals: list[StorySignalLike] = field(default_factory=list)
    """The story signals it was made from (one, or several merged)."""
    seed_type: QuestSeedType
    """What kind of quest it can become (THREAT_RESPONSE, a pack's own type ...)."""
    secondary_seed_types: list[QuestSeedType] = field(default_factory=list)
    """Other seed types a compound seed also answers (GOAL_ASSISTANCE in the Iron Crisis)."""
    importance: float
    """0..1: how much the situation matters (from the detection)."""
    urgency: float = 0.0
    """0..1: how soon it must be acted on; urgent seeds expire sooner."""

    # Grounding context (all from real world state)
    primary_npc: UUID
    """The NPC who would give the quest."""
    primary_npc_motivation: str
    """Why the giver wants it done, in words ("keep the forge fed")."""
    involved_npcs: list[UUID] = field(default_factory=list)
    """Other NPCs in the situation."""
    involved_factions: list[str] = field(default_factory=list)
    """Faction keys in the situation."""
    location: str
    """Room key where the situation is centred."""
    affected_area: list[str] = field(default_factory=list)
    """Room keys affected."""

    # Typed context fields (the signal's required keys, resolved against the world)
    threat_source: str | None = None
    """What threatens (a faction key or an NPC template), for threat seeds."""
    evidence_location: str | None = None
    """Room key where evidence can be found."""
    subject: str | None = None
    """What the situation is about, when it is not a threat (a rumour, an item, a person)."""
    mood: str = "neutral"
    """The giver's mood for the prose ("neutral", "desperate" ...)."""
    blocked_goal: str | None = None
    """Id of the giver's goal the quest serves."""
    blocker: str | None = None
    """What blocks that goal."""
    party_a: UUID | None = None
    """One side of a rivalry, power struggle or negotiation."""
    party_b: UUID | None = None
    """The other side."""
    faction_a: str | None = None
    """The faction of one side."""
    faction_b: str | None = None
    """The faction of the other side."""
    rescue_target: UUID | None = None
    """Someone to rescue or escort."""
    destination: str | None = None
    """Room key they must be brought to (or an item delivered to)."""
    item_template: str | None = None
    """Item template ("ironvale:iron_bar") to fetch, deliver or gather."""
    recipient: UUID | None = None
    """Who the item is for."""
    supplier: UUID | None = None
    """Who can supply it."""
    resource_type: str | None = None
    """A supply's resource ("iron", "grain")."""
    discovery_type: str | None = None
    """What kind of discovery ("ancient_ruins") an exploration seed is about."""
    involved_characters: list[UUID] = field(default_factory=list)
    """Player characters involved."""

    # Narrative context
    backstory: str
    """Narrative context: how it came about, from real events."""
    tension: str
    """Narrative context: what is at odds."""
    stakes: str
    """Narrative context: what happens if nobody acts."""

    # Quest feasibility
    estimated_difficulty: DifficultyTier
    """The difficulty tier the quest is expected to have."""
    estimated_duration_minutes: int
    """Real minutes a player is expected to need."""

    # Lifecycle (game seconds)
    created_at: float
    """Game seconds when the seed was made."""
    expires_at: float
    """Game seconds after which it is dropped if no quest came of it."""
    attempt_count: int = 0
    """How many times generation tried to make a quest of it."""
    chain_depth: int = 0
    """0 for a fresh seed; n for the n-th follow-up of a quest chain."""
    chain_parent_id: str | None = None
    """The quest this one follows up, in a chain."""
    forced: bool = False
    """Queued by an admin (``@quest force-generate``): an explicit request, not the
    world's pacing, so the daily cap does not hold it back."""

    def is_expired(self, now: float) -> bool:
        """Whether the seed is past ``expires_at`` at game time ``now``."""
        return now > self.expires_at

    @property
    def all_seed_types(self) -> list[QuestSeedType]:
        """The primary seed type, then the secondary ones."""
        return [self.seed_type, *self.secondary_seed_types]
