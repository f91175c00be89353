"""CollectorPolicy: keeps Python's cyclic garbage collector out of the tick.

A full collection traverses every tracked object that is not frozen. Left to
itself the collector runs one whenever enough objects have survived into the
oldest generation, inside whatever code is allocating at that moment -- usually a
tick -- and its cost grows with the live world: at 10,000 NPCs, pauses of
0.4-1.5 s when the whole world was traversed, and 30-60 ms even once the loaded
world was frozen, because everything created since start-up (memories, gossip,
quests, caches) piles up unfrozen and is walked again by each full collection.

The policy:

* at start-up, one full collection, then ``gc.freeze()``: the loaded world moves
  to the permanent generation and is never traversed again;
* automatic full collections are switched off (the third threshold is raised out
  of reach); young collections (generations 0 and 1) stay automatic -- their cost
  is bounded by what was allocated since the last of them. With ``young_runs`` the
  middle generation is collected after that many young collections instead of
  Python's ten: each of its collections visits every object that survived the
  young ones since the last, and in a busy world most do (the checkpoint's JSON,
  memories, gossip) -- at 10,000 NPCs about 9,000 objects and 2-8 ms a pause at
  ten, a third of that at three, for the same work in all;
* a full collection of what is not frozen -- only what survived since the last
  refreeze, so it is cheap -- runs between ticks when the collector's own count
  says one is due (as many young collections as Python's own thresholds would
  have let pass before one, counted in generation-1 runs) and ``collect_gap`` real
  seconds have passed since the last full one; it
  frees the reference cycles that died meanwhile (a server under connection churn
  would otherwise grow by the dead connections' cycles), at most that often, so
  a burst of commands is not interrupted by one collection after another;
* with ``freeze_survivors`` (the default) that collection is followed by
  ``gc.freeze()``: the next one visits only what was allocated and survived since
  this one, so its pause is bounded by a few seconds' allocations instead of
  growing with everything made since the last refreeze (in the evening benchmark,
  200 players on the 10,000-NPC world: 66 ms a collection without, see
  docs/performance.md). The price: an object frozen while alive that later dies in
  a reference cycle waits for the deep collection;
* every ``refreeze_interval`` real seconds that collection is followed by
  ``gc.freeze()`` whatever ``freeze_survivors`` says, so the unfrozen heap never
  grows with uptime;
* every ``deep_interval`` real seconds (0: never), ``gc.unfreeze()`` and a full
  collection of everything, then freeze again: the one pause that reclaims
  reference cycles among objects that were frozen while alive and died since (a
  closed connection's protocol objects, say). Its cost is the whole heap's.

``stop()`` unfreezes and restores the thresholds, so a stopped engine's cycles can
be freed (tests start thousands of engines in one process). The collector is
process-wide: when several engines run in one process, the first to start takes
it over and the last to stop gives it back. Clocks are injectable: the policy
reads ``monotonic()`` only through the function it is given.
"""

from __future__ import annotations

import gc
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("maid.engine.gc")

#: A third threshold the collector never reaches (it counts generation-1 runs).
_NEVER = 1 << 30


class _Process:
    """Who holds the process's collector, and the thresholds to give back."""

    holders = 0
    saved: tuple[int, int, int] | None = None


class SwitchInterval:
    """The interpreter's thread switch interval while engines run (process-wide,
    like the collector: the first engine to start sets it, the last to stop gives
    the old one back)."""

    holders = 0
    saved: float | None = None

    @classmethod
    def hold(cls, seconds: float) -> bool:
        """Set it (if ``seconds`` > 0) for as long as it is held; False: left as is."""
        if seconds <= 0:
            return False
        if cls.holders == 0:
            cls.saved = sys.getswitchinterval()
        cls.holders += 1
        sys.setswitchinterval(seconds)
        return True

    @classmethod
    def release(cls) -> None:
        cls.holders = max(0, cls.holders - 1)
        if cls.holders == 0 and cls.saved is not None:
            sys.setswitchinterval(cls.saved)
            cls.saved = None


@dataclass
class CollectionRecord:
    """One collection the policy ran (for metrics and tests)."""

    kind: str  # "collect", "refreeze" or "deep"
    seconds: float
    collected: int


