"""StorySignalSystem (phase story): turns detected situations into story signals.

Every ``interval`` game seconds it starts a round that runs every registered
detector's pass once, in registration order, with one :class:`DetectionContext`.
The round's work is paced by game time: a tick of ``delta`` game seconds does
``ceil(work_per_second * delta)`` units of it (a unit is an entity or item a sliced
detector visits; a plain detector's whole pass counts as one), so a big world never
stalls a tick on a whole scan; a tick that covers ``round_seconds`` or more (a fast
simulation) runs the whole round at once, exactly as one pass over the world. Work
is counted, never timed: the same seed gives the same story. A detector's detections
are judged when its pass is finished: a situation (its ``situation_key``) is
signalled once when it first appears, again only when its severity band changes,
and is forgotten -- with a :class:`StorySituationResolvedEvent` -- when the pass no
longer reports it; if it arises again later it is a new signal. The table of live
situations is kept in the DocumentStore (collection ``story_situations``) so a
restart does not signal everything again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import deque
from collections.abc import Callable, Collection, Generator, Iterable
from dataclasses import dataclass, field
from math import ceil

from maid_engine.ecs import System
from maid_engine.events import EntityDestroyedEvent
from maid_engine.jsontext import dump_json
from maid_engine.logs import ThrottledLog
from maid_engine.slicing import TickSlice
from maid_engine.turns import in_turns
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.story.detectors import (
    DETECTION_UNITS,
    Detection,
    DetectionContext,
    Detector,
    StoryDetectors,
    Work,
    chunks,
)
from maid_stdlib.story.signals import (
    StorySignal,
    StorySignalEvent,
    StorySituationResolvedEvent,
    missing_context,
)

log = logging.getLogger("maid.story")

COLLECTION = "story_situations"
_DOC = "active"


@dataclass
class Situation:
    signal_type: str
    band: str
    signal_id: str
    since: float
    detector: str


@dataclass
class RoundStats:
    """What the last finished round took (admin views, tests)."""

    started: float
    finished: float
    ticks: int
    work: int


@dataclass
class SituationSearch:
    """``situations_now`` spread over ticks (the daily floor's wider search): the
    detectors of ``signal_types`` run on the story round's pace, and ``signals``
    holds what they found once ``done``."""

    signal_types: frozenset[str]
    ctx: DetectionContext
    queue: deque[Detector]
    signals: list[StorySignal] = field(default_factory=list)
    done: bool = False
    #: The detector in progress and its work.
    detector: Detector | None = None
    work: Generator[int, None, Iterable[Detection] | None] | None = None


@dataclass
class _Round:
    ctx: DetectionContext
    queue: deque[Detector]
    #: Signals emitted by the round, when the caller wants them (detect_now).
    emitted: list[StorySignal] | None = None
    #: The pass in progress (the detector's work, then judging its detections).
    current: Generator[int, None, None] | None = None
    ticks: int = 0
    work: int = 0
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.ctx.now


class StorySignalSystem(System):
    phase = "story"
    #: Game seconds between the starts of detection rounds.
    interval = 600.0
    #: A tick covering at least this much game time runs a whole round at once.
    round_seconds = 60.0
    #: Units of detection work per game second of a shorter tick: 720 units per
    #: 2.4-s tick at the default time scale, about 1 ms; a round of the 10,000-NPC
    #: benchmark world (~130,000 units) then takes about 430 of its 600 seconds.
    work_per_second = 300.0

    def __init__(self, living: LivingWorld, detectors: StoryDetectors) -> None:
        self.living = living
        self.detectors = detectors
        self.active: dict[str, Situation] = {}
        #: The latest signals emitted (newest last), for admin views and tests.
        self.recent: deque[StorySignal] = deque(maxlen=200)
        self.rejected = 0
        self.detector_errors: dict[str, int] = {}
        self.last_round: RoundStats | None = None
        #: Detector name -> units of the first step of its last pass.
        self._openings: dict[str, int] = {}
        self._last: float | None = None
        self._round: _Round | None = None
        #: Wider searches in progress (``situations_later``).
        self._searches: list[SituationSearch] = []
        #: Game seconds of the latest tick; None before the first.
        self._delta: float | None = None
        self._dirty = False
        self._save_task: asyncio.Task[None] | None = None
        # Saving is retried every tick while the store is away, and a broken detector
        # fails every round: one line a minute each.
        self._save_failures = ThrottledLog(log, clock=lambda: self.engine.clock.monotonic())
        self._detector_failures = ThrottledLog(log, clock=lambda: self.engine.clock.monotonic())

    async def startup(self) -> None:
        self.engine.events.subscribe(EntityDestroyedEvent, self._on_destroyed)
        await self.living.startup()
        if self.engine.has_store:
            doc = await self.engine.store.documents.get(COLLECTION, _DOC)
            for key, row in (doc or {}).get("situations", {}).items():
                with contextlib.suppress(TypeError):
                    self.active[key] = Situation(**row)

    async def update(self, delta: float) -> None:
        now = self.engine.clock.game_time
        self._delta = delta
        budget = self._budget()
        # A tick covering a whole round does it whole; a shorter one also stops once
        # the story has used its share of the tick's real time (a slow machine makes
        # each unit longer), wider searches and the round together; the rest goes on
        # next tick.
        share = self.engine.tick_slice(self.name) if budget is not None else None
        if self._searches:
            for search in self._searches:
                search.ctx.refresh(now)
                self._search(search, budget, share)
            self._searches = [s for s in self._searches if not s.done]
        if self._round is None:
            if self._last is not None and self._last <= now < self._last + self.interval:
                return
            self._last = now
            self._round = _Round(DetectionContext(self.living, now), deque(self.detectors))
        else:
            self._round.ctx.refresh(now)
        if await self._advance_lending(self._round, budget, share):
            self._round = None
        if self._dirty and self.engine.has_store:
            if self._save_task is None or self._save_task.done():
                self._save_task = asyncio.create_task(self._save_in_background())

    def _budget(self) -> int | None:
        """This tick's units of detection work (None: a tick covering a whole round)."""
        delta = self._delta
        if delta is None or delta >= self.round_seconds:
            return None
        return max(1, ceil(self.work_per_second * max(delta, 0.0)))

    async def shutdown(self) -> None:
        self._abandon_round()
        for search in self._searches:
            if search.work is not None:
                search.work.close()
        self._searches = []
        self.engine.events.unsubscribe(EntityDestroyedEvent, self._on_destroyed)
        if self._save_task is not None and not self._save_task.done():
            with contextlib.suppress(Exception):
                await self._save_task
        if self._dirty and self.engine.has_store:
            try:
                await self.save()
            except Exception:
                log.exception("could not save the story situations")

    def _on_destroyed(self, event: EntityDestroyedEvent) -> None:
        if self._round is not None:
            self._round.ctx.forget(event.entity_id)
        for search in self._searches:
            search.ctx.forget(event.entity_id)

    # -- detection ------------------------------------------------------------------
    def detect_now(self) -> list[StorySignal]:
        """Run every detector once, now; emit signals for new or changed situations.
        A round in progress is dropped (this one covers it)."""
        self._abandon_round()
        return self._run(list(self.detectors), DetectionContext(self.living, self.now))

    def situations_now(self, signal_types: Collection[str]) -> list[StorySignal]:
        """A signal for every situation the detectors of ``signal_types`` find right
        now, new or already live. Nothing is emitted or recorded: admin tools
        (``@quest force-generate``) ground them with the seed type's own grounder."""
        ctx = DetectionContext(self.living, self.now)
        out: list[StorySignal] = []
        for detector in list(self.detectors):
            if not any(detector.emits(t) for t in signal_types):
                continue
            try:
                work = detector.work(ctx)
                while True:
                    next(work)
            except StopIteration as stop:
                detections = list(stop.value or ())
            except Exception:
                log.exception("story detector %s failed (situations_now)", detector.name)
                continue
            for d in detections:
                if (
                    detector.emits(d.signal_type)
                    and d.signal_type in signal_types
                    and not missing_context(d.signal_type, d.context)
                ):
                    out.append(self._signal(d, self.now))
        return out

    def situations_later(self, signal_types: Collection[str]) -> SituationSearch:
        """``situations_now``, done at the story round's pace: a search of the whole
        world in one tick was a 100 ms tick in a big one. A tick covering a whole
        round (a simulation's), or a call before the first tick, finishes it at
        once; otherwise each tick does its share until ``done``."""
        types = frozenset(signal_types)
        search = SituationSearch(
            types,
            DetectionContext(self.living, self.now),
            deque(d for d in list(self.detectors) if any(d.emits(t) for t in types)),
        )
        budget = self._budget()
        self._search(
            search, budget, self.engine.tick_slice(self.name) if budget is not None else None
        )
        if not search.done:
            self._searches.append(search)
        return search

    def _search(self, search: SituationSearch, budget: int | None, share: TickSlice | None) -> None:
        """Do up to ``budget`` units (None: all) of a wider search, stopping early
        once ``share`` is spent (after one step at least)."""
        spent = 0
        while not search.done and (budget is None or spent < budget):
            if spent and share is not None and share.spent():
                return
            work, detector = search.work, search.detector
            if work is None or detector is None:
                if not search.queue:
                    search.done = True
                    break
                detector = search.detector = search.queue.popleft()
                try:
                    search.work = detector.work(search.ctx)
                except Exception:
                    log.exception("story detector %s failed (situations)", detector.name)
                    search.work = None
                continue
            try:
                units = next(work)
            except StopIteration as stop:
                search.work = None
                spent += 1 + search.ctx.debt
                search.ctx.debt = 0
                for d in stop.value or ():
                    if (
                        detector.emits(d.signal_type)
                        and d.signal_type in search.signal_types
                        and not missing_context(d.signal_type, d.context)
                    ):
                        search.signals.append(self._signal(d, self.now))
                continue
            except Exception:
                log.exception("story detector %s failed (situations)", detector.name)
                search.work = None
                search.ctx.debt = 0
                continue
            spent += max(units if type(units) is int else 1, 1) + search.ctx.debt
            search.ctx.debt = 0

    @property
    def now(self) -> float:
        return self.engine.clock.game_time

    @property
    def round_in_progress(self) -> bool:
        return self._round is not None

    def _run(self, detectors: list[Detector], ctx: DetectionContext) -> list[StorySignal]:
        """Run ``detectors`` whole, one after the other, with ``ctx``."""
        whole = _Round(ctx, deque(detectors), emitted=[])
        self._advance(whole, None)
        return whole.emitted or []

    def _abandon_round(self) -> None:
        if self._round is not None and self._round.current is not None:
            self._round.current.close()
        self._round = None

    def _advance(self, run: _Round, budget: int | None) -> bool:
        """Do up to ``budget`` units (None: all) of a round; True once it is over."""
        spent, _ = self._steps(run, budget, 0, None)
        return self._tick_done(run, spent)

    async def _advance_lending(
        self, run: _Round, budget: int | None, share: TickSlice | None
    ) -> bool:
        """``_advance`` inside a tick: between two steps, once the tick is due to let
        players' commands in, it does (the world and the round are whole there, as
        between two ticks). A tick's units of work are ~1 ms on a 10,000-NPC world;
        whole, they were most of the answers kept waiting for the tick."""
        engine = self.engine
        spent = 0

        def pause() -> bool:
            return engine.lend_due() or (share is not None and share.spent())

        while True:
            spent, paused = self._steps(run, budget, spent, pause)
            if not paused or (share is not None and share.spent()):
                return self._tick_done(run, spent)
            if await engine.lend_point():
                if self._round is not run:
                    return False  # a command ran a whole detection instead (detect_now)
                # What the round read of this tick's threats may have changed.
                run.ctx.refresh(run.ctx.now)

    def _steps(
        self, run: _Round, budget: int | None, spent: int, pause: Callable[[], bool] | None
    ) -> tuple[int, bool]:
        """Steps of a round until ``spent`` reaches ``budget`` units (None: to the
        round's end) or, after a step, ``pause()`` says to stop for now.
        Returns the units spent in this tick and whether it stopped for ``pause``."""
        opening: str | None = None
        while budget is None or spent < budget:
            if run.current is None:
                if not run.queue:
                    break
                detector = run.queue[0]
                # A pass's first step lists its entities, a step that cannot be
                # sliced: it goes into a tick only if it fits, as measured in units
                # last round (until then, only into a fresh tick).
                if (
                    budget is not None
                    and spent
                    and (spent + self._openings.get(detector.name, budget) > budget)
                ):
                    break
                run.queue.popleft()
                run.current = self._pass(detector, run)
                opening = detector.name
            try:
                units = next(run.current)
            except StopIteration:
                run.current = None
                units = 1  # a pass costs a unit at least, so plain ones are paced too
            if opening is not None:
                self._openings[opening] = units
                opening = None
            spent += max(units, 1)  # every step counts: a pass yielding 0s still ends a tick
            if pause is not None and pause():
                return spent, True
        return spent, False

    def _tick_done(self, run: _Round, spent: int) -> bool:
        """Count a tick's work on the round; True (and the round closed) once it is over."""
        run.ticks += 1
        run.work += spent
        if run.current is not None or run.queue:
            return False
        self._resolve_unregistered()
        self.last_round = RoundStats(run.started, run.ctx.now, run.ticks, run.work)
        return True

    def _pass(self, detector: Detector, run: _Round) -> Generator[int, None, None]:
        """One detector's pass: its work, then its detections judged."""
        if self.detectors.get(detector.name) is not detector:
            return  # unregistered (or replaced) since the round began
        work = None
        try:
            made = detector.work(run.ctx)
            if not isinstance(made, Generator):
                raise TypeError(f"a sliced detector must be a generator, not {made!r}")
            work = made
            while True:
                try:
                    units = next(work)
                except StopIteration as stop:
                    detections = list(stop.value or ())
                    break
                if type(units) is not int or units < 0:
                    raise TypeError(f"a sliced detector must yield units of work, not {units!r}")
                yield units + run.ctx.debt
                run.ctx.debt = 0
        except Exception:
            count = self.detector_errors.get(detector.name, 0) + 1
            self.detector_errors[detector.name] = count
            self._detector_failures.exception(
                detector.name, "story detector %s failed (#%d)", detector.name, count
            )
            run.ctx.debt = 0
            return  # a failing detector must not make its situations look resolved
        finally:
            if work is not None:
                work.close()
        if run.ctx.debt:  # a plain detector's scans
            yield run.ctx.debt
            run.ctx.debt = 0
        found = yield from self._accepted(detector, detections)
        yield from self._judge(detector, found, run)

    def _accepted(
        self, detector: Detector, detections: list[Detection]
    ) -> Work[dict[str, Detection]]:
        found: dict[str, Detection] = {}
        for part in chunks(detections):
            for d in part:
                missing = missing_context(d.signal_type, d.context)
                if not detector.emits(d.signal_type) or missing:
                    self.rejected += 1
                    log.warning(
                        "detector %s: dropped %s %s (type %s, missing %s)",
                        detector.name,
                        d.signal_type,
                        d.key,
                        detector.signal_type,
                        missing,
                    )
                    continue
                found.setdefault(d.key, d)
            yield len(part)
        return found

    def _judge(self, detector: Detector, found: dict[str, Detection], run: _Round) -> Work[None]:
        """Signal new and changed situations, then resolve those no longer found."""
        for part in chunks(sorted(found)):
            signalled = 0
            for key in part:
                d = found[key]
                prev = self.active.get(key)
                if prev is not None and prev.band == d.band and prev.signal_type == d.signal_type:
                    continue
                signalled += 1
                now = run.ctx.now
                signal = self._signal(d, now)
                self.active[key] = Situation(
                    d.signal_type, d.band, str(signal.id), now, detector.name
                )
                self._dirty = True
                if run.emitted is not None:
                    run.emitted.append(signal)
                self.recent.append(signal)
                self.engine.events.emit(StorySignalEvent(signal=signal))
            yield len(part) + DETECTION_UNITS * signalled
        gone = [k for k, s in self.active.items() if s.detector == detector.name and k not in found]
        for key in sorted(gone):
            self._resolve(key)

    def _resolve_unregistered(self) -> None:
        """Situations of detectors that were unregistered end too."""
        names = set(self.detectors.names())
        for key in sorted(k for k, s in self.active.items() if s.detector not in names):
            self._resolve(key)

    def _resolve(self, key: str) -> None:
        situation = self.active.pop(key)
        self._dirty = True
        self.engine.events.emit(
            StorySituationResolvedEvent(
                key, situation.signal_type, _uuid_or_none(situation.signal_id)
            )
        )

    def _signal(self, d: Detection, now: float) -> StorySignal:
        return StorySignal(
            signal_type=d.signal_type,
            importance=round(max(0.0, min(1.0, d.importance)), 3),
            involved_npcs=list(dict.fromkeys(d.involved_npcs)),
            involved_players=list(dict.fromkeys(d.involved_players)),
            context=dict(d.context),
            chain_depth=0,
            situation_key=d.key,
            band=d.band,
            id=uuid.UUID(int=self.engine.random.getrandbits(128), version=4),
            created_at=now,
        )

    def is_active(self, situation_key: str) -> bool:
        """Whether a situation still holds (for seed freshness checks)."""
        return situation_key in self.active

    # -- persistence ----------------------------------------------------------------
    async def save(self) -> None:
        """Write the situations that hold. A busy world holds a thousand and more:
        each is encoded on its own, with the loop given its turns between them, and
        the document is written as the text they make. A situation that changes
        meanwhile marks the system dirty again and is written by the next save."""
        self._dirty = False
        try:
            parts: list[str] = []
            async for key, situation in in_turns(list(self.active.items())):
                # Its fields are flat (text and numbers): its __dict__ is asdict's
                # result without asdict's recursive copy.
                parts.append(f"{dump_json(key)}:{dump_json(vars(situation))}")
            doc = ('{"situations":{' + ",".join(parts) + "}}").encode()
            await self.engine.store.documents.put(COLLECTION, _DOC, doc)
        except Exception:
            self._dirty = True
            raise

    async def _save_in_background(self) -> None:
        try:
            await self.save()
        except Exception as exc:
            self._save_failures.warning(
                type(exc).__name__, "saving story situations failed, will retry: %s", exc
            )
        else:
            self._save_failures.clear()


def _uuid_or_none(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None
