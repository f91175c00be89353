"""Reputation labels: how an NPC regards one character, in words.

Narrative and dialogue are generated once per quest, before any character is
matched, so these labels are NOT part of the generation prompts. They are for the
per-character layers that come later (personalization, delivery): choosing how
warmly a giver greets a player, or a line such as "Gundrik eyes you warily".
"""

from __future__ import annotations

import enum
import math
from typing import Protocol, runtime_checkable

__all__ = ["HasTrust", "ReputationLabel", "describe_reputation", "reputation_label"]


@runtime_checkable
class HasTrust(Protocol):
    """Anything with a ``trust`` in [-1, 1] (e.g. ``maid_stdlib.living`` Relationship)."""

    trust: float


class ReputationLabel(enum.StrEnum):
    """Bands of trust. The value is the stable id; :attr:`phrase` is for prose."""

    STRANGER = "stranger"
    TRUSTED_ALLY = "trusted_ally"
    FRIENDLY = "friendly"
    NEUTRAL = "neutral"
    WARY = "wary"
    DISTRUSTED = "distrusted"

    @property
    def phrase(self) -> str:
        return _PHRASES[self]


_PHRASES = {
    ReputationLabel.STRANGER: "stranger (no prior interaction)",
    ReputationLabel.TRUSTED_ALLY: "trusted ally",
    ReputationLabel.FRIENDLY: "friendly acquaintance",
    ReputationLabel.NEUTRAL: "neutral",
    ReputationLabel.WARY: "wary",
    ReputationLabel.DISTRUSTED: "distrusted",
}

#: Lower bounds (inclusive) of each band, highest first.
THRESHOLDS: tuple[tuple[float, ReputationLabel], ...] = (
    (0.7, ReputationLabel.TRUSTED_ALLY),
    (0.3, ReputationLabel.FRIENDLY),
    (-0.3, ReputationLabel.NEUTRAL),
    (-0.7, ReputationLabel.WARY),
)


def reputation_label(relationship: float | HasTrust | None) -> ReputationLabel:
    """The band for a trust value or a relationship; None means they never met."""
    if relationship is None:
        return ReputationLabel.STRANGER
    trust = relationship if isinstance(relationship, int | float) else relationship.trust
    trust = float(trust)
    if math.isnan(trust):
        # A corrupt value must not read as "distrusted" (every comparison with NaN
        # is False, so the naive cascade would fall through to the bottom band).
        return ReputationLabel.NEUTRAL
    for lower, label in THRESHOLDS:
        if trust >= lower:
            return label
    return ReputationLabel.DISTRUSTED


def describe_reputation(relationship: float | HasTrust | None) -> str:
    """The band's phrase: e.g. "trusted ally", "wary"."""
    return reputation_label(relationship).phrase
