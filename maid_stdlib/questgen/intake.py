"""SignalIntake: the first stage -- story signals gated, evaluated and composed into seeds.

Each signal is gated as it arrives (the :class:`SignalGate`: per-(type, NPC)
dedup window, world-wide rolling cap). Evaluation -- the signal alone, then
composed with the recent signals it relates to -- is the costly part, and a
detection round in a big world admits dozens of signals in one event dispatch:
evaluating them all there stalled that tick (seconds at 10,000 NPCs). So each
tick's update takes at least ``signals_per_tick`` into the composition window
(stamped with its arrival time, judged alone) and enough for a burst to be through
within ``signal_spread`` game seconds; what was taken is composed at once when the
burst is through or ``compose_batch`` were taken. When a tick is that long (``maid
simulate``'s 60 s ticks) everything is evaluated at once, as it arrives, exactly
as if there were no queue. Order is kept. The best seed holding each signal goes
to the :class:`~maid_stdlib.questgen.pipeline.queue.SeedQueue`.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from math import ceil
from typing import cast
from uuid import UUID

from maid_engine.clock import GameClock
from maid_engine.slicing import UNFINISHED, Steps, TickSlice, step_within
from maid_stdlib.questgen.composer import CompoundSeedComposer
from maid_stdlib.questgen.evaluator import SeedDraft, SeedEvaluator
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.generation_config import QuestGenerationConfig, SignalGate
from maid_stdlib.questgen.metrics import QuestGenMetrics
from maid_stdlib.questgen.pipeline.queue import SeedQueue
from maid_stdlib.questgen.pipeline.screen import ResolvedSituations
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import StorySignalLike, signal_key, signal_type_of

__all__ = ["RECONSIDERED", "SignalIntake"]

#: Why a signal may make a seed later though it made none when it came: it was
#: below the importance threshold (the daily floor lowers it), or its giver had
#: just given a quest (the cooldown passes).
RECONSIDERED = frozenset({"importance_below_threshold", "giver_cooldown"})
#: Turned-down signals kept for the floor (the oldest go first).
TURNED_DOWN_KEPT = 200

log = logging.getLogger("maid.questgen.system")


class SignalIntake:
    def __init__(
        self,
        settings: QuestGenerationConfig,
        clock: GameClock,
        metrics: QuestGenMetrics,
        facts: WorldFacts,
        evaluator: SeedEvaluator,
        composer: CompoundSeedComposer,
        queue: SeedQueue,
        resolved: ResolvedSituations,
        buildable: Callable[[QuestSeed], bool] = lambda _seed: True,
    ) -> None:
        self._settings = settings
        #: Can any archetype make a quest of the seed? (Decided by the seed's type,
        #: fields and importance alone: a seed no archetype fits never will be.)
        self._buildable = buildable
        self._clock = clock
        self._metrics = metrics
        self._facts = facts
        self._evaluator = evaluator
        self._composer = composer
        self._queue = queue
        self._resolved = resolved
        self.gate = SignalGate(
            settings.signal_dedup_window, settings.global_signal_window, settings.global_signal_max
        )
        #: The composition window: (arrival game time, signal), oldest first.
        self._recent: deque[tuple[float, StorySignalLike]] = deque()
        #: Admitted signals waiting for evaluation, oldest first.
        self._waiting: deque[tuple[float, StorySignalLike]] = deque()
        #: Signals taken from ``_waiting`` into the composition window, with their
        #: own seed's draft (or why none), whose composition waits for the rest of
        #: their burst: see ``evaluate_waiting``.
        self._taken: list[tuple[float, StorySignalLike, SeedDraft | Rejection]] = []
        #: A composition under way over ticks (``_composition``): no signal is
        #: taken until it ends, so the order is kept.
        self._composing: Steps[list[QuestSeed | Rejection]] | None = None
        #: Game seconds of the latest tick (the allowance follows game time).
        self._delta = 0.0
        self._allowance_at: float | None = None
        self._evaluated = 0
        #: (arrival, signal, why) of signals no seed was made of for a reason that
        #: may pass later (importance, the giver's cooldown), newest last: the daily
        #: floor judges them again when a day runs short.
        self._turned_down: deque[tuple[float, StorySignalLike, Rejection]] = deque(
            maxlen=TURNED_DOWN_KEPT
        )

    @property
    def evaluator(self) -> SeedEvaluator:
        return self._evaluator

    @property
    def waiting(self) -> list[tuple[float, StorySignalLike]]:
        """(arrival, signal) of the admitted signals not evaluated yet, oldest first."""
        return [*((arrived, signal) for arrived, signal, _ in self._taken), *self._waiting]

    def tick_started(self, delta: float) -> None:
        self._delta = max(delta, 0.0)

    def signals_in_window(self) -> int:
        return self.gate.in_window(self._clock.game_time)

    async def receive(self, signal: StorySignalLike) -> None:
        """Gate the signal now. A tick as long as the spread evaluates it at once;
        a shorter one leaves it for the system's update (:meth:`evaluate_waiting`)."""
        now = self._clock.game_time
        if self._admit(signal, now):
            self._waiting.append((now, signal))
        spread = self._settings.signal_spread
        # A round's signals come in one event dispatch, one by one: evaluated as
        # they came, the first had nothing waiting behind it and was composed alone
        # (5-9 ms in the 10,000-NPC world), then again with the rest of its burst.
        # The update, in the same tick, sees the whole burst.
        if spread <= 0 or self._delta >= spread:
            await self.evaluate_waiting()

    async def accept(self, signal: StorySignalLike) -> QuestSeed | Rejection:
        """Gate, evaluate and compose one signal at once; the seed queued, or why not."""
        now = self._clock.game_time
        if not self._admit(signal, now):
            return Rejection("intake", "the signal gate did not admit the signal", ("signal_gate",))
        return await self.evaluate(now, signal)

    def _admit(self, signal: StorySignalLike, now: float) -> bool:
        verdict = self.gate.admit(signal, now)
        self._metrics.signal(verdict)
        if verdict != "accepted":
            self._metrics.signal_rejected((verdict,))
            return False
        self._resolved.reopen(getattr(signal, "situation_key", "") or "")
        return True

    async def evaluate_waiting(self, share: TickSlice | None = None) -> None:
        """Take waiting signals, oldest first, within this tick's allowance, and
        evaluate what was taken once the burst is through or ``compose_batch``
        signals were taken.

        Composing is most of an evaluation's cost, and in a burst each signal's
        compound seed held every signal of the burst before it: the next one's
        superseded it at once. So a burst's signals enter the composition window
        (and are judged alone) as their turn comes, and are composed together, a
        batch at a time. A composition stops once ``share`` (the system's share of
        the tick) is spent and goes on next tick; nothing is taken meanwhile."""
        if self._composing is not None and not self._compose_on(share):
            return
        waiting = self._waiting
        if not waiting:
            if self._taken:
                self._begin_composition()
                self._compose_on(share)
            return
        now = self._clock.game_time
        if self._allowance_at != now:
            self._allowance_at, self._evaluated = now, 0
        cfg = self._settings
        while waiting:
            backlog = self._evaluated + len(waiting)
            spread = cfg.signal_spread
            due = backlog if spread <= 0 else ceil(backlog * self._delta / spread)
            if self._evaluated >= max(cfg.signals_per_tick, due):
                break
            self._evaluated += 1
            self._take(*waiting.popleft())
            if not waiting or len(self._taken) >= cfg.compose_batch:
                self._begin_composition()
                if not self._compose_on(share):
                    return

    async def evaluate(self, arrived: float, signal: StorySignalLike) -> QuestSeed | Rejection:
        """Evaluate and compose one admitted signal now (with any taken before it);
        its seed queued, or why none."""
        if self._composing is not None:
            self._compose_on(None)  # the one under way first: the order is kept
        self._take(arrived, signal)
        self._begin_composition()
        seeds = self._compose_on(None)
        assert seeds is not None
        return seeds[-1]

    def _take(self, arrived: float, signal: StorySignalLike) -> None:
        """Into the composition window, judged alone (its own seed drafted)."""
        cfg = self._settings
        recent = self._recent
        recent.append((arrived, signal))
        while recent and (
            arrived - recent[0][0] > cfg.compose_window or len(recent) > cfg.compose_max_signals
        ):
            recent.popleft()
        with self._facts.steady():  # nothing below changes the world
            draft = self._evaluator.draft(signal)
        if isinstance(draft, Rejection):
            log.info(
                "seed rejected",
                extra={
                    "signal_type": signal_type_of(signal),
                    "reason": draft.reason,
                    "rules": ",".join(draft.rules),
                },
            )
        self._taken.append((arrived, signal, draft))

    def _begin_composition(self) -> None:
        """The taken signals' composition, with the window as it is now."""
        taken, self._taken = self._taken, []
        self._composing = self._composition(taken, [s for _, s in self._recent])

    def _compose_on(self, share: TickSlice | None) -> list[QuestSeed | Rejection] | None:
        """Steps of the composition under way until it ends (each taken signal's
        seed, or why none) or ``share`` is spent (None: it goes on next tick)."""
        composing = self._composing
        assert composing is not None
        try:
            # Nothing below changes the world; between two ticks it may have.
            with self._facts.steady():
                done = step_within(composing, share)
        except BaseException:
            self._composing = None
            raise
        if done is UNFINISHED:
            return None
        self._composing = None
        return cast(list[QuestSeed | Rejection], done)

    def _composition(
        self,
        taken: list[tuple[float, StorySignalLike, SeedDraft | Rejection]],
        window: list[StorySignalLike],
    ) -> Steps[list[QuestSeed | Rejection]]:
        """Compose the taken signals with the window; each signal's seed queued (a
        compound once), or why none. Steps: the composer's, then one a signal."""
        # Every cluster of the window is judged (each draws its seed's id from the
        # engine's random stream: skipping the others would change every seeded
        # world's dice), but only those holding a taken signal are written out and
        # kept.
        keys = [signal_key(signal) for _, signal, _ in taken]
        composed = yield from self._composer.compose_steps(window, keep=set(keys))
        seeds: list[QuestSeed | Rejection] = []
        for key, (_, _, draft) in zip(keys, taken, strict=True):
            seeds.append(
                self._best(
                    draft,
                    [c for c in composed if any(signal_key(x) == key for x in c.source_signals)],
                )
            )
            yield
        queued: set[UUID] = set()
        for (arrived, signal, _), seed in zip(taken, seeds, strict=True):
            if isinstance(seed, Rejection):
                self._metrics.signal_rejected(seed.rules)
                if set(seed.rules) & RECONSIDERED:
                    self._turned_down.append((arrived, signal, seed))
            elif seed.id not in queued:
                queued.add(seed.id)
                self._queue.enqueue(seed)
        return seeds

    def buildable(self, seed: QuestSeed) -> bool:
        """Whether some archetype can make a quest of ``seed``."""
        return self._buildable(seed)

    def _best(
        self, draft: SeedDraft | Rejection, compounds: list[QuestSeed]
    ) -> QuestSeed | Rejection:
        """The most important compound seed an archetype can build, else the signal's
        own seed if one can, else why not. A seed no archetype fits is turned down
        here, by its rule, rather than queued to be planned and rejected at every
        retry (its type, fields and importance never change). The signal's own seed
        is written only when no compound takes its place."""
        fit = [s for s in compounds if self._buildable(s)]
        if fit:
            return max(fit, key=lambda s: s.importance)
        # Written from the world as it is now; the checks are those of the tick
        # the signal was taken, a few ticks ago at most in a burst (planning
        # grounds the seed again).
        single = draft if isinstance(draft, Rejection) else draft.build()
        if isinstance(single, QuestSeed) and self._buildable(single):
            return single
        unfit = max(compounds, key=lambda s: s.importance) if compounds else single
        if isinstance(unfit, Rejection):
            return unfit
        return Rejection(
            "evaluate",
            f"no archetype can make a quest of a {unfit.seed_type} seed",
            ("no_archetype",),
        )

    def turned_down(self, since: float) -> list[tuple[float, StorySignalLike, Rejection]]:
        """(arrival, signal, why) of the signals turned down since ``since`` for a
        reason that may pass (``RECONSIDERED``), oldest first."""
        return [t for t in self._turned_down if t[0] >= since]

    def reconsidered(self, signal: StorySignalLike) -> None:
        """``signal`` made a seed after all: it is not turned down any more."""
        key = signal_key(signal)
        self._turned_down = deque(
            (t for t in self._turned_down if signal_key(t[1]) != key), maxlen=TURNED_DOWN_KEPT
        )
