"""Game time.

Everything in the simulation that talks about hours and days (cooldowns, expiry,
schedules, "quests per game day") reads the game clock, never the wall clock, so
a simulation can run a week in seconds and a test can step time by hand.
Game time is a float of game seconds since the world began; it persists across
restarts (the engine stores it at each checkpoint).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

GAME_MINUTE = 60.0
GAME_HOUR = 3600.0
GAME_DAY = 86400.0


@dataclass(frozen=True)
class GameTimeOfDay:
    day: int
    hour: int
    minute: int

    def __str__(self) -> str:
        return f"day {self.day + 1}, {self.hour:02d}:{self.minute:02d}"


class GameClock:
    """Maps real elapsed time to game time with a time scale.

    ``time_scale`` is game seconds per real second (24.0 makes a game day last one
    real hour). ``wall()`` is the real wall clock (Unix seconds) for the few things
    that must be real time, such as cache TTLs.
    """

    def __init__(self, time_scale: float = 24.0, game_time: float = 8 * GAME_HOUR) -> None:
        if time_scale <= 0:
            raise ValueError("time_scale must be positive")
        self.time_scale = time_scale
        self.game_time = game_time
        self._last_real: float | None = None

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def advance(self) -> float:
        """Move game time forward by the real time since the last call.

        Returns the game seconds elapsed (0 on the first call).
        """
        now = self.monotonic()
        if self._last_real is None:
            self._last_real = now
            return 0.0
        real = max(0.0, now - self._last_real)
        self._last_real = now
        delta = real * self.time_scale
        self.game_time += delta
        return delta

    @property
    def game_hours(self) -> float:
        return self.game_time / GAME_HOUR

    @property
    def game_day(self) -> int:
        return int(self.game_time // GAME_DAY)

    def time_of_day(self) -> GameTimeOfDay:
        t = self.game_time
        day = int(t // GAME_DAY)
        rem = t - day * GAME_DAY
        return GameTimeOfDay(day, int(rem // GAME_HOUR), int((rem % GAME_HOUR) // GAME_MINUTE))


class ManualClock(GameClock):
    """A clock that only moves when told. Each engine tick advances ``tick_game_seconds``."""

    def __init__(
        self,
        tick_game_seconds: float = 1.0,
        game_time: float = 8 * GAME_HOUR,
        wall_start: float = 1_700_000_000.0,
    ) -> None:
        super().__init__(time_scale=1.0, game_time=game_time)
        self.tick_game_seconds = tick_game_seconds
        self._mono = 0.0
        self._wall = wall_start

    def monotonic(self) -> float:
        return self._mono

    def wall(self) -> float:
        return self._wall

    def advance(self) -> float:
        delta = self.tick_game_seconds
        self.game_time += delta
        self._mono += delta
        self._wall += delta
        return delta

    def skip(self, game_seconds: float) -> None:
        """Jump forward without running ticks (e.g. to expire something)."""
        self.game_time += game_seconds
        self._mono += game_seconds
        self._wall += game_seconds

    def advance_wall(self, seconds: float) -> None:
        self._wall += seconds
        self._mono += seconds
