"""The classic RPG's rating of characters and threats against difficulty tiers:
character levels.

Each tier has a recommended level (:data:`RPG_TIER_LEVELS`); its minimum is one
below, since a quest one level above you is fair. A character within
:data:`LEVEL_CLOSE` levels of the recommended level is a close match, within
:data:`LEVEL_NEAR` still offered the quest; more than ``LEVEL_CLOSE`` above it
has outgrown the tier. Threats are rated by the strongest foe's level (one more
when there are more than three of them). The stdlib reads all of this through
``WorldFacts.challenge`` (:class:`maid_stdlib.questgen.challenge.ChallengeRating`).

A character's ``effort`` against a tier (how much of its work suits them, which
per-character difficulty scales a quest by at acceptance) moves by
:data:`EFFORT_PER_LEVEL` per level from the recommended level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final
from uuid import UUID

from classic_rpg.components import CharacterStats
from maid_engine.ecs import World
from maid_stdlib.questgen import DifficultyTier
from maid_stdlib.questgen.challenge import TierDistance, TierFit, TierMatch

__all__ = [
    "EFFORT_PER_LEVEL",
    "LEVEL_CLOSE",
    "LEVEL_NEAR",
    "RPG_TIER_LEVELS",
    "LevelChallenge",
    "LevelStanding",
    "min_level",
    "recommended_level",
    "tier_for_level",
]

#: The character level each difficulty tier is meant for.
RPG_TIER_LEVELS: Final[dict[DifficultyTier, int]] = {
    DifficultyTier.TRIVIAL: 1,
    DifficultyTier.EASY: 2,
    DifficultyTier.MODERATE: 4,
    DifficultyTier.HARD: 7,
    DifficultyTier.EPIC: 10,
}
#: Levels from a tier's recommended level that still make a close match.
LEVEL_CLOSE: Final = 2
#: Levels from a tier's recommended level beyond which the quest is not offered.
LEVEL_NEAR: Final = 5
#: More threats than this make the fight one level harder.
CROWD: Final = 3
#: How much more (or less) of a tier's work each level above (or below) its
#: recommended level suits a character; the archetype's bounds cap the result.
EFFORT_PER_LEVEL: Final = 0.25


def recommended_level(tier: DifficultyTier) -> int:
    return RPG_TIER_LEVELS[tier]


def min_level(tier: DifficultyTier) -> int:
    """The lowest level allowed to accept: a quest one level above you is fair."""
    return max(1, recommended_level(tier) - 1)


def tier_for_level(level: float) -> DifficultyTier:
    """The tier whose recommended level is the highest not above ``level``."""
    chosen = DifficultyTier.TRIVIAL
    for tier in DifficultyTier:
        if recommended_level(tier) <= level:
            chosen = tier
    return chosen


@dataclass(frozen=True)
class LevelStanding:
    """A character's standing: its level."""

    level: int

    def against(self, tier: DifficultyTier) -> TierMatch:
        recommended = recommended_level(tier)
        gap = abs(self.level - recommended)
        distance = (
            TierDistance.CLOSE
            if gap <= LEVEL_CLOSE
            else TierDistance.NEAR
            if gap <= LEVEL_NEAR
            else TierDistance.FAR
        )
        lowest = min_level(tier)
        fit = (
            TierFit.BELOW
            if self.level < lowest
            else TierFit.ABOVE
            if self.level > recommended + LEVEL_CLOSE
            else TierFit.FITS
        )
        return TierMatch(
            fit,
            distance,
            f"level {lowest}",
            effort=1.0 + EFFORT_PER_LEVEL * (self.level - recommended),
            rating=f"level {self.level} against a {tier.value} quest for level {recommended}",
        )


class LevelChallenge:
    """Rates by ``CharacterStats.level`` (a character without stats is level 1)."""

    def __init__(self, world: World) -> None:
        self.world = world

    def level(self, entity: UUID) -> int | None:
        stats = self.world.try_component(entity, CharacterStats)
        return stats.level if stats is not None else None

    def standing_of(self, character: UUID) -> LevelStanding:
        return LevelStanding(self.level(character) or 1)

    def tier_of_threats(self, threats: Sequence[UUID]) -> DifficultyTier | None:
        levels = [lv for lv in (self.level(t) for t in threats) if lv is not None]
        if not levels:
            return None
        return tier_for_level(max(levels) + (1 if len(threats) > CROWD else 0))
