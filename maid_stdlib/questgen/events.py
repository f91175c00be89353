"""Quest lifecycle events: a quest was generated, offered, accepted, progressed,
completed, turned in, failed, abandoned, re-rated or its opportunity expired.

They are the stdlib's, next to the quest vocabulary they carry, so that any layer
can react to a quest's lifecycle without the rules layer's types; the rules
layer's quest manager (classic_rpg's QuestManager) emits them, one per transition.
``character_id`` is always the in-world character entity, never the account.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

from maid_engine.events import Event
from maid_stdlib.questgen.quest import DifficultyTier
from maid_stdlib.questgen.vocabulary import FailReason, QuestOutcome, QuestState


@dataclass
class QuestGeneratedEvent(Event):
    """A generated quest was registered. Seed metadata is optional: the generation
    pipeline passes it to ``register_generated_quest``."""

    quest_id: str
    quest_giver_id: UUID | None
    seed_type: str = ""
    archetype_id: str = ""
    importance: float = 0.0


@dataclass
class QuestOfferedEvent(Event):
    quest_id: str
    character_id: UUID
    delivery_method: str
    match_score: float


@dataclass
class QuestAcceptedEvent(Event):
    quest_id: str
    character_id: UUID


@dataclass
class QuestProgressEvent(Event):
    """An objective advanced (``completed`` when it reached its count)."""

    quest_id: str
    character_id: UUID
    objective_id: str
    count: int
    target_count: int
    completed: bool


@dataclass
class QuestCompletedEvent(Event):
    """Every required objective is met; the quest now waits for its turn-in.
    Consequences react to QuestTurnedInEvent, not to this."""

    quest_id: str
    character_id: UUID


@dataclass
class QuestTurnedInEvent(Event):
    """Turned in to the NPC, rewards paid; ``outcome`` graded once by the QuestManager."""

    quest_id: str
    character_id: UUID
    outcome: QuestOutcome


@dataclass
class QuestFailedEvent(Event):
    """A character's quest failed.

    ``reason``: failed (objectives could not be met), expired (the quest's own time
    limit ran out) or invalidated (the world changed; ``detail`` says how).
    ``outcome`` is the graded result: PARTIAL_SUCCESS/FAILED for failed, EXPIRED for
    expired, FAILED for invalidated. Expiry of the quest opportunity itself
    (``expire_quest``) emits QuestExpiredInternalEvent instead, once.
    """

    quest_id: str
    character_id: UUID
    reason: FailReason
    outcome: QuestOutcome = QuestOutcome.FAILED
    detail: str = ""
    previous_state: QuestState = QuestState.IN_PROGRESS


@dataclass
class QuestAbandonedEvent(Event):
    quest_id: str
    character_id: UUID


@dataclass
class QuestExpiredInternalEvent(Event):
    """The quest opportunity expired (``QuestManager.expire_quest``).

    Emitted once per quest; ``character_ids`` are the characters whose accepted
    quest failed with reason ``expired`` (no QuestFailedEvent is emitted for them,
    so failure consequences are applied once, from this event).
    """

    quest_id: str
    character_ids: list[UUID] = field(default_factory=list)


@dataclass
class QuestReratedEvent(Event):
    """The world made an open generated quest harder than it was rated (the grounding
    monitor: the items it asks for lie about no more). The rules layer's terms (its
    level, its experience) already follow ``difficulty`` when this is emitted."""

    quest_id: str
    difficulty: DifficultyTier
