"""How a character measures up to a difficulty tier: the seam between the stdlib's
tiers and a rules layer's idea of how strong a character is.

A :class:`~maid_stdlib.questgen.quest.DifficultyTier` is only an ordinal of how
hard a quest is. What makes a character ready for a tier (in a classic RPG, its
character level) belongs to the rules layer, which provides a
:class:`ChallengeRating` as ``WorldFacts.challenge``. The stdlib asks it two
things: how a character's :class:`Standing` compares to a tier (delivery
matching and the per-character offer lines), and which tier a set of threats
amounts to (a quest's estimated difficulty).

Without a rules layer the stdlib uses :data:`NEUTRAL_CHALLENGE`: every character
fits every tier closely, and threats name no tier, so a quest's difficulty
follows the number of threats and the seed's importance alone, and matching
weighs everything but readiness.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

from maid_stdlib.questgen.quest import DifficultyTier

__all__ = [
    "NEUTRAL_CHALLENGE",
    "ChallengeRating",
    "NeutralChallenge",
    "Standing",
    "TierDistance",
    "TierFit",
    "TierMatch",
]


class TierFit(enum.StrEnum):
    """Where a character stands against a tier."""

    #: Not ready for it: the offer says the work is for someone more seasoned.
    BELOW = "below"
    FITS = "fits"
    #: Outgrown it: the offer says the work should be easy.
    ABOVE = "above"


class TierDistance(enum.StrEnum):
    """How far a character is from a tier, as delivery matching weighs it."""

    #: A good match (scores best).
    CLOSE = "close"
    #: Still offered, weighed less.
    NEAR = "near"
    #: Not offered to the character at all.
    FAR = "far"


@dataclass(frozen=True)
class TierMatch:
    fit: TierFit
    distance: TierDistance
    #: How the rules layer names what the tier asks of a character ("level 3"),
    #: shown when the character is BELOW it; empty says nothing more.
    requirement: str = ""
    #: How much of the tier's work suits the character: 1.0 exactly its measure,
    #: above 1 more (a veteran), below 1 less. Per-character difficulty
    #: (``maid_stdlib.questgen.scaling``) scales a quest's counts by it at acceptance.
    effort: float = 1.0
    #: The rules layer's words for the character against the tier ("level 2 against
    #: a quest for level 4"), recorded as the reason of a scaling; empty says nothing.
    rating: str = ""


class Standing(Protocol):
    """One character's standing, read once when its matching profile is built."""

    def against(self, tier: DifficultyTier) -> TierMatch: ...


class ChallengeRating(Protocol):
    """The rules layer's measure of characters and threats against tiers."""

    def standing_of(self, character: UUID) -> Standing: ...

    def tier_of_threats(self, threats: Sequence[UUID]) -> DifficultyTier | None:
        """The tier fighting ``threats`` amounts to; None when the rules layer
        cannot rate them (the stdlib then goes by their number)."""
        ...


class _NeutralStanding:
    def against(self, tier: DifficultyTier) -> TierMatch:
        return TierMatch(TierFit.FITS, TierDistance.CLOSE)


class NeutralChallenge:
    """Without a rules layer: every tier fits every character; threats are unrated."""

    _standing = _NeutralStanding()

    def standing_of(self, character: UUID) -> Standing:
        return self._standing

    def tier_of_threats(self, threats: Sequence[UUID]) -> DifficultyTier | None:
        return None


NEUTRAL_CHALLENGE = NeutralChallenge()
