"""The QuestManager: quest definitions, the lifecycle state machine, objectives,
grading, rewards, quest history and the player's quest commands.

``register_quests(ctx)`` (called by ClassicRPGContentPack.register) provides the
``QuestManager`` service and wires it into the game. See docs/quests.md.
"""

from __future__ import annotations

from classic_rpg.systems.quests.events import (
    QuestAbandonedEvent,
    QuestAcceptedEvent,
    QuestCompletedEvent,
    QuestExpiredInternalEvent,
    QuestFailedEvent,
    QuestGeneratedEvent,
    QuestOfferedEvent,
    QuestProgressEvent,
    QuestTurnedInEvent,
)
from classic_rpg.systems.quests.manager import AcceptValidator, QuestError, QuestManager
from classic_rpg.systems.quests.models import Quest, QuestObjective, QuestRewards
from classic_rpg.systems.quests.questlog import ObjectiveProgress, QuestEntry, QuestLog
from classic_rpg.systems.quests.tracker import QuestProgressTracker
from maid_engine.content import PackContext

__all__ = [
    "AcceptValidator",
    "ObjectiveProgress",
    "Quest",
    "QuestAbandonedEvent",
    "QuestAcceptedEvent",
    "QuestCompletedEvent",
    "QuestEntry",
    "QuestError",
    "QuestExpiredInternalEvent",
    "QuestFailedEvent",
    "QuestGeneratedEvent",
    "QuestLog",
    "QuestManager",
    "QuestObjective",
    "QuestOfferedEvent",
    "QuestProgressEvent",
    "QuestProgressTracker",
    "QuestRewards",
    "QuestTurnedInEvent",
    "register_quests",
]


def register_quests(ctx: PackContext) -> None:
    from classic_rpg.characters.dialogue import TalkService
    from classic_rpg.events import (
        DamageDealtEvent,
        EntityDiedEvent,
        ItemGivenEvent,
        ItemPickedUpEvent,
        TalkedToEvent,
    )
    from classic_rpg.systems.quests.commands import COMMANDS, QuestTalk
    from classic_rpg.systems.quests.history import COLLECTION as HISTORY
    from classic_rpg.systems.quests.registry import COLLECTION as REGISTRY
    from classic_rpg.systems.quests.rewards import COLLECTION as TURNINS
    from classic_rpg.systems.quests.system import QuestSystem
    from maid_stdlib.world.events import EntityRelocatedEvent

    manager = QuestManager(ctx.engine)
    ctx.provide(QuestManager, manager)
    for name in (HISTORY, TURNINS, REGISTRY):
        ctx.ensure_collection(name)
    ctx.add_system(QuestSystem(manager))
    tracker = manager.objectives
    ctx.subscribe(EntityDiedEvent, tracker.on_died)
    ctx.subscribe(ItemPickedUpEvent, tracker.on_picked_up)
    ctx.subscribe(ItemGivenEvent, tracker.on_given)
    ctx.subscribe(TalkedToEvent, tracker.on_talked)
    ctx.subscribe(EntityRelocatedEvent, tracker.on_relocated)
    ctx.subscribe(DamageDealtEvent, tracker.on_damage)
    ctx.service(TalkService).add_handler(QuestTalk(manager))
    ctx.add_commands(COMMANDS)
