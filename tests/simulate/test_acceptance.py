"""``maid simulate --acceptance``: one table over several seeds, each column one
criterion of the quest economy's acceptance check, read from each run's report."""

from __future__ import annotations

import contextlib
import copy
import io
import json
from typing import Any

import pytest

from classic_rpg.simulate.acceptance import CRITERIA, criteria, result_of, table
from maid_engine.cli import main as maid_main


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("acceptance") / "acceptance.json"
    args = ["simulate", "--acceptance", "--seeds", "3,4", "--days", "1", "--bots", "2"]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = maid_main([*args, "--drain-hours", "1", "--json", str(out)])
    return code, buffer.getvalue(), json.loads(out.read_text(encoding="utf-8"))


def test_the_table_has_a_row_per_seed_and_a_column_per_criterion(
    runs: tuple[int, str, list[dict[str, Any]]],
) -> None:
    code, printed, rows = runs
    assert printed.startswith("acceptance: 2 seed(s) x 1 game days x 2 bots")
    header = next(line for line in printed.splitlines() if line.lstrip().startswith("seed "))
    assert header.split()[1:-1] == list(CRITERIA)
    assert [r["seed"] for r in rows] == [3, 4]
    for r in rows:
        assert set(r["checks"]) == set(CRITERIA)
        assert r["passed"] == all(r["checks"].values())
        assert len(r["per_day"]) == 1
    assert printed.rstrip().endswith(f"{sum(r['passed'] for r in rows)}/2 passed")
    assert code == (0 if all(r["passed"] for r in rows) else 1)


def test_bad_seeds_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert maid_main(["simulate", "--acceptance", "--seeds", "one,two"]) == 2
    assert "--seeds takes comma-separated numbers" in capsys.readouterr().err
    assert maid_main(["simulate", "--seeds", "1,2"]) == 2
    assert "--seeds goes with --acceptance" in capsys.readouterr().err


def _report() -> dict[str, Any]:
    """A report every criterion passes."""
    return {
        "targets": {
            "quests_per_day": True,
            "grounded": True,
            "chain_depth": True,
            "variety": True,
            "feasibility": True,
            "givers_spread": True,
        },
        "variety": {"missing_archetypes": []},
        "outcomes": {"perfect": 5, "partial_success": 1},
        "rejections": {"rejection_rate": 0.2},
        "quests": {"per_game_day": [2, 3]},
        "chains": {"max_depth": 2},
        "simulation": {"wall_seconds": 1.5},
    }


@pytest.mark.parametrize(
    ("column", "spoil"),
    [
        ("per_day", lambda r: r["targets"].update(quests_per_day=False)),
        ("archetypes", lambda r: r["variety"].update(missing_archetypes=["rescue_mission"])),
        ("short", lambda r: r.update(outcomes={"perfect": 6})),
        ("rejections", lambda r: r["rejections"].update(rejection_rate=0.5)),
        ("givers", lambda r: r["targets"].update(givers_spread=False)),
    ],
)
def test_each_column_fails_on_its_own_criterion(column: str, spoil: Any) -> None:
    good = _report()
    assert all(criteria(good).values())
    bad = copy.deepcopy(good)
    spoil(bad)
    checks = criteria(bad)
    assert [name for name, ok in checks.items() if not ok] == [column]
    result = result_of(7, bad)
    assert not result.passed
    assert "FAIL" in table([result_of(6, good), result])
    assert table([result_of(6, good), result]).endswith("1/2 passed")


def test_a_failed_quest_counts_as_one_that_did_not_end_in_full_success() -> None:
    report = _report()
    report["outcomes"] = {"perfect": 4, "expired": 1}
    assert criteria(report)["short"]


def test_the_json_rows_say_what_each_seed_measured() -> None:
    row = result_of(9, _report()).as_dict()
    assert row["seed"] == 9
    assert row["per_day"] == [2, 3]
    assert row["rejection_rate"] == 0.2
    assert row["max_chain_depth"] == 2
    assert json.loads(json.dumps(row)) == row
