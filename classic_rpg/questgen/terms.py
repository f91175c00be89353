"""The classic RPG's own terms of a generated quest: its experience reward and the
character level it asks for.

The stdlib's quest model knows no experience and no character levels; this module
adds them as the quest extension named :data:`EXTENSION`
(``GeneratedQuest.extensions["classic_rpg"]``), filled once by the builder through
:class:`RpgQuestTerms` and read back with :func:`rpg_terms`.

Experience is scaled and capped like the giver's gold (by difficulty, by the
effort the quest's required objectives take, ``RewardPolicy.effort``, and at
``RewardLimits.cap_factor`` times the tier's base) but does not come out of
anyone's purse, so wealth does not cap it. The level requirement is the lowest
level the quest's difficulty tier allows, except for a quest of words and walks
(every required objective a talk or a visit): its tier comes from how much it
matters to the giver, not from a fight, and a message for the gate guard asked
for level 3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from classic_rpg.questgen.challenge import min_level
from maid_stdlib.questgen import DifficultyTier, GeneratedQuest, ObjectiveType, RewardPolicy

__all__ = [
    "EXTENSION",
    "RPG_BASE_EXPERIENCE",
    "RPG_EXTRA_REWARD_TYPES",
    "RpgQuestTerms",
    "RpgTerms",
    "rpg_terms",
]

#: The key of the classic RPG's entry in ``GeneratedQuest.extensions``.
EXTENSION: Final = "classic_rpg"

#: Extra reward kinds the classic RPG allows beyond the stdlib's
#: (``RewardLimits.extra_reward_types``).
RPG_EXTRA_REWARD_TYPES: Final = frozenset({"xp"})

#: The objectives of a quest of words and walks, which asks for no level: the
#: others mean a fight, or items that may be had only from one (a pelt Old Grey
#: wears rates the quest at his tier).
WORDS_AND_WALKS: Final = frozenset({ObjectiveType.TALK, ObjectiveType.VISIT})

#: Experience for a quest of each difficulty at an effort of 1.
RPG_BASE_EXPERIENCE: Final[dict[DifficultyTier, int]] = {
    DifficultyTier.TRIVIAL: 40,
    DifficultyTier.EASY: 80,
    DifficultyTier.MODERATE: 160,
    DifficultyTier.HARD: 320,
    DifficultyTier.EPIC: 640,
}


@dataclass(frozen=True)
class RpgTerms:
    """What the QuestManager's Quest takes from a generated quest beyond the stdlib's."""

    experience: int
    level_requirement: int

    def to_document(self) -> dict[str, Any]:
        return {"experience": self.experience, "level_requirement": self.level_requirement}

    @classmethod
    def from_document(cls, doc: dict[str, Any]) -> RpgTerms:
        return cls(
            experience=int(doc["experience"]), level_requirement=int(doc["level_requirement"])
        )


class RpgQuestTerms:
    """The quest extension (``QuestGen.add_extension``) computing :class:`RpgTerms`."""

    name: str = EXTENSION

    def __init__(self, rewards: RewardPolicy) -> None:
        #: The pipeline's reward policy: experience follows the same effort as gold.
        self.rewards = rewards

    def terms(self, quest: GeneratedQuest) -> RpgTerms:
        base = RPG_BASE_EXPERIENCE[quest.difficulty]
        effort = self.rewards.effort(quest.objectives)
        # Capped like gold, at the policy's cap_factor times the tier's base.
        cap = int(base * self.rewards.limits.cap_factor)
        return RpgTerms(
            experience=max(0, min(cap, round(base * effort))),
            level_requirement=1 if _words_and_walks(quest) else min_level(quest.difficulty),
        )

    def extend(self, quest: GeneratedQuest) -> dict[str, Any]:
        return self.terms(quest).to_document()


def _words_and_walks(quest: GeneratedQuest) -> bool:
    return all(o.objective_type in WORDS_AND_WALKS for o in quest.objectives if not o.optional)


def rpg_terms(quest: GeneratedQuest) -> RpgTerms:
    """The quest's RPG terms.

    A quest stored before the terms became an extension has none: its stored
    experience and level were computed from its difficulty and objectives exactly
    as :class:`RpgQuestTerms` computes them with the default policy, so they are
    derived again.
    """
    doc = quest.extensions.get(EXTENSION)
    if doc is not None:
        return RpgTerms.from_document(doc)
    return RpgQuestTerms(RewardPolicy()).terms(quest)
