"""StorySignalSystem (priority 200): turns detected situations into story signals.

Every ``interval`` game seconds it starts a round that runs every registered
detector once; the round is spread over the ticks of (at most) ``round_seconds`` of
game time, so a big world never stalls one tick on all detectors at once. A situation
(its ``situation_key``) is signalled once when it first appears, again only when
its severity band changes, and is forgotten -- with a
:class:`StorySituationResolvedEvent` -- when no detector reports it any more; if it
arises again later it is a new signal. The table of live situations is kept in the
DocumentStore (collection ``story_situations``) so a restart does not signal
everything again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import deque
from dataclasses import asdict, dataclass
from math import ceil
from typing import Any

from maid_engine.ecs import System
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.story.detectors import Detection, DetectionContext, Detector, StoryDetectors
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


class StorySignalSystem(System):
    priority = 200
    #: Game seconds between the starts of detection rounds.
    interval = 600.0
    #: A round's detectors are spread over at most this many game seconds of ticks.
    round_seconds = 60.0

    def __init__(self, living: LivingWorld, detectors: StoryDetectors) -> None:
        self.living = living
        self.detectors = detectors
        self.active: dict[str, Situation] = {}
        #: The latest signals emitted (newest last), for admin views and tests.
        self.recent: deque[StorySignal] = deque(maxlen=200)
        self.rejected = 0
        self.detector_errors: dict[str, int] = {}
        self._last: float | None = None
        self._pending: deque[Detector] = deque()
        self._dirty = False
        self._save_task: asyncio.Task[None] | None = None

    async def startup(self) -> None:
        await self.living.startup()
        if self.engine.has_store:
            doc = await self.engine.store.documents.get(COLLECTION, _DOC)
            for key, row in (doc or {}).get("situations", {}).items():
                with contextlib.suppress(TypeError):
                    self.active[key] = Situation(**row)

    async def update(self, delta: float) -> None:
        now = self.engine.clock.game_time
        if not self._pending:
            if self._last is not None and self._last <= now < self._last + self.interval:
                return
            self._last = now
            self._pending = deque(self.detectors)
        # Enough detectors per tick to finish a round within round_seconds.
        count = max(1, ceil(len(self.detectors.names()) * max(delta, 0.0) / self.round_seconds))
        batch = [self._pending.popleft() for _ in range(min(count, len(self._pending)))]
        self._run(batch, DetectionContext(self.living, now))
        if self._dirty and self.engine.has_store:
            if self._save_task is None or self._save_task.done():
                self._save_task = asyncio.create_task(self._save_in_background())

    async def shutdown(self) -> None:
        if self._save_task is not None and not self._save_task.done():
            with contextlib.suppress(Exception):
                await self._save_task
        if self._dirty and self.engine.has_store:
            try:
                await self.save()
            except Exception:
                log.exception("could not save the story situations")

    # -- detection ------------------------------------------------------------------
    def detect_now(self) -> list[StorySignal]:
        """Run every detector once, now; emit signals for new or changed situations."""
        self._pending.clear()
        return self._run(list(self.detectors), DetectionContext(self.living, self.now))

    @property
    def now(self) -> float:
        return self.engine.clock.game_time

    def _run(self, detectors: list[Detector], ctx: DetectionContext) -> list[StorySignal]:
        emitted: list[StorySignal] = []
        for detector in detectors:
            found = self._detect(detector, ctx)
            if found is None:
                continue  # a failing detector must not make its situations look resolved
            for key in sorted(found):
                d = found[key]
                prev = self.active.get(key)
                if prev is not None and prev.band == d.band and prev.signal_type == d.signal_type:
                    continue
                signal = self._signal(d, ctx.now)
                self.active[key] = Situation(d.signal_type, d.band, str(signal.id), ctx.now,
                                             detector.name)
                self._dirty = True
                emitted.append(signal)
                self.recent.append(signal)
                self.engine.events.emit(StorySignalEvent(signal=signal))
            gone = [k for k, s in self.active.items()
                    if s.detector == detector.name and k not in found]
            for key in sorted(gone):
                situation = self.active.pop(key)
                self._dirty = True
                self.engine.events.emit(StorySituationResolvedEvent(
                    key, situation.signal_type, _uuid_or_none(situation.signal_id)
                ))
        # Situations of detectors that were unregistered end too.
        names = set(self.detectors.names())
        for key in sorted(k for k, s in self.active.items() if s.detector not in names):
            situation = self.active.pop(key)
            self._dirty = True
            self.engine.events.emit(StorySituationResolvedEvent(
                key, situation.signal_type, _uuid_or_none(situation.signal_id)
            ))
        return emitted

    def _detect(self, detector: Detector, ctx: DetectionContext) -> dict[str, Detection] | None:
        try:
            detections = list(detector.func(ctx))
        except Exception:
            count = self.detector_errors.get(detector.name, 0) + 1
            self.detector_errors[detector.name] = count
            if count <= 5 or count % 100 == 0:
                log.exception("story detector %s failed (#%d)", detector.name, count)
            return None
        found: dict[str, Detection] = {}
        for d in detections:
            missing = missing_context(d.signal_type, d.context)
            if d.signal_type != detector.signal_type or missing:
                self.rejected += 1
                log.warning(
                    "detector %s: dropped %s %s (type %s, missing %s)",
                    detector.name, d.signal_type, d.key, detector.signal_type, missing,
                )
                continue
            found.setdefault(d.key, d)
        return found

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
        self._dirty = False
        doc: dict[str, Any] = {"situations": {k: asdict(s) for k, s in self.active.items()}}
        try:
            await self.engine.store.documents.put(COLLECTION, _DOC, doc)
        except Exception:
            self._dirty = True
            raise

    async def _save_in_background(self) -> None:
        try:
            await self.save()
        except Exception as exc:
            log.warning("saving story situations failed, will retry: %s", exc)


def _uuid_or_none(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None
