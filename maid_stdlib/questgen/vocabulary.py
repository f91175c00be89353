"""The quest vocabulary every layer shares: one definition of each word.

The generation pipeline builds quests out of these words, the rules layer's quest
manager (classic_rpg) tracks and grades them, and the consequence layer reads
the grade. Each layer imports these enums from here; none keeps a copy of its own
to convert by value. Their values are stored in persisted documents (quest logs,
generated quests, pending deliveries, audit entries), so a value never changes.

A rules layer that needs more than these words extends the quest model, not the
vocabulary: see ``GeneratedQuest.extensions`` in :mod:`maid_stdlib.questgen.quest`.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = [
    "FAILURE_OUTCOMES",
    "SUCCESS_OUTCOMES",
    "FailReason",
    "ObjectiveType",
    "QuestDeliveryMethod",
    "QuestOutcome",
    "QuestState",
]


class ObjectiveType(enum.StrEnum):
    """What an objective asks. docs/quests.md says which fields each type reads."""

    KILL = "kill"
    COLLECT = "collect"
    DELIVER = "deliver"
    VISIT = "visit"
    TALK = "talk"
    PROTECT = "protect"
    ESCORT = "escort"
    TIMED = "timed"
    CUSTOM = "custom"
    #: A world fact becomes true by the character's hand (a narrated rescue).
    FACT = "fact"


class QuestDeliveryMethod(enum.StrEnum):
    """How an offer reached the character (the triggers are in ``delivery``)."""

    DIRECT_OFFER = "direct_offer"
    CONVERSATION = "conversation"
    OVERHEARD = "overheard"
    NOTICE_BOARD = "notice_board"
    LETTER = "letter"
    RUMOR = "rumor"
    DISCOVERY = "discovery"


class QuestState(enum.StrEnum):
    """Per-character state of a quest."""

    AVAILABLE = "available"  # offered to the character, not accepted yet
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"  # required objectives met, awaiting turn-in
    TURNED_IN = "turned_in"
    FAILED = "failed"  # see FailReason
    ABANDONED = "abandoned"

    @property
    def terminal(self) -> bool:
        return self in (QuestState.TURNED_IN, QuestState.FAILED, QuestState.ABANDONED)

    @property
    def active(self) -> bool:
        """Accepted and still running (objectives are tracked)."""
        return self in (QuestState.IN_PROGRESS, QuestState.COMPLETED)


class FailReason(enum.StrEnum):
    FAILED = "failed"  # objectives could not be met (a protected NPC died, a timer ran out)
    EXPIRED = "expired"  # the quest's time limit, or the opportunity itself, ran out
    INVALIDATED = "invalidated"  # the world changed underneath the quest


class QuestOutcome(enum.StrEnum):
    """The graded result of a character's quest.

    The rules layer grades once, at turn-in or failure, and the grade travels on
    its event; consumers (consequences, history, preferences) read it and never
    grade again.
    """

    PERFECT = "perfect"
    COMPLETED = "completed"
    PARTIAL_SUCCESS = "partial_success"
    PYRRHIC_VICTORY = "pyrrhic_victory"
    FAILED = "failed"
    EXPIRED = "expired"
    ABANDONED = "abandoned"

    @property
    def success(self) -> bool:
        return self in SUCCESS_OUTCOMES


SUCCESS_OUTCOMES: Final = frozenset(
    {
        QuestOutcome.PERFECT,
        QuestOutcome.COMPLETED,
        QuestOutcome.PARTIAL_SUCCESS,
        QuestOutcome.PYRRHIC_VICTORY,
    }
)
FAILURE_OUTCOMES: Final = frozenset(
    {QuestOutcome.FAILED, QuestOutcome.EXPIRED, QuestOutcome.ABANDONED}
)
