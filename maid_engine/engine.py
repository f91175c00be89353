"""GameEngine: packs, systems, the tick, checkpoints.

The engine is built and torn down by one async lifespan::

    async with GameEngine(settings).lifespan() as engine:
        await engine.run_ticks(10)

Ticks and player commands take turns with the world: both hold
``engine.world_lock`` while they touch it, so a system that awaits inside
``update()`` cannot be surprised by a command half-way through. A tick that falls
due goes before the commands waiting for the lock then
(:class:`~maid_engine.worldlock.WorldLock`): a burst of commands cannot make it
late. A command that comes in during a tick need not wait for all of it: between
two systems, once the tick has worked ``settings.tick_lend_after`` since it last
looked and while anyone is connected, it lends the world to the players' commands
waiting, one whole command at a time; once it has given ``settings.tick_lend_budget``
in one tick it starts no more (a command already lent still runs to its end).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from maid_engine.changes import ChangeCollector, CollectedChanges
from maid_engine.clock import GameClock
from maid_engine.collector import CollectorPolicy, SwitchInterval
from maid_engine.commands import CommandContext, CommandRegistry, run_line
from maid_engine.config import Settings
from maid_engine.content import (
    ContentPack,
    PackContext,
    PackError,
    Registries,
    Services,
    collect_packs,
    register_packs,
)
from maid_engine.ecs import System, World
from maid_engine.ecs.component import load_component
from maid_engine.ecs.schedule import ScheduleRow, resolve_order, schedule_rows
from maid_engine.ecs.world import seeded_ids
from maid_engine.events import (
    EngineStartedEvent,
    EngineStoppingEvent,
    EntityDestroyedEvent,
    EventBus,
    ShutdownRequestedEvent,
)
from maid_engine.llm.service import CACHE_COLLECTION, LLMService
from maid_engine.logs import ThrottledLog, raising_frame
from maid_engine.metrics import EngineMetrics
from maid_engine.pacing import Pacer, RealPacer
from maid_engine.ports import TransactionWrites
from maid_engine.reliability import SaveMonitor
from maid_engine.session_manager import SessionManager
from maid_engine.sessions import Session
from maid_engine.slicing import TickSlice
from maid_engine.turns import give_way
from maid_engine.worldlock import Holding, WorldLock

if TYPE_CHECKING:
    # maid_engine.store is imported where a store is opened or written: it pulls in
    # SQLAlchemy, which an engine without a database never loads.
    from maid_engine.store import Store

log = logging.getLogger("maid.engine")

ENGINE_COLLECTION = "engine_state"


@dataclass
class _Lending:
    """A tick's lending of the world to commands (``GameEngine.lend_point``)."""

    holding: Holding
    #: When the tick last gave the commands their chance.
    looked: float
    #: Real seconds given away so far in this tick.
    lent: float = 0.0
    #: The same, on the engine's clock: what a system's share of the tick
    #: (``TickSlice``, which reads that clock) leaves out.
    lent_on_clock: float = 0.0
    #: The engine's clock when the tick's systems began (what is left of
    #: ``tick_budget``).
    began_on_clock: float = 0.0


#: A share's limit so short that it is spent after the system's first step: a
#: tick already past its budget still lets each spread system move on a little
#: (a limit of 0 would mean no limit at all).
_ONE_STEP = 1e-9

#: Tries of the last checkpoint at shutdown (0.5 s, 1 s, 2 s ... apart).
FINAL_CHECKPOINT_ATTEMPTS = 4
FINAL_CHECKPOINT_FIRST_DELAY = 0.5


