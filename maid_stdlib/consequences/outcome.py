"""How strongly each graded quest outcome carries its consequences.

The grade is computed once, by the rules layer's quest manager at turn-in, and
travels on its event, so every consumer sees the same grade; nothing here grades. The
grades themselves are the shared ``QuestOutcome`` of :mod:`maid_stdlib.questgen.vocabulary`.
"""

from __future__ import annotations

from typing import Final

from maid_stdlib.questgen.vocabulary import QuestOutcome

__all__ = ["OUTCOME_SCALE"]

#: Magnitude of success consequences per grade. Failure grades are not scaled:
#: their consequences are planned for failure already.
OUTCOME_SCALE: Final[dict[QuestOutcome, float]] = {
    QuestOutcome.PERFECT: 1.25,
    QuestOutcome.COMPLETED: 1.0,
    QuestOutcome.PARTIAL_SUCCESS: 0.5,
    QuestOutcome.PYRRHIC_VICTORY: 0.3,
}