class CollectorPolicy:
    def __init__(
        self,
        refreeze_interval: float = 60.0,
        deep_interval: float = 6 * 3600.0,
        monotonic: Callable[[], float] = time.monotonic,
        collect_gap: float = 5.0,
        freeze_survivors: bool = True,
        young_runs: int | None = None,
    ) -> None:
        if young_runs is not None and young_runs < 1:
            raise ValueError(f"young_runs must be at least 1, not {young_runs}")
        #: Young collections between two of the middle generation (None: Python's).
        self.young_runs = young_runs
        self.collect_gap = collect_gap
        self.freeze_survivors = freeze_survivors
        self.refreeze_interval = refreeze_interval
        self.deep_interval = deep_interval
        #: Real-time source (a benchmark stepping ticks by hand injects its own).
        self.monotonic = monotonic
        self._active = False
        #: Generation-1 runs after which a full collection is due (the third
        #: threshold the collector had before ``start``).
        self._due_after = 10
        self._last_full = 0.0
        self._next_refreeze = 0.0
        self._next_deep = 0.0
        #: The latest collections run by ``maintain`` (newest last, at most 16).
        self.history: list[CollectionRecord] = []

    @property
    def active(self) -> bool:
        return self._active

    def use_clock(self, monotonic: Callable[[], float]) -> None:
        """Read real time from ``monotonic`` from now on; the schedule restarts."""
        self.monotonic = monotonic
        self._schedule(monotonic())

    def _schedule(self, now: float) -> None:
        self._last_full = now
        self._next_refreeze = now + self.refreeze_interval
        self._next_deep = now + self.deep_interval

    def start(self) -> None:
        """Collect, freeze what survives, and take over full collections."""
        if self._active:
            return
        gc.collect()
        gc.freeze()
        if _Process.holders == 0:
            threshold = gc.get_threshold()
            _Process.saved = threshold
            gc.set_threshold(threshold[0], self.young_runs or threshold[1], _NEVER)
        assert _Process.saved is not None
        saved = _Process.saved
        # A full collection falls due after as many young collections as before,
        # however many of them make a middle one now.
        self._due_after = max(1, -(-saved[2] * saved[1] // gc.get_threshold()[1]))
        _Process.holders += 1
        self._schedule(self.monotonic())
        self._active = True

    def stop(self) -> None:
        if not self._active:
            return
        self._active = False
        _Process.holders -= 1
        if _Process.holders == 0:
            gc.unfreeze()
            if _Process.saved is not None:
                gc.set_threshold(*_Process.saved)
                _Process.saved = None

    def due(self) -> bool:
        """Whether ``maintain`` would collect now."""
        if not self._active:
            return False
        now = self.monotonic()
        return (
            (self.deep_interval > 0 and now >= self._next_deep)
            or now >= self._next_refreeze
            or (gc.get_count()[2] >= self._due_after and now - self._last_full >= self.collect_gap)
        )

    def maintain(self) -> CollectionRecord | None:
        """Run the collection that is due, if any (call between ticks)."""
        if not self._active:
            return None
        now = self.monotonic()
        if self.deep_interval > 0 and now >= self._next_deep:
            record = self._collect("deep", unfreeze=True, freeze=True)
            self._schedule(now)
            log.info(
                "deep garbage collection: %.0f ms, %d objects freed",
                record.seconds * 1000,
                record.collected,
            )
            return record
        if now >= self._next_refreeze:
            self._next_refreeze = now + self.refreeze_interval
            self._last_full = now
            return self._collect("refreeze", unfreeze=False, freeze=True)
        if gc.get_count()[2] >= self._due_after and now - self._last_full >= self.collect_gap:
            self._last_full = now
            return self._collect("collect", unfreeze=False, freeze=self.freeze_survivors)
        return None

    def _collect(self, kind: str, unfreeze: bool, freeze: bool) -> CollectionRecord:
        started = time.perf_counter()
        if unfreeze:
            gc.unfreeze()
        collected = gc.collect()
        if freeze:
            gc.freeze()
        record = CollectionRecord(kind, time.perf_counter() - started, collected)
        self.history.append(record)
        del self.history[:-16]
        return record
