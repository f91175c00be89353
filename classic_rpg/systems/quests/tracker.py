"""QuestProgressTracker: the lowest health seen during a quest (grading reads it).

The tracker is a view over the persisted :class:`QuestEntry`, so what it records
survives restarts (a crash must not reset the pyrrhic flag). The QuestManager
feeds it every ``DamageDealtEvent`` whose target has active quests; healing never
raises the recorded minimum, which closes the heal-before-turn-in exploit.
"""

from __future__ import annotations

from classic_rpg.systems.quests.questlog import QuestEntry


class QuestProgressTracker:
    def __init__(self, entry: QuestEntry) -> None:
        self.entry = entry

    @property
    def quest_id(self) -> str:
        return self.entry.quest_id

    @property
    def lowest_health_pct(self) -> float:
        return self.entry.lowest_health_pct

    def record_health(self, current: int, maximum: int) -> bool:
        """Record health after a hit; True if a new minimum was stored.

        Only open objectives are updated per objective: the seed tracks the minimum
        per objective so a later report can say where the quest hurt.
        """
        if maximum <= 0:
            return False
        pct = max(0.0, min(1.0, current / maximum))
        changed = False
        if pct < self.entry.lowest_health_pct:
            self.entry.lowest_health_pct = pct
            changed = True
        for progress in self.entry.objectives.values():
            if progress.open and pct < progress.lowest_health_pct:
                progress.lowest_health_pct = pct
                changed = True
        return changed

    def duration(self, now: float) -> float | None:
        """Game seconds from acceptance to completion (or to ``now`` if not complete)."""
        start = self.entry.accepted_at
        if start is None:
            return None
        end = self.entry.completed_at if self.entry.completed_at is not None else now
        return max(0.0, end - start)
