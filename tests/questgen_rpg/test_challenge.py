"""The classic RPG's challenge rating: difficulty tiers by character level."""

from __future__ import annotations

import pytest
from kits.engines import npc, npcs

from classic_rpg.components import CharacterStats
from classic_rpg.questgen import (
    EFFORT_PER_LEVEL,
    RPG_TIER_LEVELS,
    LevelChallenge,
    LevelStanding,
    min_level,
    recommended_level,
    tier_for_level,
)
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
    # Threats: the strongest foe's level, one more when there are more than three.
    assert challenge.tier_of_threats([grey]) is T.MODERATE
    assert challenge.tier_of_threats([nobody]) is None
    assert challenge.tier_of_threats([]) is None
    crowd = [grey, *wolves, nobody, nobody, nobody][:5]
    assert len(crowd) == 5
    engine.world.get_component(grey, CharacterStats).level = 6
    assert challenge.tier_of_threats([grey]) is T.MODERATE
    assert challenge.tier_of_threats(crowd) is T.HARD
