"""The calendar ``time`` reads game time with: hours, weekdays, seasons and years.

Game time is one float of game seconds (the engine's clock); this names it. The
defaults are plain (seven weekdays, four seasons of thirty days); a pack with a
calendar of its own replaces ``Navigation.calendar``.
"""

from __future__ import annotations

from dataclasses import dataclass

from maid_engine.clock import GAME_DAY, GAME_HOUR, GAME_MINUTE

__all__ = ["Calendar", "Moment"]

#: (first hour, name) of the parts of a day, in order.
DAY_PARTS: tuple[tuple[int, str], ...] = (
    (0, "night"), (5, "dawn"), (7, "morning"), (12, "midday"), (14, "afternoon"),
    (18, "evening"), (21, "night"),
)  # fmt: skip


@dataclass(frozen=True)
class Moment:
    """A point of game time as the calendar names it."""

    year: int
    season: str
    day_of_season: int
    weekday: str
    hour: int
    minute: int
    part: str

    def __str__(self) -> str:
        return (
            f"It is {self.hour:02d}:{self.minute:02d} ({self.part}) on {self.weekday}, "
            f"the {ordinal(self.day_of_season)} day of {self.season}, year {self.year}."
        )


def ordinal(n: int) -> str:
    """1 -> "1st", 12 -> "12th", 23 -> "23rd"."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


@dataclass(frozen=True)
class Calendar:
    weekdays: tuple[str, ...] = (
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    )  # fmt: skip
    seasons: tuple[str, ...] = ("spring", "summer", "autumn", "winter")
    days_per_season: int = 30

    def __post_init__(self) -> None:
        if not self.weekdays or not self.seasons or self.days_per_season < 1:
            raise ValueError("a calendar needs weekdays, seasons and days in a season")

    def moment(self, game_time: float) -> Moment:
        """Name ``game_time`` (game seconds since the world began, day 0 = the first)."""
        t = max(0.0, game_time)
        day = int(t // GAME_DAY)
        rest = t - day * GAME_DAY
        hour = int(rest // GAME_HOUR)
        minute = int((rest % GAME_HOUR) // GAME_MINUTE)
        per_year = self.days_per_season * len(self.seasons)
        in_year = day % per_year
        part = next(name for first, name in reversed(DAY_PARTS) if hour >= first)
        return Moment(
            year=day // per_year + 1,
            season=self.seasons[in_year // self.days_per_season],
            day_of_season=in_year % self.days_per_season + 1,
            weekday=self.weekdays[day % len(self.weekdays)],
            hour=hour,
            minute=minute,
            part=part,
        )
