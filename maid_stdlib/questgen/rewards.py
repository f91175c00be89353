"""Rewards scaled by difficulty, effort and what the giver can actually pay.

Gold is the giver's own coin: at most ``wealth_share`` of its Wealth (a poor
farmer cannot pay like a merchant prince). When the giver's wealth is not
modelled the reward is halved and the builder scores the quest as less grounded.
Items come only from a rules layer's ``item_picker`` (the stdlib knows no items).
Rewards of a rules layer's own (classic_rpg's experience) are its quest extension;
it may use :meth:`RewardPolicy.effort` to scale them as gold is scaled.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.quest import DifficultyTier, QuestObjective, QuestRewards
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.validator import RewardLimits

__all__ = ["ItemPicker", "RewardPolicy"]

#: ``(seed, difficulty, facts, rng) -> item templates`` offered as rewards.
ItemPicker = Callable[[QuestSeed, DifficultyTier, WorldFacts, random.Random], list[str]]


@dataclass
class RewardPolicy:
    limits: RewardLimits = field(default_factory=RewardLimits)
    wealth_share: float = 0.3
    unknown_wealth_factor: float = 0.5
    #: Required objectives per "unit" of effort; effort scales rewards within bounds.
    objectives_per_unit: float = 4.0
    effort_bounds: tuple[float, float] = (0.75, 1.5)
    item_picker: ItemPicker | None = None

    def effort(self, objectives: Sequence[QuestObjective]) -> float:
        required = [o for o in objectives if not o.optional]
        low, high = self.effort_bounds
        return min(high, max(low, len(required) / self.objectives_per_unit))

    def calculate(
        self,
        seed: QuestSeed,
        objectives: Sequence[QuestObjective],
        difficulty: DifficultyTier,
        facts: WorldFacts,
    ) -> QuestRewards:
        """Unclamped rewards; the builder clamps them (``clamp_rewards``) next."""
        effort = self.effort(objectives)
        desired_gold = round(self.limits.base_gold[difficulty] * effort)
        wealth = facts.wealth(seed.primary_npc)
        if wealth is None:
            gold = round(desired_gold * self.unknown_wealth_factor)
        else:
            gold = min(desired_gold, int(wealth * self.wealth_share))
        items: list[str] = []
        if self.item_picker is not None:
            items = list(self.item_picker(seed, difficulty, facts, facts.rng))
        return QuestRewards(gold=max(0, gold), item_template_ids=items)
