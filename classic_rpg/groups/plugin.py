"""GroupsPlugin (``classic_rpg.groups``): following, groups, ``gtell``, a kill's
experience shared by the group members present, quest credit shared where a
quest's progression mode says so, and a member's quest foes fought by the group."""

from __future__ import annotations

from classic_rpg.combat.service import CombatService
from classic_rpg.groups import commands
from classic_rpg.groups.service import Groups
from classic_rpg.rules import RulesPlugin
from classic_rpg.systems.quests.manager import QuestManager
from classic_rpg.systems.quests.register import QuestsPlugin
from maid_engine.content import ContentPack, PackContext
from maid_engine.events import CharacterDisconnectedEvent
from maid_stdlib.world.events import EntityRelocatedEvent


class GroupsPlugin(ContentPack):
    name = "classic_rpg.groups"
    requires = (RulesPlugin, QuestsPlugin)
    provides = (Groups,)
    description = "follow, group, ungroup, gtell; shared experience and quest credit."

    def register(self, ctx: PackContext) -> None:
        groups = Groups(ctx.engine)
        ctx.provide(Groups, groups)
        ctx.service(CombatService).companions = groups.present_with
        manager = ctx.service(QuestManager)
        manager.objectives.companions = groups.present_with
        # A quest's own foes are the whole group's to fight (and they fight back).
        manager.foes.party_of = groups.group_of
        ctx.subscribe(EntityRelocatedEvent, groups.on_relocated)
        ctx.subscribe(CharacterDisconnectedEvent, groups.on_disconnected)
        ctx.add_commands(commands.COMMANDS)
