"""Graded quest outcomes as the consequence layer reads them.

The grade is computed once, by the rules layer's quest manager at turn-in, and
travels on its event (seed pitfall 7); nothing here grades anything. ``Outcome``
mirrors the rules layer's ``QuestOutcome`` by value, because the stdlib may not
import the rules layer: ``Outcome(event.outcome.value)`` converts.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = ["FAILURE_OUTCOMES", "OUTCOME_SCALE", "SUCCESS_OUTCOMES", "Outcome"]


class Outcome(enum.StrEnum):
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
        Outcome.PERFECT,
        Outcome.COMPLETED,
        Outcome.PARTIAL_SUCCESS,
        Outcome.PYRRHIC_VICTORY,
    }
)
FAILURE_OUTCOMES: Final = frozenset({Outcome.FAILED, Outcome.EXPIRED, Outcome.ABANDONED})

#: Magnitude of success consequences per grade (seed 4.6). Failure grades are not
#: scaled: their consequences are planned for failure already.
OUTCOME_SCALE: Final[dict[Outcome, float]] = {
    Outcome.PERFECT: 1.25,
    Outcome.COMPLETED: 1.0,
    Outcome.PARTIAL_SUCCESS: 0.5,
    Outcome.PYRRHIC_VICTORY: 0.3,
}
