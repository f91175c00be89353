"""QuestsPlugin (``classic_rpg.quests``): the QuestManager and its wiring."""

from __future__ import annotations

from classic_rpg.characters.dialogue import TalkService
from classic_rpg.events import DamageDealtEvent, ItemGivenEvent, ItemPickedUpEvent, TalkedToEvent
from classic_rpg.rules import RulesPlugin
from classic_rpg.systems.quests.commands import COMMANDS, QuestTalk
from classic_rpg.systems.quests.history import COLLECTION as HISTORY
from classic_rpg.systems.quests.manager import QuestManager
from classic_rpg.systems.quests.registry import COLLECTION as REGISTRY
from classic_rpg.systems.quests.rewards import COLLECTION as TURNINS
from classic_rpg.systems.quests.system import QuestSystem
from maid_engine.content import ContentPack, PackContext
from maid_stdlib.world.events import EntityDiedEvent, EntityRelocatedEvent

__all__ = ["QuestsPlugin"]


class QuestsPlugin(ContentPack):
    """Provide the ``QuestManager``, declare its collections, add the QuestSystem
    (phase quests), the objective tracker's handlers, the quest-giver conversation
    and the player's quest commands."""

    name = "classic_rpg.quests"
    requires = (RulesPlugin,)
    provides = (QuestManager,)
    description = "Authored and generated quests: lifecycle, objectives, rewards, commands."

    def register(self, ctx: PackContext) -> None:
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
