"""The classic RPG's challenge rating: difficulty tiers by character level."""

from __future__ import annotations

from typing import Any

import pytest
from kits.engines import npc, npcs

from classic_rpg.combat.formulas import Defense, Offense
from classic_rpg.components import CharacterStats, Health
from classic_rpg.items.data import ItemStatsData
from classic_rpg.questgen import (
    EFFORT_PER_LEVEL,
    RPG_TIER_LEVELS,
    LevelChallenge,
    LevelStanding,
    min_level,
    recommended_level,
    tier_for_level,
)
from classic_rpg.questgen.challenge import Foe, Kit, character_health, starting_kit, wins_duel
from maid_engine.engine import GameEngine
from maid_stdlib.questgen import DifficultyTier, QuestGen, TierDistance, TierFit, TierMatch

T = DifficultyTier


def test_each_tier_has_its_recommended_and_minimum_level() -> None:
    table = {tier: (min_level(tier), recommended_level(tier)) for tier in T}
    assert table == {
        T.TRIVIAL: (1, 1),
        T.EASY: (1, 2),
        T.MODERATE: (3, 4),
        T.HARD: (6, 7),
        T.EPIC: (9, 10),
    }
    assert RPG_TIER_LEVELS == {tier: rec for tier, (_, rec) in table.items()}


@pytest.mark.parametrize(
    ("level", "tier"),
    [(0, T.TRIVIAL), (1, T.TRIVIAL), (3, T.EASY), (4, T.MODERATE), (6, T.MODERATE),
     (6.9, T.MODERATE), (7, T.HARD), (10, T.EPIC), (50, T.EPIC)],
)  # fmt: skip
def test_a_level_falls_in_the_highest_tier_it_reaches(level: float, tier: DifficultyTier) -> None:
    assert tier_for_level(level) is tier


@pytest.mark.parametrize("level", range(1, 17))
@pytest.mark.parametrize("tier", list(T))
def test_a_levels_standing_is_the_level_gap(level: int, tier: DifficultyTier) -> None:
    # Matching as it has always gone: within 2 levels of the recommended level
    # close, within 5 near, else not offered; below the minimum level the offer
    # names it, more than 2 above the recommended level the work is easy. The
    # effort (per-character difficulty) moves a quarter per level from the
    # recommended level, and the rating names both levels.
    rec = recommended_level(tier)
    gap = abs(level - rec)
    distance = (gap <= 2 and "close") or (gap <= 5 and "near") or "far"
    fit = (level < max(1, rec - 1) and "below") or (level > rec + 2 and "above") or "fits"
    assert LevelStanding(level).against(tier) == TierMatch(
        TierFit(fit),
        TierDistance(distance),
        f"level {max(1, rec - 1)}",
        effort=pytest.approx(1.0 + EFFORT_PER_LEVEL * (level - rec)),  # type: ignore[arg-type]
        rating=f"level {level} against a {tier.value} quest for level {rec}",
    )


async def test_levels_come_from_character_stats(hamlet: GameEngine) -> None:
    engine = hamlet
    challenge = engine.services.get(QuestGen).facts.challenge
    assert isinstance(challenge, LevelChallenge)
    grey, wolves = npc(engine, "hamlet:old_grey"), npcs(engine, "hamlet:wolf")
    assert challenge.level(grey) == 5
    # A character without stats stands at level 1.
    nobody = engine.world.create_entity()
    assert challenge.level(nobody) is None
    assert challenge.standing_of(nobody) == LevelStanding(1)
    engine.world.get_component(grey, CharacterStats).level = 0
    assert challenge.standing_of(grey) == LevelStanding(1)
    engine.world.get_component(grey, CharacterStats).level = 5
    assert challenge.standing_of(grey) == LevelStanding(5)
    # Threats: the strongest foe's level (5: moderate), as long as the tier's weakest
    # character wins the fight. Nobody in the hamlet has a weapon: a level 3
    # character beats Old Grey (20 health, 1-4 a bite) bare-handed ...
    assert challenge.kit == Kit()
    foe = challenge.foe(grey)
    assert foe is not None
    assert foe.health == 20
    assert wins_duel(min_level(T.MODERATE), challenge.kit, foe)
    assert challenge.tier_of_threats([grey]) is T.MODERATE
    # ... but not a Grey of 50 health: the tier goes up until its weakest wins.
    engine.world.get_component(grey, Health).maximum = 50
    assert not wins_duel(min_level(T.MODERATE), challenge.kit, challenge.foe(grey))  # type: ignore[arg-type]
    assert challenge.tier_of_threats([grey]) is T.HARD
    engine.world.get_component(grey, Health).maximum = 20
    assert challenge.tier_of_threats([nobody]) is None
    assert challenge.tier_of_threats([]) is None
    # One level more when there are more than three.
    crowd = [grey, *wolves, nobody, nobody, nobody][:5]
    assert len(crowd) == 5
    engine.world.get_component(grey, CharacterStats).level = 6
    assert challenge.tier_of_threats([grey]) is T.MODERATE
    assert challenge.tier_of_threats(crowd) is T.HARD


# A bandit chief: level 5, 50 health, 2-7 with strength 14 (+2), armour 2.
CHIEF = Foe(Offense(2, 7, 2, 5, 10, "natural"), Defense(2, 5, 10), 50)
#: A common sword (2-6) and leather armour (2).
COMMON = Kit((2, 6), 2)


@pytest.mark.parametrize(("level", "wins"), [(3, False), (4, False), (5, False), (6, True)])
def test_a_duel_is_judged_by_the_combat_rules(level: int, wins: bool) -> None:
    # Level 5 in common gear: 3-7 (+2, less 1 for his armour) at 75% takes 3.75 a
    # round, 14 rounds for his 50; he deals 3-8 at 75%, 4.125 a round, 57.75 in all,
    # more than three quarters of its 70. Level 6: 11 rounds, 42.35 of its 80.
    assert character_health(level) == 30 + 10 * (level - 1)
    assert wins_duel(level, COMMON, CHIEF) is wins


def test_a_foe_built_to_its_level_is_beaten_by_its_tiers_weakest() -> None:
    # A bandit scout (level 2, 18 health, 1-4, armour 1): a level 1 character in
    # common gear needs 7 rounds (2.8 a round) and takes 1.6 a round, 11.2 of 30.
    scout = Foe(Offense(1, 4, 0, 2, 10, "natural"), Defense(1, 2, 10), 18)
    assert wins_duel(1, COMMON, scout)
    assert not wins_duel(1, Kit(), CHIEF)


def test_the_starting_kit_is_the_best_common_weapon_and_armour() -> None:
    def item(
        tier: int, slot: Any, damage: tuple[int, int] | None = None, armor: int = 0
    ) -> ItemStatsData:
        return ItemStatsData(tier=tier, slot=slot, damage=damage, armor=armor)

    items = [
        item(1, "weapon", (1, 5)),
        item(1, "weapon", (2, 6)),
        item(2, "weapon", (3, 8)),  # fine gear is had later, not at the start
        item(1, "body", armor=2),
        item(1, "body", armor=1),
        item(1, "head", armor=1),
        item(2, "head", armor=3),
        item(1, None),
    ]
    assert starting_kit(items) == Kit((2, 6), 3)
    assert starting_kit([]) == Kit((1, 3), 0)
