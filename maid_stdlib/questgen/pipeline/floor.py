"""DailyFloor: when a game day runs short of quests, look further for real work.

The daily cap keeps the world from offering too much; the floor keeps it from
going quiet while it still has trouble to offer. When the rolling game day is
short of ``min_quests_per_day`` (``Quotas.day_short``, which counts quests about
to leave the window as gone already), every ``floor_interval`` game seconds the
floor looks where the everyday path does not:

* signals turned down in the last game day for a reason that may pass
  (importance below the threshold, the giver's cooldown), judged again with the
  importance threshold lowered to ``floor_importance``, if their situation still
  holds;
* the situations the story layer still sees (``LiveSituations``): a need or a
  feud signalled once, days ago, and never dealt with is still work. Each is
  judged like a new signal, at the floor's threshold. Looking for them all is a
  search of the whole world: the story layer does it at its round's pace, and the
  floor judges what it found on the tick it is done (``collect``) -- at once
  when a tick covers a whole round, as a simulation's does.

Every seed found this way goes through the same evaluation, holds, plan, checks
and quality rules as any other: the floor never makes up a problem, it only
stops overlooking the ones there are. Situations a waiting seed already covers,
and givers who have an open quest, are skipped. The system also lets a giver go
past its share of the day (``max_giver_share``) while the day is short and no
other giver has a seed in the queue (waiting, being written or waiting out a
retry) with room in their own share, once its seed has waited alone for
``Quotas.quiet_spell``.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

from maid_engine.clock import GAME_DAY, GameClock
from maid_stdlib.questgen.delivery import OpenQuest
from maid_stdlib.questgen.evaluator import SeedEvaluator
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.intake import SignalIntake
from maid_stdlib.questgen.metrics import QuestGenMetrics
from maid_stdlib.questgen.pipeline.queue import SeedQueue
from maid_stdlib.questgen.pipeline.quotas import Quotas
from maid_stdlib.questgen.pipeline.screen import ResolvedSituations
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import StorySignalLike, chain_depth_of

__all__ = ["DailyFloor", "LiveSituations", "SituationsFound"]

log = logging.getLogger("maid.questgen.system")


class SituationsFound(Protocol):
    """A search of the story layer's situations, done over ticks."""

    @property
    def done(self) -> bool: ...

    @property
    def signals(self) -> Sequence[StorySignalLike]: ...


class LiveSituations(Protocol):
    """What the floor asks of the story layer (the StorySignalSystem answers)."""

    def situations_later(self, signal_types: Collection[str]) -> SituationsFound: ...

    def is_active(self, situation_key: str) -> bool: ...


@dataclass
class _Search:
    """A wider search under way: the situations the queue covered and the givers
    busy when it began, the candidates waiting to be judged (with where they came
    from), and the story layer's search of its live situations until it is done."""

    covered: set[str]
    busy: set[UUID]
    live: LiveSituations | None
    waiting: deque[tuple[StorySignalLike, str]]
    asked: bool = False
    found: SituationsFound | None = None


def _situation(signal: StorySignalLike) -> str:
    return str(getattr(signal, "situation_key", "") or "")


class DailyFloor:
    def __init__(
        self,
        settings: QuestGenerationConfig,
        clock: GameClock,
        quotas: Quotas,
        facts: WorldFacts,
        evaluator: SeedEvaluator,
        intake: SignalIntake,
        queue: SeedQueue,
        resolved: ResolvedSituations,
        open_quests: Mapping[str, OpenQuest],
        metrics: QuestGenMetrics,
        live: Callable[[], LiveSituations | None],
    ) -> None:
        self._settings = settings
        self._clock = clock
        self._quotas = quotas
        self._facts = facts
        self._evaluator = evaluator
        self._intake = intake
        self._queue = queue
        self._resolved = resolved
        self._open_quests = open_quests
        self._metrics = metrics
        self._live = live
        self._next_at: float | None = None
        #: The wider search under way (None: none).
        self._search: _Search | None = None
        #: Game seconds of the latest tick; None before the first.
        self._delta: float | None = None

    def short(self, now: float) -> bool:
        return self._quotas.day_short(now)

    def tick_started(self, delta: float) -> None:
        self._delta = delta

    async def widen(self, now: float) -> int:
        """If the day is short and the last search is ``floor_interval`` ago, look
        further: the signals turned down and the live situations are judged, the
        seeds found queued (at once when a tick is ``signal_spread`` long, else a
        few a tick, see ``collect``). Returns how many were found now."""
        if not self.short(now) or (self._next_at is not None and now < self._next_at):
            return 0
        self._next_at = now + self._settings.floor_interval
        if self._search is None:
            covered = {
                _situation(sig) for seed in self._queue.pending for sig in seed.source_signals
            }
            covered.discard("")
            busy = {oq.quest.quest_giver_id for oq in self._open_quests.values()}
            live = self._live()
            turned_down = deque(
                (signal, "turned_down")
                for _, signal, _why in self._intake.turned_down(now - GAME_DAY)
            )
            self._search = _Search(covered, busy, live, turned_down)
        return await self.collect()

    async def collect(self) -> int:
        """Judge the wider search's next candidates (every tick): all of them when
        the tick is ``signal_spread`` long (a simulation's) or before the first tick,
        otherwise ``signals_per_tick`` -- each is a signal's whole evaluation, and
        a search may find a few hundred. The seeds are queued; returns how many."""
        search = self._search
        if search is None:
            return 0
        delta, cfg = self._delta, self._settings
        limit = None if delta is None or delta >= cfg.signal_spread else cfg.signals_per_tick
        found = judged = 0
        while limit is None or judged < limit:
            if not search.waiting:
                if search.live is not None and not search.asked:
                    # Asked once the signals turned down are judged, as the story
                    # layer's answer draws ids from the world's dice after theirs.
                    search.asked = True
                    types = self._evaluator.contracts.signal_types()
                    search.found = search.live.situations_later(types)
                    continue
                if search.found is not None and search.found.done:
                    search.waiting.extend((s, "live_situation") for s in search.found.signals)
                    search.found = None
                    continue
                if search.found is None:
                    self._search = None
                break
            signal, source = search.waiting.popleft()
            if self._passed_over(signal, source, search):
                continue
            judged += 1
            if await self._take(signal, search.covered, search.busy, source):
                if source == "turned_down":
                    self._intake.reconsidered(signal)
                found += 1
        if found:
            log.info("the day is short of quests: the wider search found %d seed(s)", found)
        return found

    def _passed_over(self, signal: StorySignalLike, source: str, search: _Search) -> bool:
        key = _situation(signal)
        if source != "turned_down":
            return key in search.covered
        live = search.live
        # A follow-up's situation is what a finished quest left behind: the story
        # layer never tracked it, so only its own resolution ends it.
        story_gone = live is not None and chain_depth_of(signal) == 0 and not live.is_active(key)
        return bool(key) and (
            key in search.covered or self._resolved.all_resolved([key]) or story_gone
        )

    async def _take(
        self, signal: StorySignalLike, covered: set[str], busy: set[UUID], source: str
    ) -> bool:
        with self._facts.steady():
            seed = await self._evaluator.evaluate(signal, self._settings.floor_importance)
        if isinstance(seed, Rejection) or not isinstance(seed, QuestSeed):
            return False
        if not self._intake.buildable(seed):
            return False  # below every archetype's importance, or of a type none fits
        if seed.primary_npc in busy:
            return False  # its quest is open: the screen would drop the seed
        key = _situation(signal)
        if key:
            covered.add(key)
        self._queue.enqueue(seed)
        self._metrics.floor_seed(source)
        return True
