"""Navigation: what ``map``, ``time`` and ``recall`` need to remember and ask.

``recall_guards`` are asked before a recall: each returns why the character may
not recall now (a rules layer refuses one in the middle of a fight), or None.
The recall cooldown runs in real seconds on the engine's monotonic clock, so a fast
game clock does not shorten it and tests step it by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from uuid import UUID

from maid_stdlib.navigation.calendar import Calendar

__all__ = ["Navigation", "NavigationConfig", "RecallGuard"]

#: ``guard(character) -> reason`` (None: no objection).
RecallGuard = Callable[[UUID], "str | None"]


@dataclass
class NavigationConfig:
    #: Real seconds between two recalls of one character.
    recall_cooldown: float = 120.0
    #: Rooms walked from you that ``map`` shows by default, and at most.
    map_radius: int = 4
    max_map_radius: int = 9


@dataclass
class Navigation:
    config: NavigationConfig = field(default_factory=NavigationConfig)
    calendar: Calendar = field(default_factory=Calendar)
    recall_guards: list[RecallGuard] = field(default_factory=list)
    #: Character -> the monotonic time of their last recall (runtime only: a restart
    #: forgives the cooldown).
    last_recall: dict[UUID, float] = field(default_factory=dict)

    def recall_refusal(self, character: UUID) -> str | None:
        for guard in self.recall_guards:
            reason = guard(character)
            if reason:
                return reason
        return None

    def recall_wait(self, character: UUID, now: float) -> float:
        """Real seconds until ``character`` may recall again (0: now)."""
        last = self.last_recall.get(character)
        if last is None:
            return 0.0
        return max(0.0, self.config.recall_cooldown - (now - last))
