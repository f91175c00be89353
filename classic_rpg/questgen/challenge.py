"""The classic RPG's rating of characters and threats against difficulty tiers:
character levels.

Each tier has a recommended level (:data:`RPG_TIER_LEVELS`); its minimum is one
below, since a quest one level above you is fair. A character within
:data:`LEVEL_CLOSE` levels of the recommended level is a close match, within
:data:`LEVEL_NEAR` still offered the quest; more than ``LEVEL_CLOSE`` above it
has outgrown the tier. Threats are rated by the strongest foe's level (one more
when there are more than three of them), and then by the fight itself: a tier
whose minimum level would lose the duel against one of the foes is not enough,
the next one up is tried (:func:`wins_duel`). The stdlib reads all of this through
``WorldFacts.challenge`` (:class:`maid_stdlib.questgen.challenge.ChallengeRating`).

A character's ``effort`` against a tier (how much of its work suits them, which
per-character difficulty scales a quest by at acceptance) moves by
:data:`EFFORT_PER_LEVEL` per level from the recommended level.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final
from uuid import UUID

from classic_rpg.characters.levels import START_HEALTH, health_per_level
from classic_rpg.combat.formulas import UNARMED, Defense, Offense, defense_of, expected_damage
from classic_rpg.combat.formulas import offense_of as _offense_of
from classic_rpg.components import CharacterStats, Health
from classic_rpg.items.data import ItemStatsData
from maid_engine.ecs import World
from maid_stdlib.questgen import DifficultyTier
from maid_stdlib.questgen.challenge import TierDistance, TierFit, TierMatch

__all__ = [
    "DUEL_RESERVE",
    "EFFORT_PER_LEVEL",
    "LEVEL_CLOSE",
    "LEVEL_NEAR",
    "RPG_TIER_LEVELS",
    "Foe",
    "Kit",
    "LevelChallenge",
    "LevelStanding",
    "min_level",
    "recommended_level",
    "starting_kit",
    "tier_for_level",
    "wins_duel",
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
#: Share of its health a character must still have when the foe falls for the fight
#: to count as won: the rolls vary round by round, and a fighter who ends a fight
#: on its last breath has lost it as often as not.
DUEL_RESERVE: Final = 0.25
#: The item tier a character starts out with: the common gear any village sells.
STARTING_TIER: Final = 1


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
class Kit:
    """What the rating assumes a character fights with: the damage range of its
    weapon (bare hands without one) and the armour it wears, all slots together."""

    damage: tuple[int, int] = UNARMED
    armor: int = 0


def starting_kit(items: Iterable[ItemStatsData]) -> Kit:
    """The best common (tier 1) weapon and the best common armour of each slot
    among ``items`` (the packs' item templates): what a new character can fit
    itself out with before its first fight."""
    weapon: tuple[int, int] | None = None
    armour: dict[str, int] = {}
    for stats in items:
        if stats.tier > STARTING_TIER or stats.slot is None:
            continue
        if stats.slot == "weapon":
            if stats.damage is not None and (weapon is None or sum(stats.damage) > sum(weapon)):
                weapon = stats.damage
        elif stats.armor > armour.get(stats.slot, 0):
            armour[stats.slot] = stats.armor
    return Kit(weapon or UNARMED, sum(armour.values()))


@dataclass(frozen=True)
class Foe:
    """A foe's fighting numbers, as the combat rules use them."""

    offense: Offense
    defense: Defense
    health: int


def character_health(level: int) -> int:
    """The maximum health of a player character of ``level`` with average
    attributes (it grows by the same step each level up)."""
    return START_HEALTH + health_per_level(None) * (max(1, level) - 1)


def wins_duel(level: int, kit: Kit, foe: Foe) -> bool:
    """Whether a player character of ``level`` (average attributes, fresh, in
    ``kit``) beats ``foe`` one to one, by the combat rules' expected damage per
    round (misses included): it needs as many rounds as the foe's health over its
    own damage a round, and the foe hits back each of them; it wins if
    :data:`DUEL_RESERVE` of its health is left."""
    attacker = Offense(kit.damage[0], kit.damage[1], level // 2, level, 10, "kit")
    defender = Defense(kit.armor, level, 10)
    rounds = math.ceil(foe.health / expected_damage(attacker, foe.defense))
    taken = rounds * expected_damage(foe.offense, defender)
    return taken <= (1.0 - DUEL_RESERVE) * character_health(level)


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
    """Rates by ``CharacterStats.level`` (a character without stats is level 1),
    and threats by the duel a character of a tier's minimum level would fight with
    them in the starting kit of ``items`` (the packs' item templates, read when a
    quest is rated: packs load, and reload, after the rating is installed; none:
    bare hands)."""

    def __init__(
        self, world: World, items: Callable[[], Iterable[ItemStatsData]] | None = None
    ) -> None:
        self.world = world
        self.items = items

    @property
    def kit(self) -> Kit:
        return starting_kit(self.items()) if self.items is not None else Kit()

    def level(self, entity: UUID) -> int | None:
        stats = self.world.try_component(entity, CharacterStats)
        return stats.level if stats is not None else None

    def standing_of(self, character: UUID) -> LevelStanding:
        return LevelStanding(self.level(character) or 1)

    def foe(self, entity: UUID) -> Foe | None:
        """``entity``'s fighting numbers (None: it cannot fight)."""
        health = self.world.try_component(entity, Health)
        if health is None or self.level(entity) is None:
            return None
        world = self.world
        return Foe(_offense_of(world, entity), defense_of(world, entity), health.maximum)

    def tier_of_threats(self, threats: Sequence[UUID]) -> DifficultyTier | None:
        levels = [lv for lv in (self.level(t) for t in threats) if lv is not None]
        if not levels:
            return None
        tier = tier_for_level(max(levels) + (1 if len(threats) > CROWD else 0))
        foes = [f for f in (self.foe(t) for t in threats) if f is not None]
        kit = self.kit
        order = list(DifficultyTier)
        # The foe's level alone misjudges a foe built strong for it (the bandit
        # chief): the tier's weakest allowed character must win each duel too.
        for candidate in order[order.index(tier) :]:
            tier = candidate
            if all(wins_duel(min_level(tier), kit, f) for f in foes):
                break
        return tier