class GameEngine:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        clock: GameClock | None = None,
        packs: Sequence[str | type[ContentPack] | ContentPack] | None = None,
        store: Store | None = None,
        use_store: bool = True,
    ) -> None:
        # Collaborators get the narrow ports they use (maid_engine.ports), never the
        # engine itself; systems, commands and packs see it as the composite Host.
        self.settings = settings or Settings()
        self.clock = clock or GameClock(time_scale=self.settings.time_scale)
        seed = self.settings.random_seed
        # Seeded: entity ids are part of what a seed reproduces (see seeded_ids).
        self.world = World(seeded_ids(seed) if seed is not None else None)
        self.events = EventBus()
        self.commands = CommandRegistry()
        self.services = Services()
        #: The extension registries plugins declared; locked once the engine started.
        self.registries = Registries()
        self.metrics = EngineMetrics()
        self.random = random.Random(self.settings.random_seed)
        #: Whether this engine holds the thread switch interval (settings.switch_interval).
        self._switch_held = False
        #: The cyclic GC's schedule (maid_engine.collector); off with gc_freeze=False.
        self.collector = CollectorPolicy(
            self.settings.gc_refreeze_interval,
            self.settings.gc_deep_interval,
            collect_gap=self.settings.gc_collect_gap,
            freeze_survivors=self.settings.gc_freeze_survivors,
            young_runs=self.settings.gc_young_runs,
        )
        #: Ticks and commands take turns with the world; a tick that falls due goes
        #: before the commands waiting then (maid_engine.worldlock).
        self.world_lock = WorldLock()
        self.sessions = SessionManager(self._run_session_line, started_at=lambda: self.started_at)
        self._pack_refs = list(packs) if packs is not None else list(self.settings.packs)
        self.packs: list[ContentPack] = []
        self._systems: list[System] = []
        self._sorted: list[System] | None = None
        self._system_packs: dict[int, str] = {}
        self._collections: set[str] = {ENGINE_COLLECTION}
        self._store = store
        self._use_store = use_store
        self._owns_store = store is None
        self._system_errors: dict[str, int] = {}
        # A system that fails every tick logs once a minute per distinct error (the
        # first at once, with its traceback), not ten times a second.
        self._system_failure_log = ThrottledLog(log, clock=lambda: self.clock.monotonic())
        self._checkpoint_task: asyncio.Task[None] | None = None
        #: The world's changes, collected in pieces between ticks (maid_engine.changes).
        self.changes = ChangeCollector(self.world)
        #: The newest write of the world to the store (commit_now); the next waits for it.
        self._writing: asyncio.Task[int] | None = None
        #: Real time for the checkpoint schedule (a test steps its own).
        self.real_time: Callable[[], float] = time.monotonic
        self._last_checkpoint = self.real_time()
        #: Entities one checkpoint slice stages here (measured; 0 until a slice
        #: has run its whole time): the rest of a collection is finished in one
        #: go once it fits.
        self._slice_entities = 0
        #: The running tick's lending (None between ticks).
        self._lending: _Lending | None = None
        self.started = False
        self.tick_count = 0
        self.tick_overruns = 0
        self.checkpoint_failures = 0
        self.final_checkpoint_failed = False
        self.started_at = time.time()
        self.metrics.watch_events(self.events)
        #: Tells players when checkpoints cannot reach the database (and when they can again).
        self.saving = SaveMonitor(self.metrics, self.sessions)
        self.metrics.watch_sessions(self.sessions)
        self.commands.on_executed = self.metrics.command_executed
        #: The process's one LLM provider (None without a model), shared by every
        #: LLM user so the rate limit and token budget are global. Budget and rate
        #: run on the engine's monotonic clock (a ManualClock steps them in tests),
        #: cache TTLs on its wall clock.
        self.llm = LLMService.from_settings(
            self.settings, self.metrics, clock=self.clock.monotonic, wall=self.clock.wall
        )
        self.services.provide(LLMService, self.llm)
        self._collections.add(CACHE_COLLECTION)
        #: Set by request_shutdown(); the server's main loop waits on it.
        self.shutdown_requested = asyncio.Event()
        self.shutdown_reason = ""

    def request_shutdown(self, reason: str = "", requested_by: Any = None) -> None:
        """Ask the hosting server to stop gracefully (players told, final checkpoint)."""
        self.shutdown_reason = reason
        self.events.emit(ShutdownRequestedEvent(reason=reason, requested_by=requested_by))
        self.shutdown_requested.set()

    async def _run_session_line(self, session: Session, line: str) -> None:
        """A puppeting session's command line (the SessionManager's ``run_line``): run
        under the world lock, so it never runs inside a system's update."""
        ctx = CommandContext(
            engine=self,
            session=session,
            actor=session.character_id,
            role=self.sessions.role_of(session),
            account_id=session.account_id,
        )
        async with self.world_lock.command():
            await run_line(self, ctx, line)

    # -- registration -------------------------------------------------------------
    def add_system(self, system: System, *, pack: str | None = None) -> None:
        """Add ``system`` to the tick (``pack``: who added it, for ``maid systems``)."""
        system.bind(self)
        self._systems.append(system)
        if pack is not None:
            self._system_packs[id(system)] = pack
        self._sorted = None

    @property
    def systems(self) -> list[System]:
        """Systems in run order, resolved from their phases and after/before
        declarations (maid_engine.ecs.schedule); ScheduleError if they conflict."""
        if self._sorted is None:
            self._sorted = resolve_order(self._systems)
        return self._sorted

    def resolved_schedule(self) -> list[ScheduleRow]:
        """The resolved order as rows (phase, system, pack, after/before)."""
        return schedule_rows(self.systems, self._system_packs)

    def get_system(self, system_type: type[Any]) -> Any:
        """The registered system of ``system_type`` (or a subclass); LookupError if none."""
        for system in self._systems:
            if isinstance(system, system_type):
                return system
        raise LookupError(f"no {system_type.__name__} registered")

    def declare_collection(self, name: str) -> None:
        self._collections.add(name)

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the engine has no store (use_store=False)")
        return self._store

    @property
    def has_store(self) -> bool:
        return self._store is not None

    # -- lifespan -------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[GameEngine]:
        await self.start()
        try:
            yield self
        finally:
            await self.stop()

    async def start(self) -> None:
        if self.started:
            return
        self.register_packs()
        # Resolve the schedule before touching the database: a conflict in the
        # declared order is a start-up error naming the systems.
        for system in self.systems:
            self.metrics.system_known(system.name)
        for cmd in self.commands.all():
            self.metrics.category_known(cmd.category)
        if self._use_store:
            if self._store is None:
                from maid_engine.store import Store

                self.settings.data_dir.mkdir(parents=True, exist_ok=True)
                self._store = Store(self.settings.resolved_database_url)
            await self._store.open()
            for name in sorted(self._collections):
                await self._store.documents.ensure_collection(name)
            await self._load_world()
        await self.llm.start(self._store.documents if self._store is not None else None)
        for pack in self.packs:
            try:
                await pack.on_world_loaded(PackContext(self, pack))
            except PackError:
                raise
            except Exception as exc:
                raise PackError(pack.name, f"building the world failed: {exc}") from exc
        for system in self.systems:
            await system.startup()
        # Everything that reads the extension registries has read them by now: a
        # late entry would reach some readers and not others (see
        # maid_engine.content.registries; unlock() is the seam for a future reload).
        self.registries.lock()
        self.started = True
        self.started_at = time.time()
        self.events.emit(EngineStartedEvent())
        await self.dispatch_events()
        # The loaded world lives as long as the engine: freeze it out of the cyclic
        # GC, and run full collections only between ticks (maid_engine.collector).
        # (The test suite turns it off: thousands of engine starts in one process,
        # each paying a full collection.) Before the first checkpoint: in a new
        # world that one writes everything, and its allocations set off full
        # collections of the whole unfrozen world, one after another (3.8 s where
        # the JSON alone takes about 1 s at 10,000 NPCs).
        if self.settings.gc_freeze:
            self.collector.start()
        if self._store is not None:
            try:
                await self.checkpoint()
            except BaseException:
                # Not started: stop() will not give the process's collector back.
                self.collector.stop()
                raise
        self._switch_held = SwitchInterval.hold(self.settings.switch_interval)
        log.info(
            "engine started: %d packs, %d systems, %d entities",
            len(self.packs),
            len(self._systems),
            self.world.entity_count,
        )

    def register_packs(self) -> None:
        """Collect the configured packs and let each register what it adds (once;
        ``start()`` calls it, ``maid systems`` calls only this)."""
        if self.packs:
            return
        self.packs = collect_packs(self._pack_refs)
        register_packs(self, self.packs)

    async def stop(self) -> None:
        if not self.started:
            if self._store is not None and self._owns_store:
                await self._store.close()
            return
        self.started = False
        try:
            await self.events.publish(EngineStoppingEvent())
            for system in reversed(self.systems):
                try:
                    await system.shutdown()
                except Exception:
                    log.exception("system %s failed to shut down", system.name)
            await self.llm.close()
            if self._store is not None:
                await self._await_checkpoint()
                await self._final_checkpoint()
                if self._owns_store:
                    await self._store.close()
        finally:
            # Whatever failed above, the process gets its collector back (and this
            # world's cycles can be freed).
            self.collector.stop()
            if self._switch_held:
                self._switch_held = False
                SwitchInterval.release()

    async def _final_checkpoint(self) -> None:
        """The last write before exit. A database that is briefly away gets a few
        tries; if it stays away, ``final_checkpoint_failed`` tells the caller that
        unsaved changes were lost (``maid run`` then exits non-zero)."""
        delay = FINAL_CHECKPOINT_FIRST_DELAY
        for attempt in range(1, FINAL_CHECKPOINT_ATTEMPTS + 1):
            try:
                await self.checkpoint()
                self.final_checkpoint_failed = False
                return
            except Exception as exc:
                log.warning("final checkpoint attempt %d failed: %s", attempt, exc)
                if attempt < FINAL_CHECKPOINT_ATTEMPTS:
                    await asyncio.sleep(delay)
                    delay *= 2
        self.final_checkpoint_failed = True
        log.error(
            "final checkpoint failed %d times: changes since the last checkpoint are lost",
            FINAL_CHECKPOINT_ATTEMPTS,
        )

    # -- the tick -------------------------------------------------------------------
    async def dispatch_events(self) -> None:
        """The safe point: destroy what was scheduled, then deliver queued events,
        and again until neither is left (a handler may destroy entities in turn,
        whose EntityDestroyedEvent must reach everyone like any other)."""
        while True:
            for uid in self.world.flush_destroyed():
                self.events.emit(EntityDestroyedEvent(uid))
            if not self.events.pending:
                return
            await self.events.dispatch_pending()

    async def tick(self) -> float:
        """Run every system once, in schedule order. Returns the tick's own wall
        time: the moments it gave the loop (to read what came in and run the
        commands it lent the world to) are not in it."""
        started = time.perf_counter()
        async with self.world_lock.first() as holding:
            lending = self._lending = _Lending(holding, time.perf_counter())
            try:
                delta = self.clock.advance()
                # After the advance: a manual clock's moves its monotonic time.
                lending.began_on_clock = self.clock.monotonic()
                systems = self.systems
                # After the last system the tick lets go anyway: no point looking there.
                last = systems[-1] if systems else None
                for system in systems:
                    t0 = time.perf_counter()
                    lent_before = lending.lent
                    try:
                        await system.update(delta)
                    except Exception as exc:
                        self._system_failed(system, exc)
                    self.metrics.system_duration.labels(system.name).observe(
                        time.perf_counter() - t0 - (lending.lent - lent_before)
                    )
                    await self.dispatch_events()
                    if system is not last:
                        await self._lend_if_due(lending)
            finally:
                self._lending = None
        self.tick_count += 1
        self._system_failure_log.flush_due()
        elapsed = time.perf_counter() - started - lending.lent
        self.metrics.ticks.inc()
        self.metrics.tick_duration.observe(elapsed)
        self.metrics.entities.set(self.world.entity_count)
        return elapsed

    async def lend_point(self) -> bool:
        """A point inside a system's update where the world and the system's own
        state are whole (between two NPCs of a batch, say): if the tick has worked
        ``tick_lend_after`` since it last looked, the events so far are delivered
        and the world is lent to the commands waiting, as between two systems.
        Returns whether any command ran (what the system read of the world before
        may have changed). Outside a tick it does nothing; cheap when not due."""
        lending = self._lending
        if lending is None or not self._lend_due(lending):
            return False
        await self.dispatch_events()
        return await self._lend(lending, self.settings.tick_lend_budget - lending.lent) > 0

    def lend_due(self) -> bool:
        """Whether ``lend_point`` would lend now. Cheap: a system that works in
        small synchronous steps asks between two, and stops where its state is
        whole to await ``lend_point``."""
        lending = self._lending
        return lending is not None and self._lend_due(lending)

    def tick_slice(self, system: str) -> TickSlice:
        """``system``'s share of this tick's real time, from now
        (``settings.tick_slice``; what the tick lends to commands meanwhile is not
        counted), and no more than what is left of the tick's ``tick_budget``: a
        tick already past it leaves the system one step. Outside a tick it counts
        ``tick_slice`` from now."""
        lending = self._lending
        cut = self.metrics.slices_spent.labels(system).inc
        clock = self.clock.monotonic
        limit = self.settings.tick_slice
        if lending is None:
            return TickSlice(clock, limit, cut=cut)
        budget = self.settings.tick_budget
        if budget > 0:
            left = budget - (clock() - lending.began_on_clock - lending.lent_on_clock)
            limit = max(min(limit, left) if limit > 0 else left, _ONE_STEP)
        return TickSlice(clock, limit, lambda: lending.lent_on_clock, cut)

    def _lend_due(self, lending: _Lending) -> bool:
        # Nobody connected: no command can come in, and other tasks wait for the
        # tick's end as they always did.
        return (
            time.perf_counter() - lending.looked >= self.settings.tick_lend_after
            and lending.lent < self.settings.tick_lend_budget
            and self.sessions.connected_count > 0
        )

    async def _lend_if_due(self, lending: _Lending) -> None:
        if self._lend_due(lending):
            await self._lend(lending, self.settings.tick_lend_budget - lending.lent)

    async def _lend(self, lending: _Lending, budget: float) -> int:
        """Let the loop read what came in, then lend the world to the commands
        waiting for it, one after another, starting none once ``budget`` (seconds)
        is spent. The time given away goes to ``lending.lent``; returns the
        commands lent it."""
        started = time.perf_counter()
        started_on_clock = self.clock.monotonic()
        await give_way()
        lent = 0
        while time.perf_counter() - started < budget and await lending.holding.lend():
            lent += 1
        if lent:
            self.metrics.commands_lent.inc(lent)
        lending.looked = time.perf_counter()
        lending.lent += lending.looked - started
        lending.lent_on_clock += self.clock.monotonic() - started_on_clock
        return lent

    def _system_failed(self, system: System, exc: Exception) -> None:
        count = self._system_errors.get(system.name, 0) + 1
        self._system_errors[system.name] = count
        self.metrics.system_errors.labels(system.name).inc()
        # One distinct error is its type raised at one place by one system. The first
        # of each is written with its traceback at once, however many of another came
        # before (a new failure is never hidden behind an old one); repeats are only
        # counted, and written as a count once a minute (flush_due after the tick).
        where = raising_frame(exc)
        kind = type(exc).__qualname__
        self._system_failure_log.log(
            logging.ERROR,
            f"{system.name}|{kind}|{where}",
            "system %s failed: %s at %s (failure #%d of this system); the tick goes on",
            system.name,
            kind,
            where,
            count,
            exc_info=exc,
        )

    def system_errors(self, name: str) -> int:
        return self._system_errors.get(name, 0)

    async def run_ticks(self, n: int) -> None:
        """Run ``n`` ticks back to back (tests and simulations use a manual clock)."""
        for _ in range(n):
            await self.tick()

    async def run(self, stop: asyncio.Event, pacer: Pacer | None = None) -> None:
        """Tick at ``settings.tick_rate`` until ``stop`` is set; checkpoint periodically.

        Time comes from ``pacer`` (the real monotonic clock and asyncio timers by
        default; tests pass a ManualPacer). A tick that takes longer than the
        interval is counted as an overrun. Ticks start on a fixed grid; a tick
        that ends less than one interval late lets the next start at once (the
        grid is kept), but a backlog of more than one interval is dropped instead
        of being caught up with a burst of ticks (no death spiral): the grid
        restarts from now.
        """
        pacer = pacer or RealPacer()
        interval = 1.0 / self.settings.tick_rate
        deadline = pacer.monotonic()
        while not stop.is_set():
            started = pacer.monotonic()
            await self.tick()
            if pacer.monotonic() - started > interval:
                self.tick_overruns += 1
                self.metrics.tick_overruns.inc()
            await self.between_ticks()
            deadline += interval
            now = pacer.monotonic()
            if now - deadline > interval:
                deadline = now
            await pacer.wait(max(0.0, deadline - now), stop)

    async def between_ticks(self) -> None:
        """Housekeeping that must not run inside a tick: a piece of the checkpoint
        being collected (one starts when one is due) and the garbage collection the
        collector policy schedules. ``run()`` awaits it after every tick (a
        benchmark stepping ticks by hand does too).

        Each starts only after the loop's turns: the commands that came in during
        the tick's last piece (the world was handed to the first of them as the
        tick let go) run before it, not after a slice of checkpoint or a
        collection of 15-30 ms."""
        if self._store is not None:
            await self._checkpoint_piece()
        if self.collector.due():
            await give_way()
        record = self.collector.maintain()
        if record is not None:
            self.metrics.gc_pauses.labels(record.kind).observe(record.seconds)

    async def _checkpoint_piece(self) -> None:
        """Collect the next piece of a checkpoint, or start one when it is due; write
        it once the rest fits one slice (maid_engine.changes).

        The piece is staged in slices of ``checkpoint_slice`` real seconds with the
        loop given its turns between them: a command that comes in meanwhile has
        the world after one slice instead of after the whole piece (a few ms at
        10,000 NPCs). A command may change the world between two slices; the
        collector takes those changes with the next, as it does a tick's."""
        changes = self.changes
        if not changes.active:
            if self.real_time() - self._last_checkpoint < self.settings.checkpoint_interval:
                return
            if self._checkpoint_task is not None and not self._checkpoint_task.done():
                return  # the previous checkpoint is still being written
            self._last_checkpoint = self.real_time()
        # A command that came in as the tick let go runs first (between_ticks).
        await give_way()
        budget = self.settings.checkpoint_piece
        slice_seconds = self.settings.checkpoint_slice
        staged = 0
        first = True
        while True:
            if self.world_lock.locked():
                # A command holds the world, perhaps half-way through a change: the
                # piece waits for the next gap between ticks.
                return
            if not first and not changes.active:
                return  # a commit finished the collection meanwhile
            # What is left fits one slice (or the whole piece when pieces are not
            # sliced): finish now. Nothing else runs while this synchronous code
            # does: the world is between changes, as commit_now requires.
            fits = budget if slice_seconds <= 0 else self._slice_entities
            if (
                budget <= 0
                or changes.ready(fits)
                or (first and changes.pieces >= self.settings.checkpoint_max_pieces)
            ):
                pending = self.commit_now()
                self._checkpoint_task = asyncio.create_task(self._await_checkpoint_write(pending))
                return
            enough = (
                self._slice_over(self.real_time() + slice_seconds) if slice_seconds > 0 else None
            )
            t0 = time.perf_counter()
            if first:
                count = changes.step(budget - staged, enough)
            else:
                count = changes.resume(budget - staged, enough)
            self._collected_for(time.perf_counter() - t0)
            if enough is not None and count and enough():
                # A slice that ran its time: what one slice stages on this machine.
                self._slice_entities = count
            staged += count
            first = False
            if staged >= budget or slice_seconds <= 0:
                return
            await give_way()

    def _slice_over(self, until: float) -> Callable[[], bool]:
        return lambda: self.real_time() >= until

    async def _await_checkpoint_write(self, pending: Awaitable[int]) -> None:
        try:
            await pending
        except Exception as exc:
            log.warning("checkpoint failed, will retry: %s", exc)

    def _collected_for(self, seconds: float) -> None:
        self.metrics.checkpoint_collect.observe(seconds)
        if seconds > self.metrics.checkpoint_collect_longest:
            self.metrics.checkpoint_collect_longest = seconds
            self.metrics.checkpoint_collect_max.set(seconds)

    # -- persistence ----------------------------------------------------------------
    async def _load_world(self) -> None:
        assert self._store is not None
        state = await self._store.documents.get(ENGINE_COLLECTION, "clock")
        if state is not None and "game_time" in state:
            self.clock.game_time = float(state["game_time"])
        stored = await self._store.entities.load_all()
        unknown: set[str] = set()
        for uid, comps in stored.items():
            components = []
            for name, data in comps.items():
                try:
                    components.append(load_component(name, data))
                except KeyError:
                    unknown.add(name)
                except Exception as exc:
                    raise PackError(
                        "engine", f"stored component {name} of entity {uid} is invalid: {exc}"
                    ) from exc
            self.world.create_entity(*components, entity_id=uid)
        # Loading is not a change: nothing needs to be written back.
        self.world.take_changes()
        if stored:
            # A world restored from the store is no longer a seeded run from scratch,
            # and its seeded id sequence was used by the run that stored it.
            self.world.use_ids(uuid.uuid4)
        for name in sorted(unknown):
            log.warning("stored component type %r is unknown and was kept untouched", name)
        if stored:
            log.info("loaded %d entities from the store", len(stored))

    def _collect_changes(self) -> CollectedChanges | None:
        started = time.perf_counter()
        collected = self.changes.finish()
        self._collected_for(time.perf_counter() - started)
        return collected

    async def checkpoint(self) -> int:
        """Write what changed since the last checkpoint. Returns the entity count.

        On failure the changes are handed back to the world so the next checkpoint
        retries them; the exception propagates.
        """
        if self._store is None:
            return 0
        async with self.world_lock:
            pending = self.commit_now()
        self._last_checkpoint = self.real_time()
        return await pending

    def commit_now(self, writes: TransactionWrites | None = None) -> Awaitable[int]:
        """An early checkpoint carrying an operation's own writes.

        Collects the whole change set (dirty entities, removed components, destroyed
        entities, the clock) at once -- call it holding ``world_lock``, where no
        system is half-way through a change -- and writes it with ``writes`` in one
        transaction. Await the result for the write (it may be awaited inside or
        outside the lock); it returns the entity count like :meth:`checkpoint` and
        raises if nothing was written, the changes then handed back to the world.

        Why the whole set and not the operation's own entities: an entity changed by
        a trade is on disk only together with the other side of the trade, so a
        crash can never leave both sides (or neither) holding the goods.

        Only the collection needs the lock; the write runs outside it, as a
        checkpoint's does, so ticks and commands never wait for the database.
        Instead writes run one at a time in the order they were collected, so an
        older snapshot never lands over a newer one. If a write fails, a write collected
        while it was under way fails too without trying: it lacks the failed
        write's changes, which go back to the world for the next checkpoint (and a
        write collected after that takes them along).
        """
        if self._store is None:
            done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            done.set_result(0)
            return done
        collected = self._collect_changes()
        # A write that already failed handed its changes back before this collection
        # took them; only one still under way must land (or fail) first.
        previous = self._writing if self._writing is not None and not self._writing.done() else None
        task = asyncio.create_task(
            self._write_collected(previous, collected, self.clock.game_time, writes)
        )
        self._writing = task
        # A caller cancelled while it waits must not abort the write: the writes
        # collected after this one wait for it.
        return asyncio.shield(task)

    async def _write_collected(
        self,
        previous: asyncio.Task[int] | None,
        collected: CollectedChanges | None,
        game_time: float,
        writes: TransactionWrites | None,
    ) -> int:
        from maid_engine.store import (
            EntityChangeSet,
            StoreError,
            StoreUnavailable,
            encode_upserts,
        )

        earlier: BaseException | None = None
        if previous is not None:
            await asyncio.wait([previous])
            earlier = asyncio.CancelledError() if previous.cancelled() else previous.exception()
        assert self._store is not None
        started = time.perf_counter()
        count = 0
        try:
            if earlier is not None:
                kind = StoreUnavailable if isinstance(earlier, StoreUnavailable) else StoreError
                raise kind(f"an earlier write of the world failed: {earlier}") from earlier
            # The JSON text first, a slice at a time with other tasks running in
            # between, and outside the transaction (a SQLite writer holds the
            # database's lock while it is open).
            upserts = await encode_upserts(collected.upserts) if collected is not None else {}
            async with self._store.atomic() as tx:
                if writes is not None:
                    await writes(tx)
                if collected is not None:
                    changes = EntityChangeSet(
                        upserts=upserts,
                        removed=collected.removed,
                        destroyed=collected.destroyed,
                    )
                    await tx.entities.save(changes)
                    count = len(changes.upserts) + len(changes.destroyed)
                await tx.documents.put(ENGINE_COLLECTION, "clock", {"game_time": game_time})
        except BaseException as exc:
            if collected is not None:
                collected.hand_back(self.world)
            if isinstance(exc, Exception):
                self.checkpoint_failures += 1
                self.metrics.checkpoint_failures.inc()
                self.saving.checkpoint_failed(exc)
            raise
        self.metrics.checkpoint_duration.observe(time.perf_counter() - started)
        self.metrics.checkpoint_entities.inc(count)
        self.saving.checkpoint_succeeded()
        return count

    @property
    def writing_world(self) -> bool:
        """Whether a write of the world (a checkpoint or a commit) is under way."""
        return self._writing is not None and not self._writing.done()

    async def save_entities_now(self, *entity_ids: Any) -> None:
        """Make sure the given entities are on disk before returning (used for
        things that must never be lost, such as a new character).

        They are written by a commit of everything changed since the last
        checkpoint (see :meth:`commit_now`): an entity is never written alone. Every
        existing entity is dirty, in a write already under way, or on disk, so once
        the commit is done ``entity_ids`` are on disk. It takes ``world_lock``
        itself: code holding the lock calls :meth:`commit_now` instead.
        """
        if self._store is None:
            return
        async with self.world_lock:
            pending = self.commit_now()
        await pending

    async def _await_checkpoint(self) -> None:
        task = self._checkpoint_task
        if task is not None and not task.done():
            with contextlib.suppress(Exception):
                await task
