"""What the grounding monitor needs from the rules layer's quest manager.

The stdlib cannot import a rules layer, so the rules layer installs a
:class:`QuestBoard` on the monitor (classic_rpg: ``classic_rpg.consequences_glue``
adapts its QuestManager), like the quest pipeline's ``QuestSink``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable
from uuid import UUID

from maid_stdlib.questgen.quest import GeneratedQuest

__all__ = ["Holder", "QuestBoard"]


@dataclass(frozen=True)
class Holder:
    """A character holding a quest that is not finished for them."""

    character: UUID
    #: False: only offered.
    accepted: bool
    #: Ids of the objectives this character completed.
    completed: frozenset[str] = field(default_factory=frozenset)


@runtime_checkable
class QuestBoard(Protocol):
    def open_generated_quests(self) -> list[str]:
        """Ids of generated quests that are registered and neither expired nor
        invalidated."""
        ...

    def holders(self, quest_id: str) -> list[Holder]: ...

    def title(self, quest_id: str) -> str: ...

    def invalidate(self, quest_id: str, reason: str, explanation: str = "") -> list[UUID]:
        """Close the quest for everyone; the rules layer tells the holders it is
        gone, with ``explanation`` (words for players). Returns the characters
        affected."""
        ...

    def set_hint(self, quest_id: str, objective_id: str, hint: str) -> bool:
        """Replace the hint players see for an objective; False if unknown."""
        ...

    def rerate(self, quest: GeneratedQuest) -> bool:
        """Carry ``quest``'s raised difficulty into the rules layer's own terms for
        it (classic_rpg: the level it asks for, the experience it pays); False if
        the quest is unknown."""
        ...
