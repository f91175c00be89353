"""SignalIntake: admitted story signals evaluated into seeds, a burst spread over ticks.

The QuestGenerationSystem gates each signal as it arrives (its ``SignalGate``:
dedup window, world-wide cap) and hands the admitted ones here. Evaluation -- the
signal alone, then composed with the recent signals it relates to -- is the
costly part, and a detection round in a big world admits dozens of signals in one
event dispatch: evaluating them all there stalled that tick (seconds at 10,000
NPCs). So each tick evaluates at least ``signals_per_tick`` and enough for a burst
to be through within ``signal_spread`` game seconds. When a tick is that long
(``maid simulate``'s 60 s ticks) everything is evaluated at once, as it arrives,
exactly as if there were no queue. Order is kept, and each signal is composed with
the window of signals admitted before it, stamped with its arrival time.
"""

from __future__ import annotations

import logging
from collections import deque
from math import ceil
from typing import TYPE_CHECKING

from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import StorySignalLike, signal_key, signal_type_of

if TYPE_CHECKING:
    from maid_stdlib.questgen.system import QuestGenerationSystem

__all__ = ["SignalIntake"]

log = logging.getLogger("maid.questgen.system")


class SignalIntake:
    def __init__(self, system: QuestGenerationSystem) -> None:
        self.system = system
        #: The composition window: (arrival game time, signal), oldest first.
        self.recent: deque[tuple[float, StorySignalLike]] = deque()
        #: Admitted signals waiting for evaluation, oldest first.
        self.waiting: deque[tuple[float, StorySignalLike]] = deque()
        #: Game seconds of the latest tick (the allowance follows game time).
        self.delta = 0.0
        self._allowance_at: float | None = None
        self._evaluated = 0

    def admitted(self, signal: StorySignalLike, arrived: float) -> None:
        self.waiting.append((arrived, signal))

    async def evaluate_waiting(self) -> None:
        """Evaluate waiting signals, oldest first, within this tick's allowance."""
        waiting = self.waiting
        if not waiting:
            return
        now = self.system.engine.clock.game_time
        if self._allowance_at != now:
            self._allowance_at, self._evaluated = now, 0
        cfg = self.system.config
        while waiting:
            backlog = self._evaluated + len(waiting)
            spread = cfg.signal_spread
            share = backlog if spread <= 0 else ceil(backlog * self.delta / spread)
            if self._evaluated >= max(cfg.signals_per_tick, share):
                break
            self._evaluated += 1
            arrived, signal = waiting.popleft()
            await self.evaluate(arrived, signal)

    async def evaluate(self, arrived: float, signal: StorySignalLike) -> QuestSeed | None:
        """Evaluate and compose one admitted signal; the seed queued, if any."""
        system = self.system
        cfg = system.config
        recent = self.recent
        recent.append((arrived, signal))
        while recent and (
            arrived - recent[0][0] > cfg.compose_window or len(recent) > cfg.compose_max_signals
        ):
            recent.popleft()
        with system.qg.facts.steady():  # nothing below changes the world
            seed = await system.evaluator.evaluate(signal)
            if seed is None:
                log.info(
                    "seed rejected",
                    extra={
                        "signal_type": signal_type_of(signal),
                        "reason": system.evaluator.last_rejection,
                    },
                )
            # Every cluster of the window is composed (each draws its seed's id
            # from the engine's random stream: composing only the new signal's
            # cluster would change every seeded world's dice); the one holding
            # the new signal is kept.
            key = signal_key(signal)
            compounds = [
                s
                for s in await system.composer.compose([s for _, s in recent])
                if any(signal_key(x) == key for x in s.source_signals)
            ]
        if compounds:
            seed = max(compounds, key=lambda s: s.importance)
        if seed is not None:
            system.enqueue(seed)
        return seed
