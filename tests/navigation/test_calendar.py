"""The calendar ``time`` names game time with."""

from __future__ import annotations

import pytest

from maid_engine.clock import GAME_DAY, GAME_HOUR
from maid_stdlib.navigation.calendar import Calendar, ordinal


def test_ordinals() -> None:
    words = [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 30, 111, 112)]
    assert words == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "30th",
        "111th", "112th",
    ]  # fmt: skip


def test_parts_of_the_day_and_a_calendar_of_its_own() -> None:
    cal = Calendar(weekdays=("Moonday", "Ironday"), seasons=("thaw", "frost"), days_per_season=3)
    parts = [cal.moment(h * GAME_HOUR).part for h in (0, 5, 7, 12, 14, 18, 21, 23)]
    assert parts == ["night", "dawn", "morning", "midday", "afternoon", "evening", "night", "night"]
    late = cal.moment(7 * GAME_DAY + 13 * GAME_HOUR)
    assert (late.year, late.season, late.day_of_season, late.weekday) == (2, "thaw", 2, "Ironday")
    assert str(late) == "It is 13:00 (midday) on Ironday, the 2nd day of thaw, year 2."
    # Before the world began is its first moment.
    assert cal.moment(-5.0) == cal.moment(0.0)


def test_a_calendar_needs_days_weekdays_and_seasons() -> None:
    for bad in ({"days_per_season": 0}, {"weekdays": ()}, {"seasons": ()}):
        with pytest.raises(ValueError, match="a calendar needs"):
            Calendar(**bad)
