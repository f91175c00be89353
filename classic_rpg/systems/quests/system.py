"""QuestSystem: start-up loading, quest timers, and writing queued documents."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING, ClassVar
from uuid import UUID

from classic_rpg.systems.quests.data import load_pack_quests
from maid_engine.clock import GAME_DAY
from maid_engine.content import PackError
from maid_engine.ecs import System
from maid_engine.logs import ThrottledLog

if TYPE_CHECKING:
    from classic_rpg.systems.quests.manager import QuestManager

log = logging.getLogger("maid.rpg.quests")

#: How many problems a start-up error lists.
MAX_LISTED = 20


class QuestSystem(System):
    """Loads authored quests, restores generated ones, runs quest timers.

    Priority 190: before the quest-generation pipeline (210+), so expiry and time
    limits are settled before new quests are built in the same tick.
    """

    phase = "quests"
    #: Game seconds an unanswered offer stands before it lapses (None: never), so
    #: ignored offers do not fill a player's offer cap for good.
    offer_lapse: ClassVar[float | None] = GAME_DAY
    #: Game seconds between lapse checks.
    LAPSE_CHECK_INTERVAL: ClassVar[float] = 600.0
    #: Game seconds between sweeps for quest foes nobody hunts any more.
    FOE_SWEEP_INTERVAL: ClassVar[float] = 60.0
    #: Game seconds between looks for quests run past twice their estimate.
    PACE_CHECK_INTERVAL: ClassVar[float] = 60.0

    def __init__(self, manager: QuestManager) -> None:
        self.manager = manager
        self._flush_task: asyncio.Task[None] | None = None
        self._next_lapse_check = 0.0
        self._next_foe_sweep = 0.0
        self._next_pace_check = 0.0
        #: (character, quest, run) already told they took too long.
        self._told_slow: set[tuple[UUID, str, int]] = set()
        # Retried every tick while the store is away: one line a minute.
        self._flush_failures = ThrottledLog(log, clock=lambda: self.engine.clock.monotonic())

    async def startup(self) -> None:
        quests, problems = load_pack_quests(self.engine)
        if problems:
            pack = problems[0][0]
            lines = [p for _, p in problems]
            listed = "\n  ".join(lines[:MAX_LISTED])
            more = f"\n  ... and {len(lines) - MAX_LISTED} more" if len(lines) > MAX_LISTED else ""
            raise PackError(
                pack,
                f"{len(lines)} problem(s) in its quest data:\n  {listed}{more}",
                # The first problem's file, without its line ("quests.yaml:12").
                file=re.sub(r":\d+$", "", lines[0].split(": ", 1)[0]),
            )
        if self.engine.has_store:
            # Stored history first, so authored quests keep their first created_at.
            documents = self.engine.store.documents
            await self.manager.registry.load(documents)
            await self.manager.history.load(documents)
        for quest in quests:
            self.manager.register_quest(quest)
        if self.engine.has_store:
            await self.manager.ledger.reconcile()
        self.manager.objectives.rebuild()
        log.info("quests loaded: %d definitions", len(self.manager.quests()))

    async def update(self, delta: float) -> None:
        self.manager.objectives.tick()
        now = self.engine.clock.game_time
        if self.offer_lapse is not None and now >= self._next_lapse_check:
            self._next_lapse_check = now + self.LAPSE_CHECK_INTERVAL
            self.manager.lapse_offers(self.offer_lapse)
        if now >= self._next_pace_check:
            self._next_pace_check = now + self.PACE_CHECK_INTERVAL
            self.manager.warn_slow(self._told_slow)
        if now >= self._next_foe_sweep:
            self._next_foe_sweep = now + self.FOE_SWEEP_INTERVAL
            self.manager.foes.sweep(self.engine.sessions.is_online)
        if not self.engine.has_store:
            self.manager.history.discard_pending()
            self.manager.registry.discard_pending()
            return
        if self._pending() and (self._flush_task is None or self._flush_task.done()):
            # Documents are written off the tick, like checkpoints; a failure keeps
            # them queued for the next try.
            self._flush_task = asyncio.create_task(self._background_flush())

    def _pending(self) -> bool:
        return bool(self.manager.history.pending or self.manager.registry.pending)

    async def _background_flush(self) -> None:
        try:
            await self.flush()
        except Exception as exc:
            self._flush_failures.warning(
                type(exc).__name__, "writing quest documents failed, will retry: %s", exc
            )
        else:
            self._flush_failures.clear()

    async def flush(self) -> None:
        """Write queued history and registry documents now."""
        await self.manager.flush()

    async def shutdown(self) -> None:
        task = self._flush_task
        if task is not None and not task.done():
            await task
        try:
            await self.flush()
        except Exception:
            log.exception("writing quest documents at shutdown failed")
