"""The report's arithmetic: runs, entropy, percentiles, chains."""

from __future__ import annotations

import math
from typing import Any

import pytest

from classic_rpg.simulate.coordinator import Attempt, QuestInfo
from classic_rpg.simulate.report import (
    _chains,
    _not_completed_reason,
    entropy_bits,
    longest_run,
    percentile,
)


def test_longest_run_of_one_archetype() -> None:
    assert longest_run([]) == (0, None)
    assert longest_run(["a"]) == (1, "a")
    assert longest_run(["a", "b", "b", "a", "b", "b", "b"]) == (3, "b")
    assert longest_run(["a", "a", "b", "b"]) == (2, "a")


def test_entropy_in_bits() -> None:
    assert entropy_bits([]) == 0.0
    assert entropy_bits(["a", "a"]) == 0.0
    assert entropy_bits(["a", "b"]) == pytest.approx(1.0)
    assert entropy_bits(["a", "b", "c", "d"]) == pytest.approx(2.0)
    assert entropy_bits(["a", "a", "a", "b"]) == pytest.approx(
        -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))
    )


def test_nearest_rank_percentiles() -> None:
    assert percentile([], 0.5) == 0.0
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0


def test_chains_follow_the_history_parent_links() -> None:
    history: dict[str, dict[str, Any]] = {
        "q1": {"chain_depth": 0, "chain_parent_id": None},
        "q2": {"chain_depth": 1, "chain_parent_id": "q1"},
        "q3": {"chain_depth": 2, "chain_parent_id": "q2"},
        "q4": {"chain_depth": 0, "chain_parent_id": None},
        "q5": {"chain_depth": 1, "chain_parent_id": "q4"},
        "q6": {"chain_depth": 0, "chain_parent_id": None},
    }
    chains = _chains(history)
    assert chains["chains"] == 2
    assert chains["max_depth"] == 2
    assert chains["longest_chain"] == 3
    assert chains["quests_in_chains"] == 5
    assert _chains({}) == {"chains": 0, "quests_in_chains": 0, "max_depth": 0, "longest_chain": 0}
    assert _chains({"q": {"chain_depth": 0}})["longest_chain"] == 1


def test_why_a_quest_was_not_completed() -> None:
    info = QuestInfo("q", "threat_elimination", "threat_response", 0.0, 4, 3, ("combat",))

    def attempt(result: str, reason: str = "", counts: bool = True) -> Attempt:
        return Attempt("q", "Bot", "talker", 4, 0.0, 1.0, result, reason, counts)

    levels = [3, 4, 6]
    assert (
        _not_completed_reason(info, [attempt("invalidated", "Kral is gone")], None, levels)
        == "invalidated: Kral is gone"
    )
    assert (
        _not_completed_reason(
            info, [attempt("abandoned", "quits", counts=False)], ("expired", ""), levels
        )
        == "expired before a bot of the right level (levels 3-6) took it"
    )
    assert _not_completed_reason(
        info, [attempt("not_offered", "cap", counts=False)], None, levels
    ).startswith("never offered to a bot of the right level")
    assert "was free" in _not_completed_reason(info, [], None, levels)
    assert "bots start at [8]" in _not_completed_reason(info, [], None, [8])


def test_a_quest_ended_as_its_bot_chose_is_fated_not_infeasible() -> None:
    from classic_rpg.simulate.report import _feasibility

    info = QuestInfo("q", "threat_elimination", "threat_response", 0.0, 4, 3, ("combat",))
    settled = Attempt("q", "Bot", "talker", 4, 0.0, 1.0, "partial_success", fate="settles")
    report = _feasibility({"q": info}, [settled], lambda _: None, 10.0, [{"level_start": 4}])
    assert (report["completed"], report["fated"], report["not_completed"]) == (0, 1, [])
    # without a fate a partial success is a quest nobody finished
    settled.fate = ""
    report = _feasibility({"q": info}, [settled], lambda _: None, 10.0, [{"level_start": 4}])
    assert report["fated"] == 0
    assert [r["quest_id"] for r in report["not_completed"]] == ["q"]
    assert settled.document()["fate"] == ""
