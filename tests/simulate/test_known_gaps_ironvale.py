"""Quality targets Ironvale used to miss on seed 5 (seven game days, five bots),
kept as tests once their gaps closed. A target it still misses is a known gap of
docs/simulate.md, marked ``xfail(strict=True)`` (tests/test_docs_gaps.py keeps the
doc's list and the markers in step)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from classic_rpg.simulate import SimulationOptions, run_simulation

pytestmark = pytest.mark.slow

DAYS = 7


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    # Synchronous and module-scoped: one run for every test of the module.
    return asyncio.run(run_simulation(SimulationOptions(days=DAYS, bots=5, seed=5, progress=False)))


def test_the_run_measured_what_the_gaps_are_about(report: dict[str, Any]) -> None:
    """So that the gaps below fail on their targets, not on an empty run."""
    assert len(report["quests"]["per_game_day"]) == DAYS
    assert report["feasibility"]["quests"] > 0


def test_every_game_day_has_two_to_five_quests(report: dict[str, Any]) -> None:
    """The daily floor takes up the situations still live and the signals turned
    down; a burst late in one day still fills the next day's rolling window."""
    per_day = report["quests"]["per_game_day"]
    assert all(2 <= n <= 5 for n in per_day), per_day


def test_every_supply_quest_is_attempted_by_a_bot_of_its_level(report: dict[str, Any]) -> None:
    """Was a known gap on seed 5; since cleared bandits stay away until they regroup,
    no supply quest of the run goes unattempted (kept so it stays so)."""
    missed = [q for q in report["feasibility"]["not_completed"] if q["archetype"] == "supply_chain"]
    assert missed == [], json.dumps(missed, indent=1)[:2000]
