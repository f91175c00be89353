"""The quest economy's acceptance check on two pinned seeds of Ironvale (seven game
days, four bots): what ``maid simulate --acceptance`` checks over ten seeds (see
docs/simulate.md), as properties that must hold on any seed, not figures of one.

One simulation per seed (about 12-35 s each) serves every test of the module.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from classic_rpg.simulate import SimulationOptions, run_simulation
from classic_rpg.simulate.acceptance import criteria

pytestmark = pytest.mark.slow

DAYS = 7
SEEDS = (2, 4)
#: The seeds a quest must fail outright on. A seed where a check still misses
#: carries its known gap on its own parameter (``marks=pytest.mark.xfail(
#: strict=True, reason="known gap (docs/simulate.md): ...")``, listed in the doc
#: as ``test_name[seedN]``), so the others still must pass.
FAILING_SEEDS = [
    pytest.param(2, id="seed2"),
    pytest.param(4, id="seed4"),
]


@pytest.fixture(scope="module", params=SEEDS, ids=[f"seed{s}" for s in SEEDS])
def report(request: pytest.FixtureRequest) -> dict[str, Any]:
    options = SimulationOptions(days=DAYS, bots=4, seed=request.param, progress=False)
    return asyncio.run(run_simulation(options))


def _why(report: dict[str, Any], *keys: str) -> str:
    return json.dumps({k: report[k] for k in keys}, indent=1)[:4000]


def test_every_game_day_has_two_to_five_quests(report: dict[str, Any]) -> None:
    per_day = report["quests"]["per_game_day"]
    assert len(per_day) == DAYS
    assert all(2 <= n <= 5 for n in per_day), _why(report, "quests", "days")


def test_fewer_than_half_the_builds_are_rejected(report: dict[str, Any]) -> None:
    rate = report["rejections"]["rejection_rate"]
    assert rate is not None
    assert rate < 0.5, _why(report, "rejections")


def test_every_rejection_hold_and_drop_names_its_rule(report: dict[str, Any]) -> None:
    rejections = report["rejections"]
    assert sum(rejections["by_rule"].values()) >= sum(rejections["by_stage"].values())
    for key in ("by_rule", "held_by_rule", "dropped_by_rule", "signals_turned_down_by_rule"):
        assert all(rule.strip(", ") for rule in rejections[key]), rejections[key]
    for day in report["days"]:
        for key in ("rejected_by_rule", "held_by_rule", "dropped_by_rule"):
            assert all(rule.strip() for rule in day[key]), day


def test_grounded_varied_chained_feasible_and_not_always_perfect(report: dict[str, Any]) -> None:
    checks = criteria(report)
    for column in ("grounded", "variety", "chain", "short", "feasible"):
        assert checks[column], (column, _why(report, "feasibility", "chains", "outcomes"))


def test_every_archetype_appears(report: dict[str, Any]) -> None:
    assert report["variety"]["missing_archetypes"] == [], _why(report, "variety")


def test_no_giver_gives_more_than_thirty_percent_of_a_day(report: dict[str, Any]) -> None:
    assert criteria(report)["givers"], _why(report, "quests", "days")


@pytest.mark.parametrize("report", FAILING_SEEDS, indirect=True)
def test_some_quest_fails_outright(report: dict[str, Any]) -> None:
    """Not only partial successes: a bot too weak for the fight that comes before
    half the job loses it, owns up to the giver (``turnin <quest> confirm``) and the
    quest is graded FAILED, with its own consequences (told as someone who tried)."""
    assert report["outcomes"].get("failed", 0) >= 1, _why(report, "outcomes", "feasibility")
    failures = report["consequences"]["failures"]
    owned_up = [f for f in failures if f["outcome"] == "failed" and f["tried"]]
    assert owned_up, failures
    # The giver remembers the one who took it on and failed.
    assert all(any(m.endswith(", and failed.") for m in f["memories"]) for f in owned_up)


def test_failures_tell_apart_nobody_coming_from_someone_failing(report: dict[str, Any]) -> None:
    """Every failure's consequences say which it was: one someone tried never says
    "nobody came" and the giver remembers who took it on; one nobody tried says
    nobody came. (Bots too weak, too late or quitting make failures happen.)"""
    failures = report["consequences"]["failures"]
    tried = [f for f in failures if f["tried"]]
    outcomes = report["outcomes"]
    # every failed or abandoned attempt had its consequences, told as tried
    assert len(tried) >= outcomes.get("failed", 0) + outcomes.get("abandoned", 0), failures
    for f in tried:
        words = f["memories"] + f["gossip"]
        assert not any(w.startswith("Nobody") for w in words), f
        assert any(" took on " in m for m in f["memories"]), f
    for f in failures:
        if not f["tried"] and f["memories"]:
            assert any(m.startswith("Nobody came") for m in f["memories"]), f
