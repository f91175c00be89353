"""What players are told when the database goes away, and when it comes back.

The engine keeps the world in memory and writes what changed at every checkpoint
(``GameEngine.checkpoint``). When a checkpoint cannot reach the database
(:class:`~maid_engine.store.StoreUnavailable`) its changes are handed back to the
world and written by the next checkpoint, one interval later, until one succeeds.
:class:`SaveMonitor` turns that into player-facing news: one "saving is delayed"
notice per outage to everyone playing, and one "saving has resumed" when a
checkpoint gets through again. The ``maid_saving_delayed`` gauge is 1 meanwhile.

Work that must reach the database at once (creating an account or a character,
changing a password) fails instead of pretending success; the login screen shows
:data:`DATABASE_UNAVAILABLE` for it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Protocol
from uuid import UUID

from maid_engine.metrics import EngineMetrics

log = logging.getLogger("maid.reliability")

SAVING_DELAYED = (
    "|ySaving is delayed; your progress is kept and will be saved when the database is back.|n"
)
SAVING_RESUMED = "|gSaving has resumed.|n"
DATABASE_UNAVAILABLE = "The database is unavailable; try again in a moment."


def is_store_unavailable(exc: BaseException) -> bool:
    # Imported here, not at the top: maid_engine.store pulls in SQLAlchemy, which
    # an engine without a database (tests, ``maid check``) never needs to load.
    from maid_engine.store import StoreUnavailable

    return isinstance(exc, StoreUnavailable)


class Audience(Protocol):
    """Who is told about saving (``maid_engine.ports.Sessions`` has it)."""

    def characters_online(self) -> list[UUID]: ...

    def send_to(self, character_id: UUID, text: str) -> bool: ...


class SaveMonitor:
    """Tracks whether checkpoints reach the database and tells players about outages."""

    def __init__(self, metrics: EngineMetrics, audience: Audience) -> None:
        self.audience = audience
        #: True from the first checkpoint that failed for lack of a database until the
        #: next one that succeeds.
        self.delayed = False
        self.outages = 0
        self._since: float | None = None
        self._gauge = metrics.gauge(
            "maid_saving_delayed", "1 while checkpoints cannot reach the database"
        )

    def checkpoint_failed(self, exc: BaseException) -> None:
        if not is_store_unavailable(exc) or self.delayed:
            return
        self.delayed = True
        self.outages += 1
        self._since = time.monotonic()
        self._gauge.set(1)
        log.warning("the database is unavailable; saving is delayed (%s)", exc)
        self._tell(SAVING_DELAYED)

    def checkpoint_succeeded(self) -> None:
        if not self.delayed:
            return
        self.delayed = False
        self._gauge.set(0)
        took = time.monotonic() - self._since if self._since is not None else 0.0
        self._since = None
        log.warning("the database is back; saving has resumed after %.1f s", took)
        self._tell(SAVING_RESUMED)

    def _tell(self, text: str) -> None:
        for character in self.audience.characters_online():
            try:
                self.audience.send_to(character, text)
            except Exception:
                log.exception("could not tell %s about saving", character)


class LogFloodFilter(logging.Filter):
    """Caps what chatty third-party loggers may write: ``burst`` records per logger
    per ``window`` seconds; the rest are counted and reported once the window ends.

    telnetlib3 logs a WARNING for every malformed subnegotiation a client sends, so
    without a cap a client could make the server write megabytes of log for every
    megabyte of garbage it sends (a disk-filling attack). Records of other loggers
    (MAID's own) pass untouched.
    """

    def __init__(
        self,
        prefixes: tuple[str, ...] = ("telnetlib3",),
        burst: int = 50,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.prefixes = prefixes
        self.burst = burst
        self.window = window
        self.clock = clock
        # logger name -> [window start, records let through, records dropped]
        self._state: dict[str, list[float]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        name = record.name
        if not name.startswith(self.prefixes):
            return True
        now = self.clock()
        state = self._state.get(name)
        if state is None or now - state[0] >= self.window:
            dropped = int(state[2]) if state is not None else 0
            if len(self._state) > 1000:
                self._state.clear()
            self._state[name] = [now, 1, 0]
            if dropped:
                record.msg = (
                    f"{record.getMessage()} [{dropped} more messages of {name} were "
                    f"suppressed in the {self.window:.0f} s before]"
                )
                record.args = ()
            return True
        if state[1] < self.burst:
            state[1] += 1
            return True
        state[2] += 1
        return False
