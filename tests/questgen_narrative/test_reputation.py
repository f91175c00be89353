"""Reputation labels from trust (the band thresholds)."""

from __future__ import annotations

import math

import pytest

from maid_stdlib.living.components import Relationship
from maid_stdlib.questgen.narrative import ReputationLabel, describe_reputation, reputation_label


@pytest.mark.parametrize(
    ("trust", "label"),
    [
        (1.0, ReputationLabel.TRUSTED_ALLY),
        (0.7, ReputationLabel.TRUSTED_ALLY),
        (0.69, ReputationLabel.FRIENDLY),
        (0.3, ReputationLabel.FRIENDLY),
        (0.29, ReputationLabel.NEUTRAL),
        (0.0, ReputationLabel.NEUTRAL),
        (-0.3, ReputationLabel.NEUTRAL),
        (-0.31, ReputationLabel.WARY),
        (-0.7, ReputationLabel.WARY),
        (-0.71, ReputationLabel.DISTRUSTED),
        (-1.0, ReputationLabel.DISTRUSTED),
    ],
)
def test_thresholds(trust: float, label: ReputationLabel) -> None:
    assert reputation_label(trust) is label
    assert reputation_label(Relationship(trust=trust)) is label


def test_phrases() -> None:
    assert describe_reputation(None) == "stranger (no prior interaction)"
    assert describe_reputation(0.8) == "trusted ally"
    assert describe_reputation(0.5) == "friendly acquaintance"
    assert describe_reputation(-0.5) == "wary"
    assert describe_reputation(-0.9) == "distrusted"
    assert ReputationLabel.WARY.value == "wary"


def test_nan_is_neutral_not_distrusted() -> None:
    assert reputation_label(math.nan) is ReputationLabel.NEUTRAL
