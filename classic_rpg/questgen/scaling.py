"""Per-character difficulty of generated quests in the classic RPG.

The stdlib fits a generated quest to whoever accepts it
(:func:`maid_stdlib.questgen.scaling.fit_quest`: counts, time limits, the reward
factor, within the archetype's bounds, rated by ``LevelChallenge``'s ``effort``)
and records it on the quest's history entry. :class:`RpgQuestFitting` is the
QuestManager's accept adjuster that asks for it and turns the adjustment into
the character's :class:`~classic_rpg.systems.quests.scaling.QuestScaling`.
"""

from __future__ import annotations

from uuid import UUID

from classic_rpg.questgen.terms import rpg_terms
from classic_rpg.systems.quests.models import Quest
from classic_rpg.systems.quests.scaling import QuestScaling
from maid_stdlib.questgen.register import QuestGen
from maid_stdlib.questgen.scaling import DifficultyAdjustment, fit_quest, scale_amount
from maid_stdlib.questgen.service import QuestGenerationService

__all__ = ["RpgQuestFitting", "scaling_of"]


def scaling_of(adjustment: DifficultyAdjustment) -> QuestScaling:
    """The QuestManager's terms of a stdlib adjustment (hours become seconds)."""
    return QuestScaling(
        target_counts=dict(adjustment.counts),
        time_limits=dict(adjustment.objective_time_limits),
        time_limit_seconds=(
            adjustment.time_limit * 3600.0 if adjustment.time_limit is not None else None
        ),
        reward_factor=adjustment.reward_factor,
    )


class RpgQuestFitting:
    """``QuestManager.accept_adjusters`` entry: fits open generated quests."""

    def __init__(self, qg: QuestGen, generation: QuestGenerationService) -> None:
        self.qg = qg
        self.generation = generation

    def __call__(self, quest: Quest, character: UUID) -> QuestScaling | None:
        open_quest = self.generation.open_quest(quest.quest_id)
        if open_quest is None:
            return None  # authored, or no longer open: as defined
        adjustment = fit_quest(
            open_quest.quest, [character], self.qg.facts.challenge, self.qg.archetypes
        )
        # Experience is the RPG's own reward: it scales like gold, recorded here.
        experience = rpg_terms(open_quest.quest).experience
        scaled = scale_amount(experience, adjustment.reward_factor)
        if scaled != experience:
            adjustment.add("experience", experience, scaled)
        self.qg.history.record_adjustment(quest.quest_id, adjustment)
        return scaling_of(adjustment)
