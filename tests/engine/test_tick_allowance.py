"""TickAllowance: a paced job's work per tick is its share of the tick's game time,
capped at a multiple of a typical tick's share; what a late tick was due over the
cap is done by the next ticks, and nothing is lost."""

from __future__ import annotations

from math import ceil

import pytest

from maid_engine.pacing import TickAllowance


def _share(delta: float) -> int:
    """Ten units per game second, two at least (like a system's slice)."""
    return max(2, ceil(10 * delta))


def test_steady_ticks_get_exactly_their_share() -> None:
    allowance = TickAllowance()
    assert [allowance.take(2.4, _share) for _ in range(50)] == [24] * 50
    assert allowance.carried == 0
    # A simulation's long ticks are steady too: never capped.
    long = TickAllowance()
    assert [long.take(60.0, _share) for _ in range(5)] == [600] * 5


def test_a_late_tick_is_capped_and_the_next_ticks_do_the_rest() -> None:
    allowance = TickAllowance(cap=1.5)
    for _ in range(10):
        allowance.take(2.4, _share)
    # Held up for a second of real time: 26.4 game seconds, 264 units due.
    late = allowance.take(26.4, _share)
    assert late == ceil(24 * 1.5) == 36
    assert allowance.carried == 264 - 36
    after = [allowance.take(2.4, _share) for _ in range(30)]
    # Each next tick does its own share and as much of the rest as fits under the cap.
    assert max(after) == 36
    assert min(after) >= 24
    assert allowance.carried == 0
    assert late + sum(after) == 264 + 30 * 24  # nothing lost


def test_short_ticks_after_a_late_one_catch_up_under_the_cap() -> None:
    allowance = TickAllowance(cap=2.0)
    for _ in range(5):
        allowance.take(1.0, _share)
    assert allowance.take(5.0, _share) == 20  # due 50, the cap 2 x 10
    assert allowance.take(0.5, _share) == 20  # 5 of its own, 15 carried
    assert allowance.carried == 15


def test_the_typical_tick_follows_a_lasting_change_of_pace() -> None:
    allowance = TickAllowance(cap=1.5, window=5)
    for _ in range(5):
        allowance.take(2.4, _share)
    # The machine slows for good: every tick is twice as long. After the window
    # has seen it, a tick is given its whole share again.
    taken = [allowance.take(4.8, _share) for _ in range(10)]
    assert taken[0] == 36
    assert taken[-1] == 48
    assert allowance.carried == 0


def test_forgetting_the_carried_work() -> None:
    allowance = TickAllowance()
    allowance.take(2.4, _share)
    allowance.take(24.0, _share)
    assert allowance.carried > 0
    allowance.forget_carried()
    assert allowance.carried == 0
    assert allowance.take(2.4, _share) == 24


def test_a_negative_delta_counts_as_none() -> None:
    assert TickAllowance().take(-3.0, _share) == 2


@pytest.mark.parametrize(("cap", "window"), [(0.5, 10), (1.5, 0)])
def test_bad_settings_are_refused(cap: float, window: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        TickAllowance(cap=cap, window=window)
