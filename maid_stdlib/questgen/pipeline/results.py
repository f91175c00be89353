"""What the generation stages hand each other, and the record of finished builds."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from maid_stdlib.questgen.builder import QuestPlan
from maid_stdlib.questgen.narrative_context import QuestNarrative
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.rejection import Rejection

__all__ = ["BuildRecord", "CheckOutcome", "Narrated", "RejectionRecord"]


@dataclass(frozen=True)
class Narrated:
    """The narrate stage's answer for one plan: the prose and the wall seconds it took."""

    narrative: QuestNarrative
    latency: float


@dataclass(frozen=True)
class CheckOutcome:
    """The check stage's answer: the quest (or why not) and the narrative it was
    finished with (a template replaces an unsafe model answer)."""

    narrative: QuestNarrative
    result: GeneratedQuest | Rejection


@dataclass
class BuildRecord:
    """One finished build, kept for admin tools and tests."""

    seed_id: UUID
    archetype_id: str
    outcome: str
    quest_id: str | None
    narrative_source: str
    fallback_reason: str | None
    tokens: int
    plan: QuestPlan


@dataclass(frozen=True)
class RejectionRecord:
    """A seed's build said no: when (game seconds), at which stage and why."""

    seed_id: UUID
    at: float
    rejection: Rejection
