"""The RPG side of quest generation: the eight built-in archetypes, the RPG hooks
(health, hostility, item tiers, loot, reward items), the rating of difficulty
tiers by character level, the conversion of a GeneratedQuest to the
QuestManager's Quest model, and the quest sink.

``RpgQuestGenPlugin`` (``classic_rpg.questgen.register``, in the ``classic_rpg``
group) wires it into the stdlib's QuestGen service.
"""

from __future__ import annotations

from classic_rpg.questgen.archetypes import RPG_ARCHETYPES, rpg_archetypes
from classic_rpg.questgen.challenge import (
    EFFORT_PER_LEVEL,
    RPG_TIER_LEVELS,
    LevelChallenge,
    LevelStanding,
    min_level,
    recommended_level,
    tier_for_level,
)
from classic_rpg.questgen.convert import (
    registration_meta,
    side_table_document,
    to_quest_model,
)
from classic_rpg.questgen.hooks import RPG_ITEM_TIER_CAPS, RpgHooks, RpgQuestSink
from classic_rpg.questgen.terms import (
    RPG_BASE_EXPERIENCE,
    RPG_EXTRA_REWARD_TYPES,
    RpgQuestTerms,
    RpgTerms,
    rpg_terms,
)

__all__ = [
    "EFFORT_PER_LEVEL",
    "RPG_ARCHETYPES",
    "RPG_BASE_EXPERIENCE",
    "RPG_EXTRA_REWARD_TYPES",
    "RPG_ITEM_TIER_CAPS",
    "RPG_TIER_LEVELS",
    "LevelChallenge",
    "LevelStanding",
    "RpgHooks",
    "RpgQuestSink",
    "RpgQuestTerms",
    "RpgTerms",
    "min_level",
    "recommended_level",
    "registration_meta",
    "rpg_archetypes",
    "rpg_terms",
    "side_table_document",
    "tier_for_level",
    "to_quest_model",
]
