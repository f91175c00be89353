"""NarrationService: the narrated rooms and their turn queues.

Turns of one room run one at a time, in the order they were asked for (a per-room
FIFO lock); rooms never wait for each other. Each turn is a background task: the
command that asks for it returns at once, the LLM call runs without any engine
lock, and ``engine.world_lock`` is taken only to read the scene and to apply the
result (see :mod:`maid_stdlib.narration.turn`). Undo and retry are queued the same
way, so they can never interleave with a turn in flight.

Tests and tools await a :class:`TurnHandle` (or :meth:`NarrationService.drain`)
instead of sleeping.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from maid_engine.llm import ContentFilter, LLMLimiter, LLMProvider, LLMQuotaExceeded
from maid_engine.ports import MetricsPort, SettingsPort, StorePort
from maid_stdlib.narration.config import NarrationConfig
from maid_stdlib.narration.jobs import DROPPED, FAILED, OUTCOMES, TurnHandle, TurnResult
from maid_stdlib.narration.llm import LLMService
from maid_stdlib.narration.rooms import RoomSetup, RoomsHost, collect_rooms, sync_room
from maid_stdlib.narration.turn import TurnHost, account_of, refusal_message, run_turn, run_undo
from maid_stdlib.narration.turnlog import MemoryTurnLog, StoreTurnLog, TurnLog
from maid_stdlib.world.service import WorldService
from maid_stdlib.worldstate import BlockReading, Report

if TYPE_CHECKING:
    from prometheus_client import Counter

log = logging.getLogger("maid.narration")


class NarrationError(Exception):
    """A turn cannot be asked for; the message is for the player."""


class NarrationHost(TurnHost, RoomsHost, MetricsPort, StorePort, SettingsPort, Protocol):
    """What the narration service uses of the engine: what its turns use, the
    packs' narrated rooms, its metrics, the turn log's store and the LLM timeout."""


class _RoomQueue:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()  # asyncio.Lock wakes waiters in FIFO order
        self.jobs = 0


Job = Callable[[TurnHandle], Awaitable[TurnResult]]


class NarrationService:
    def __init__(self, engine: NarrationHost, config: NarrationConfig | None = None) -> None:
        self.engine = engine
        self.config = config or NarrationConfig()
        self.rooms: dict[str, RoomSetup] = {}
        #: Checks every narration before anyone sees it; None turns the check off.
        self.content_filter: ContentFilter | None = ContentFilter()
        self._provider: LLMProvider | None = None
        self._provider_set = False
        self._log: TurnLog | None = None
        self._queues: dict[str, _RoomQueue] = {}
        self._handles: set[TurnHandle] = set()
        self.turns_total: Counter = engine.metrics.counter(
            "maid_narrated_turns", "Narrated-room turns by outcome", ["outcome"], known=OUTCOMES
        )
        self.changes_total: Counter = engine.metrics.counter(
            "maid_narrated_changes",
            "Changes proposed by the model in narrated rooms, by what the engine did",
            ["kind"],
            known=("applied", "clamped", "rejected"),
        )
        self.state_blocks_total: Counter = engine.metrics.counter(
            "maid_narrated_state_blocks",
            "State blocks in the model's replies in narrated rooms, by how they were read "
            "(strict, lenient: read as meant after forgiving its form, unreadable: refused)",
            ["read"],
            known=("strict", "lenient", "unreadable"),
        )

    # -- set-up ------------------------------------------------------------------------
    def start(self) -> None:
        """Read the narrated rooms from the world data and prepare each one."""
        self.rooms = collect_rooms(self.engine)
        for setup in self.rooms.values():
            sync_room(self.engine, setup)
        if self.rooms:
            log.info("narration: %d narrated rooms", len(self.rooms))

    async def shutdown(self) -> None:
        """Drop turns still waiting for the model; let those applying finish."""
        for handle in list(self._handles):
            if handle.phase in ("queued", "reading", "calling"):
                handle.task.cancel()
        await asyncio.gather(*(h.task for h in list(self._handles)), return_exceptions=True)

    @property
    def provider(self) -> LLMProvider | None:
        """The model narration asks: set explicitly, else the engine's LLMService's."""
        if self._provider_set:
            return self._provider
        service = self.engine.services.try_get(LLMService)
        return service.provider if service is not None else None

    @provider.setter
    def provider(self, value: LLMProvider | None) -> None:
        self._provider, self._provider_set = value, True

    def has_storyteller(self) -> bool:
        """Whether a model tells the narrated rooms' turns (without one, a turn is
        a sketch that changes nothing)."""
        return self.provider is not None

    def bound_facts(self) -> set[str]:
        """The world facts a narrated room's milestones or flags make true."""
        return {
            bound.target.name
            for setup in self.rooms.values()
            for bound in setup.bindings.values()
            if bound.binder.name == "world.fact"
        }

    @property
    def log(self) -> TurnLog:
        """Where turns are stored: the engine's store, or memory without one."""
        if self._log is None:
            engine = self.engine
            self._log = StoreTurnLog(engine) if engine.has_store else MemoryTurnLog()
        return self._log

    @property
    def timeout(self) -> float:
        cfg = self.config.timeout
        return cfg if cfg is not None else float(self.engine.settings.llm_timeout)

    @property
    def ws(self) -> WorldService:
        return self.engine.services.get(WorldService)

    # -- lookups -------------------------------------------------------------------------
    def setup_for(self, room_key: str | None) -> RoomSetup | None:
        return self.rooms.get(room_key) if room_key else None

    def room_of(self, actor: UUID) -> RoomSetup | None:
        """The narrated room ``actor`` stands in, if any."""
        return self.setup_for(self.ws.room_key_of(actor))

    def waiting(self, room_key: str) -> int:
        """Jobs of the room queued or running."""
        queue = self._queues.get(room_key)
        return queue.jobs if queue is not None else 0

    async def drain(self) -> None:
        """Wait until every queued job has finished (including jobs they queue)."""
        while self._handles:
            await asyncio.gather(*(h.task for h in list(self._handles)), return_exceptions=True)

    # -- asking for turns ------------------------------------------------------------------
    def submit_action(self, actor: UUID, text: str) -> TurnHandle:
        """Queue a free-form action in the actor's narrated room."""
        setup = self._require_room(actor)
        text = " ".join(text.split())
        if not text:
            raise NarrationError("Act how? Type what you do, e.g. 'act search the tents'.")
        limit = self.config.max_action_length
        if len(text) > limit:
            raise NarrationError(f"That is too much at once (at most {limit} characters).")
        self._require_quota(actor)
        return self._queue(setup, actor, "act", lambda h: run_turn(self, h, setup, actor, text))

    def submit_retry(self, actor: UUID) -> TurnHandle:
        """Queue a new telling of the actor's last turn here (its changes undone first)."""
        setup = self._require_room(actor)
        self._require_quota(actor)
        return self._queue(setup, actor, "retry", lambda h: run_turn(self, h, setup, actor, None))

    def submit_undo(self, actor: UUID) -> TurnHandle:
        """Queue taking back the actor's last turn here."""
        setup = self._require_room(actor)
        return self._queue(setup, actor, "undo", lambda h: run_undo(self, h, setup, actor))

    def _require_room(self, actor: UUID) -> RoomSetup:
        setup = self.room_of(actor)
        if setup is None:
            raise NarrationError("Nothing here answers to free-form actions.")
        return setup

    def quota_refusal(self, actor: UUID) -> LLMQuotaExceeded | None:
        """The refusal the actor's next turn would get from their own LLM quotas.

        Asked before a turn is queued, so a player whose share is used is told at
        once, and the room is not told of an action that will not be narrated.
        """
        limiter = getattr(self.provider, "limiter", None)
        if not isinstance(limiter, LLMLimiter):
            return None
        return limiter.check_quota(account_of(self, actor), str(actor), "narration")

    def _require_quota(self, actor: UUID) -> None:
        refusal = self.quota_refusal(actor)
        if refusal is not None:
            raise NarrationError(refusal_message(refusal))

    def _queue(self, setup: RoomSetup, actor: UUID, kind: str, job: Job) -> TurnHandle:
        mine = sum(1 for h in self._handles if h.actor == actor and not h.done())
        if mine >= self.config.max_pending_per_actor:
            raise NarrationError("The story is still answering your last action; wait for it.")
        queue = self._queues.setdefault(setup.key, _RoomQueue())
        handle = TurnHandle(setup.key, actor, kind)
        queue.jobs += 1

        async def run() -> TurnResult:
            try:
                async with queue.lock:
                    handle.phase = "reading"
                    return await job(handle)
            except asyncio.CancelledError:
                self.count_turn(DROPPED)
                raise
            except Exception:
                log.exception("narrated %s in %s failed", kind, setup.key)
                self.count_turn(FAILED)
                self.engine.sessions.send_to(
                    actor, "Something went wrong telling that; it has been logged."
                )
                return TurnResult(FAILED)
            finally:
                queue.jobs -= 1
                handle.phase = "done"

        handle.task = asyncio.create_task(run(), name=f"narration:{setup.key}:{kind}")
        self._handles.add(handle)
        handle.task.add_done_callback(lambda _t: self._handles.discard(handle))
        return handle

    # -- metrics -----------------------------------------------------------------------------
    def count_blocks(self, blocks: Iterable[BlockReading]) -> None:
        for block in blocks:
            self.state_blocks_total.labels(block.result).inc()

    def count_turn(self, outcome: str, report: Report | None = None) -> None:
        self.turns_total.labels(outcome).inc()
        if report is not None:
            for kind, items in (
                ("applied", report.applied),
                ("clamped", report.clamped),
                ("rejected", report.rejected),
            ):
                if items:
                    self.changes_total.labels(kind).inc(len(items))
