"""RpgQuestGenPlugin (``classic_rpg.questgen``): the RPG side of quest generation."""

from __future__ import annotations

from classic_rpg.questgen.archetypes import rpg_archetypes
from classic_rpg.questgen.hooks import RPG_ITEM_TIER_CAPS, RpgHooks, RpgQuestSink
from classic_rpg.questgen.terms import RPG_EXTRA_REWARD_TYPES, RpgQuestTerms
from classic_rpg.rules import RulesPlugin
from classic_rpg.systems.quests.manager import QuestManager
from classic_rpg.systems.quests.register import QuestsPlugin
from maid_engine.content import ContentPack, PackContext
from maid_stdlib.questgen import QuestGen
from maid_stdlib.questgen.register import QuestGenPlugin

__all__ = ["RpgQuestGenPlugin"]


class RpgQuestGenPlugin(ContentPack):
    """Add the eight archetypes to the QuestGen service, install the RPG hooks
    (health, levels, hostility, item tiers, reward items), the RPG terms extension
    (experience, level requirement) and the quest sink that registers finished
    quests with the QuestManager."""

    name = "classic_rpg.questgen"
    requires = (RulesPlugin, QuestsPlugin, QuestGenPlugin)
    description = "The eight RPG archetypes, the RPG's world hooks and the quest sink."

    def register(self, ctx: PackContext) -> None:
        qg = ctx.service(QuestGen)
        for archetype in rpg_archetypes():
            qg.add_archetype(ctx.pack.name, archetype)
        hooks = RpgHooks(ctx.engine)
        hooks.install(qg.facts)
        limits = qg.rewards.limits
        limits.item_tier = hooks.item_tier
        limits.max_item_tier = dict(RPG_ITEM_TIER_CAPS)
        limits.extra_reward_types = limits.extra_reward_types | RPG_EXTRA_REWARD_TYPES
        qg.rewards.item_picker = hooks.pick_reward_items
        qg.add_extension(RpgQuestTerms(qg.rewards), pack=ctx.pack.name)
        qg.sink = RpgQuestSink(ctx.service(QuestManager))
