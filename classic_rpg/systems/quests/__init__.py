"""The QuestManager: quest definitions, the lifecycle state machine, objectives,
grading, rewards, quest history and the player's quest commands.

``QuestsPlugin`` (``classic_rpg.systems.quests.register``, in the ``classic_rpg`` group)
provides the ``QuestManager`` service and wires it into the game. See docs/quests.md.
"""

from __future__ import annotations

from classic_rpg.systems.quests.errors import QuestError
from classic_rpg.systems.quests.manager import AcceptValidator, QuestManager
from classic_rpg.systems.quests.models import Quest, QuestObjective, QuestRewards
from classic_rpg.systems.quests.questlog import ObjectiveProgress, QuestEntry, QuestLog
from classic_rpg.systems.quests.tracker import QuestProgressTracker

__all__ = [
    "AcceptValidator",
    "ObjectiveProgress",
    "Quest",
    "QuestEntry",
    "QuestError",
    "QuestLog",
    "QuestManager",
    "QuestObjective",
    "QuestProgressTracker",
    "QuestRewards",
]
