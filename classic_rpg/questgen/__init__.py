"""The RPG side of quest generation: the six built-in archetypes, the RPG hooks
(health, levels, hostility, item tiers, loot, reward items), the conversion of a
GeneratedQuest to the QuestManager's Quest model, and the quest sink.

``register_rpg_questgen(ctx)`` wires it into the stdlib's QuestGen service; call
it from ClassicRPGContentPack.register after ``register_quests(ctx)``.
"""

from __future__ import annotations

from classic_rpg.questgen.archetypes import RPG_ARCHETYPES, rpg_archetypes
from classic_rpg.questgen.convert import (
    registration_meta,
    side_table_document,
    to_quest_model,
)
from classic_rpg.questgen.hooks import RPG_ITEM_TIER_CAPS, RpgHooks, RpgQuestSink
from classic_rpg.questgen.terms import RPG_BASE_EXPERIENCE, RpgQuestTerms, RpgTerms, rpg_terms
from maid_engine.content import PackContext
from maid_stdlib.questgen import QuestGen

__all__ = [
    "RPG_ARCHETYPES",
    "RPG_BASE_EXPERIENCE",
    "RPG_ITEM_TIER_CAPS",
    "RpgHooks",
    "RpgQuestSink",
    "RpgQuestTerms",
    "RpgTerms",
    "register_rpg_questgen",
    "registration_meta",
    "rpg_archetypes",
    "rpg_terms",
    "side_table_document",
    "to_quest_model",
]


def register_rpg_questgen(ctx: PackContext) -> QuestGen:
    """Register the six archetypes and the RPG hooks on the QuestGen service.

    Needs the stdlib's QuestGen (``register_questgen``); installs the quest sink
    when the QuestManager is provided (``register_quests`` ran first).
    """
    from classic_rpg.systems.quests.manager import QuestManager

    qg = ctx.service(QuestGen)
    if any(
        isinstance(getattr(check, "__self__", None), RpgHooks) for check in qg.facts.alive_checks
    ):
        return qg  # already wired
    for archetype in rpg_archetypes():
        if archetype.archetype_id not in qg.archetypes:
            qg.register_archetype(archetype)
    hooks = RpgHooks(ctx.engine)
    hooks.install(qg.facts)
    limits = qg.rewards.limits
    limits.item_tier = hooks.item_tier
    limits.max_item_tier = dict(RPG_ITEM_TIER_CAPS)
    qg.rewards.item_picker = hooks.pick_reward_items
    qg.add_extension(RpgQuestTerms(qg.rewards))
    manager = ctx.engine.services.try_get(QuestManager)
    if manager is not None:
        qg.sink = RpgQuestSink(manager)
    return qg
