"""A quest as fitted to one character at acceptance (per-character difficulty).

A quest definition is shared by everyone it is offered to; what one character
was asked is kept on their :class:`QuestEntry` (``target_counts``,
``time_limits``, ``time_limit_seconds``, ``reward_factor``), set at acceptance
from the :class:`QuestScaling` an accept adjuster returns
(``QuestManager.accept_adjusters``; the quest generation glue installs one for
generated quests). :func:`fitted` is the quest as that character sees it: the
objective tracker, the turn-in ledger and the quest commands read it instead of
the shared definition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from classic_rpg.systems.quests.models import Quest
from classic_rpg.systems.quests.questlog import FoeSpec, QuestEntry

__all__ = ["QuestScaling", "fitted"]


@dataclass(frozen=True)
class QuestScaling:
    """What an accept adjuster asks of one character instead of the definition."""

    #: Objective id -> count.
    target_counts: dict[str, int] = field(default_factory=dict)
    #: Objective id -> time limit in game seconds.
    time_limits: dict[str, float] = field(default_factory=dict)
    #: The quest's time limit in game seconds (None: the quest's own).
    time_limit_seconds: float | None = None
    #: Experience and gold paid are multiplied by this (items are not).
    reward_factor: float = 1.0
    #: Objective id -> the quest's own foes spawned for the character.
    foes: dict[str, FoeSpec] = field(default_factory=dict)

    def apply_to(self, entry: QuestEntry) -> None:
        entry.target_counts = {k: max(1, v) for k, v in self.target_counts.items()}
        entry.time_limits = dict(self.time_limits)
        entry.time_limit_seconds = self.time_limit_seconds
        entry.reward_factor = max(0.0, self.reward_factor)
        entry.foes = dict(self.foes)


def _scale(amount: int, factor: float) -> int:
    return max(0, math.floor(amount * factor + 0.5))


def fitted(quest: Quest, entry: QuestEntry) -> Quest:
    """``quest`` with the entry's counts, time limits and rewards (itself when the
    entry was not scaled). The copy is not re-validated: it only changes numbers
    the definition already validated the shape of."""
    if not entry.scaled:
        return quest
    objectives = [
        o.model_copy(
            update={
                "target_count": entry.target_counts.get(o.objective_id, o.target_count),
                "time_limit_seconds": entry.time_limits.get(o.objective_id, o.time_limit_seconds),
            }
        )
        if o.objective_id in entry.target_counts or o.objective_id in entry.time_limits
        else o
        for o in quest.objectives
    ]
    r = quest.rewards
    rewards = r.model_copy(
        update={
            "experience": _scale(r.experience, entry.reward_factor),
            "gold": _scale(r.gold, entry.reward_factor),
        }
    )
    limit = (
        entry.time_limit_seconds
        if entry.time_limit_seconds is not None
        else quest.time_limit_seconds
    )
    return quest.model_copy(
        update={"objectives": objectives, "rewards": rewards, "time_limit_seconds": limit}
    )
