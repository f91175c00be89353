"""Bots do not finish everything: each proper attempt draws a fate from the bot's
own seeded random source (settle for part of the job, come too late, or play it
through), so outcomes vary and a run reproduces."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from classic_rpg.simulate.coordinator import (
    LATE_SHARE,
    LATE_WITHIN,
    SETTLE_SHARE,
    Coordinator,
    QuestInfo,
)


class _Manager:
    def __init__(self, required: int) -> None:
        self.required = required

    def get_quest(self, quest_id: str) -> Any:
        return SimpleNamespace(required=[object()] * self.required)


class _Generation:
    def __init__(self, expiry: float, depth: int = 0) -> None:
        self.expiry = expiry
        self.depth = depth

    def open_quest(self, quest_id: str) -> Any:
        return SimpleNamespace(quest=SimpleNamespace(expiry=self.expiry, chain_depth=self.depth))


def fates(
    seed: int, required: int = 3, expiry: float = 3600.0, n: int = 400, depth: int = 0
) -> list[str]:
    # Only what ``_fate`` reads: the quest's required objectives and its expiry.
    coordinator = object.__new__(Coordinator)
    coordinator.manager = _Manager(required)  # type: ignore[assignment]
    coordinator.generation = _Generation(expiry, depth)  # type: ignore[assignment]
    bot = SimpleNamespace(fate_rng=random.Random(seed))
    info = QuestInfo("q", "threat_elimination", "threat_response", 0.0, 4, 3, ())
    return [coordinator._fate(bot, info, 0.0) for _ in range(n)]  # type: ignore[arg-type]


def test_fates_come_from_the_bots_seeded_source_in_their_shares() -> None:
    drawn = fates(11)
    assert drawn == fates(11)  # reproducible
    assert drawn != fates(12)
    settles, late = drawn.count("settles") / len(drawn), drawn.count("late") / len(drawn)
    assert abs(settles - SETTLE_SHARE) < 0.06
    assert abs(late - LATE_SHARE) < 0.05


def test_no_settling_for_half_of_one_objective_nor_lateness_for_a_distant_expiry() -> None:
    assert "settles" not in fates(11, required=1)
    assert "late" not in fates(11, expiry=LATE_WITHIN + 1.0)


def test_a_chains_follow_up_is_played_through() -> None:
    assert set(fates(11, depth=1)) == {""}
