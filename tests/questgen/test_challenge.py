"""Difficulty tiers against characters without RPG levels: the stdlib's matching
with the neutral challenge rating, and with a rules layer's rating (a fake)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from uuid import UUID

from questgen.qgkit import Town, iron_quest

from maid_stdlib.questgen import (
    NEUTRAL_CHALLENGE,
    DifficultyTier,
    GeneratedQuest,
    NeutralChallenge,
    TierDistance,
    TierFit,
    TierMatch,
)
from maid_stdlib.questgen.enrich import estimate_difficulty
from maid_stdlib.questgen.personalization import (
    PlayerProfile,
    PlayStyleTracker,
    QuestPersonalizer,
)

SEASONED = "This is work for someone more seasoned than you"
EASY_WORK = "It should be easy work for someone of your experience."


class FakeStanding:
    def __init__(self, matches: dict[DifficultyTier, TierMatch]) -> None:
        self.matches = matches
        self.asked: list[DifficultyTier] = []

    def against(self, tier: DifficultyTier) -> TierMatch:
        self.asked.append(tier)
        return self.matches[tier]


class FakeChallenge:
    """A rules layer that rates by something other than levels (ranks, say)."""

    def __init__(
        self, matches: dict[DifficultyTier, TierMatch], threat_tier: DifficultyTier | None
    ) -> None:
        self.standing = FakeStanding(matches)
        self.threat_tier = threat_tier
        self.characters: list[UUID] = []
        self.threats: list[list[UUID]] = []

    def standing_of(self, character: UUID) -> FakeStanding:
        self.characters.append(character)
        return self.standing

    def tier_of_threats(self, threats: Sequence[UUID]) -> DifficultyTier | None:
        self.threats.append(list(threats))
        return self.threat_tier


def _personalizer(town: Town) -> QuestPersonalizer:
    tracker = PlayStyleTracker(town.engine, 3600.0)
    return QuestPersonalizer(town.qg.facts, tracker, town.qg.archetypes)


def _at(quest: GeneratedQuest, tier: DifficultyTier) -> GeneratedQuest:
    return dataclasses.replace(quest, difficulty=tier)


def _tier_lines(
    personalizer: QuestPersonalizer, quest: GeneratedQuest, profile: PlayerProfile
) -> list[str]:
    lines, _ = personalizer.narrative_additions(quest, profile)
    return [line for line in lines if line.startswith(SEASONED) or line == EASY_WORK]


async def test_without_a_rules_layer_every_tier_fits_every_character(town: Town) -> None:
    facts = town.qg.facts
    assert facts.challenge is NEUTRAL_CHALLENGE
    assert isinstance(facts.challenge, NeutralChallenge)
    quest: GeneratedQuest = await iron_quest(town)
    personalizer = _personalizer(town)
    character = town.engine.world.create_entity()
    profile = personalizer.build_profile(character, [])
    scores = set()
    for tier in DifficultyTier:
        match = profile.standing.against(tier)
        assert match == TierMatch(TierFit.FITS, TierDistance.CLOSE)
        at_tier = _at(quest, tier)
        assert personalizer.is_eligible(at_tier, profile)
        scores.add(personalizer.score_match(at_tier, profile))
        assert _tier_lines(personalizer, at_tier, profile) == []
    # The tier changes nothing; the close match counts +0.3 in every one of them.
    assert len(scores) == 1
    assert scores.pop() >= 0.3
    # Threats are unrated: difficulty follows how many there are, then importance.
    wolves = [*town.wolves, town.alpha]
    assert len(wolves) == 3
    assert estimate_difficulty(facts, wolves, 0.1) is DifficultyTier.MODERATE
    assert estimate_difficulty(facts, wolves[:2], 0.9) is DifficultyTier.EASY
    assert estimate_difficulty(facts, [], 0.4) is DifficultyTier.EASY
    assert estimate_difficulty(facts, [], 0.9) is DifficultyTier.HARD


async def test_the_rules_layers_rating_decides_matching_and_the_offer_lines(town: Town) -> None:
    t = DifficultyTier
    fake = FakeChallenge(
        {
            t.TRIVIAL: TierMatch(TierFit.ABOVE, TierDistance.NEAR),
            t.EASY: TierMatch(TierFit.FITS, TierDistance.CLOSE),
            t.MODERATE: TierMatch(TierFit.BELOW, TierDistance.CLOSE, "rank 3"),
            t.HARD: TierMatch(TierFit.BELOW, TierDistance.NEAR),
            t.EPIC: TierMatch(TierFit.BELOW, TierDistance.FAR, "rank 9"),
        },
        threat_tier=t.HARD,
    )
    town.qg.facts.challenge = fake
    quest: GeneratedQuest = await iron_quest(town)
    personalizer = _personalizer(town)
    character = town.engine.world.create_entity()
    profile = personalizer.build_profile(character, [])
    assert fake.characters == [character]
    assert profile.standing is fake.standing

    close = personalizer.score_match(_at(quest, t.EASY), profile)
    # A near match is offered but weighs 0.2 less; a far one is not offered.
    assert personalizer.score_match(_at(quest, t.TRIVIAL), profile) == round(close - 0.2, 4)
    assert personalizer.score_match(_at(quest, t.HARD), profile) == round(close - 0.2, 4)
    assert personalizer.score_match(_at(quest, t.MODERATE), profile) == close
    assert personalizer.score_match(_at(quest, t.EPIC), profile) == 0.0
    assert [personalizer.is_eligible(_at(quest, tier), profile) for tier in t] == [
        True,
        True,
        True,
        True,
        False,
    ]
    lines = {tier: _tier_lines(personalizer, _at(quest, tier), profile) for tier in t}
    assert lines == {
        t.TRIVIAL: [EASY_WORK],
        t.EASY: [],
        t.MODERATE: [f"{SEASONED} (rank 3)."],
        t.HARD: [f"{SEASONED}."],  # no requirement named: nothing more said
        t.EPIC: [f"{SEASONED} (rank 9)."],
    }

    # The quest's difficulty is the rating of its threats, whatever their number.
    facts = town.qg.facts
    assert fake.threats, "building the quest rated its threats"
    fake.threats.clear()
    assert estimate_difficulty(facts, [town.alpha], 0.1) is t.HARD
    assert fake.threats == [[town.alpha]]
    fake.threat_tier = None  # unrated: by their number again
    assert estimate_difficulty(facts, town.wolves, 0.1) is t.EASY
    # No threats: nothing to rate, the rating is not asked.
    assert estimate_difficulty(facts, [], 0.9) is t.HARD
    assert fake.threats == [[town.alpha], town.wolves]
