"""Outcome grading, done once, by ``QuestManager.turn_in_quest``.

Grading does not belong to the ConsequenceSystem: it lives here and travels on
``QuestTurnedInEvent.outcome``, so every consumer sees the same grade instead of
each grading again (and perhaps differently).
"""

from __future__ import annotations

from classic_rpg.systems.quests.models import Quest
from classic_rpg.systems.quests.questlog import QuestEntry
from classic_rpg.systems.quests.tracker import QuestProgressTracker
from maid_stdlib.questgen.vocabulary import QuestOutcome

#: Lowest health fraction at or below which a success is pyrrhic.
PYRRHIC_HEALTH = 0.10
#: A quest taking longer than this many times its estimate is pyrrhic.
PYRRHIC_DURATION_FACTOR = 2.0
#: Share of required objectives below which the quest failed outright.
PARTIAL_RATIO = 0.5


def _is_complete(entry: QuestEntry, objective_id: str) -> bool:
    progress = entry.objectives.get(objective_id)
    return progress is not None and progress.completed


def _grade_outcome(quest: Quest, entry: QuestEntry, now: float) -> QuestOutcome:
    """Graded outcome from the objective completion state of ``entry``.

    Pyrrhic victory reads the lowest health recorded by the QuestProgressTracker
    during the quest, never the health at turn-in (no heal-before-turn-in), or a
    duration beyond twice ``quest.estimated_duration_seconds``.
    """
    required = quest.required
    optional = quest.optional
    required_done = [o for o in required if _is_complete(entry, o.objective_id)]
    optional_done = [o for o in optional if _is_complete(entry, o.objective_id)]
    if len(required_done) < len(required):
        ratio = len(required_done) / max(len(required), 1)
        return QuestOutcome.PARTIAL_SUCCESS if ratio >= PARTIAL_RATIO else QuestOutcome.FAILED
    tracker = QuestProgressTracker(entry)
    if tracker.lowest_health_pct <= PYRRHIC_HEALTH:
        return QuestOutcome.PYRRHIC_VICTORY
    estimate = quest.estimated_duration_seconds
    duration = tracker.duration(now)
    if (
        estimate is not None
        and duration is not None
        and (duration > PYRRHIC_DURATION_FACTOR * estimate)
    ):
        return QuestOutcome.PYRRHIC_VICTORY
    if len(optional_done) == len(optional):
        return QuestOutcome.PERFECT
    return QuestOutcome.COMPLETED


def pyrrhic_reason(quest: Quest, entry: QuestEntry, now: float) -> str:
    """Why a finished quest graded as a pyrrhic victory, in a player's words."""
    tracker = QuestProgressTracker(entry)
    if tracker.lowest_health_pct <= PYRRHIC_HEALTH:
        return "you came close to dying on the way"
    return "it took more than twice as long as it should have"


def required_ratio(quest: Quest, entry: QuestEntry) -> float:
    required = quest.required
    done = sum(1 for o in required if _is_complete(entry, o.objective_id))
    return done / max(len(required), 1)


grade_outcome = _grade_outcome
