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
other giver has anything to build.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, Sequence
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
        #: The search of the live situations under way, with the situations the
        #: queue covered and the givers busy when it began.
        self._search: tuple[SituationsFound, set[str], set[UUID]] | None = None

    def short(self, now: float) -> bool:
        return self._quotas.day_short(now)

    async def widen(self, now: float) -> int:
        """If the day is short and the last search is ``floor_interval`` ago, look
        further; the seeds found are queued. Returns how many."""
        if not self.short(now) or (self._next_at is not None and now < self._next_at):
            return 0
        self._next_at = now + self._settings.floor_interval
        covered = {_situation(sig) for seed in self._queue.pending for sig in seed.source_signals}
        covered.discard("")
        busy = {oq.quest.quest_giver_id for oq in self._open_quests.values()}
        live = self._live()
        found = 0
        for _, signal, _why in self._intake.turned_down(now - GAME_DAY):
            key = _situation(signal)
            # A follow-up's situation is what a finished quest left behind: the
            # story layer never tracked it, so only its own resolution ends it.
            story_gone = (
                live is not None and chain_depth_of(signal) == 0 and not live.is_active(key)
            )
            if key and (key in covered or self._resolved.all_resolved([key]) or story_gone):
                continue
            if await self._take(signal, covered, busy, "turned_down"):
                self._intake.reconsidered(signal)
                found += 1
        if live is not None and self._search is None:
            types = self._evaluator.contracts.signal_types()
            self._search = (live.situations_later(types), covered, busy)
        found += await self._judge_found()
        if found:
            log.info("the day is short of quests: the wider search found %d seed(s)", found)
        return found

    async def collect(self) -> int:
        """Judge what a search of the live situations found, once it is done (every
        tick); the seeds are queued. Returns how many."""
        found = await self._judge_found()
        if found:
            log.info("the day is short of quests: the wider search found %d seed(s)", found)
        return found

    async def _judge_found(self) -> int:
        if self._search is None or not self._search[0].done:
            return 0
        search, covered, busy = self._search
        self._search = None
        found = 0
        for signal in search.signals:
            if _situation(signal) in covered:
                continue
            if await self._take(signal, covered, busy, "live_situation"):
                found += 1
        return found

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
