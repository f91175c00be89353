"""ScheduleSystem (phase living): NPCs walk, room by room through
``WorldService.move`` (so every step emits EntityRelocatedEvent), to where their
:class:`~maid_stdlib.living.facts.Schedule` wants them at this game hour.

Departures are staggered over one step's time and rooms without anyone online get
no arrival/departure lines, so a large village does not move in a single tick. The
hour's plan (who must go where) is made in slices too: at least ``plan_batch``
schedules a tick, and all of them within ``plan_seconds`` of game time -- at once
in a small world or with long ticks.
"""

from __future__ import annotations

import heapq
import logging
from collections import deque
from math import ceil
from uuid import UUID

from maid_engine.clock import GAME_DAY, GAME_HOUR
from maid_engine.ecs import System
from maid_stdlib.living.facts import Schedule
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.world.text import arrival_phrase, capitalize, departure_phrase

log = logging.getLogger("maid.living")


class ScheduleSystem(System):
    phase = "living"
    #: Game seconds an NPC takes per room when walking to its scheduled place.
    step_seconds = 120.0
    #: Schedules planned per tick at least, and the game seconds an hour's plan
    #: may take (3,000 schedules planned in one tick were a 13 ms spike).
    plan_batch = 256
    plan_seconds = 30.0

    def __init__(self, living: LivingWorld) -> None:
        self.living = living
        self._hour: int | None = None
        # walker -> (target room, game time of its next step)
        self._travel: dict[UUID, tuple[str, float]] = {}
        # The walkers by time of next step, to find the due ones without looking at
        # every walker each tick: a heap of (time, order, walker), stale entries
        # skipped. ``order`` is the walker's place in ``_travel`` (insertion order,
        # kept while it stays there): due walkers step in that order.
        self._due: list[tuple[float, int, UUID]] = []
        self._order: dict[UUID, int] = {}
        self._counter = 0
        #: schedules still to plan for this hour, and how many there were
        self._to_plan: deque[UUID] = deque()
        self._plan_size = 0

    async def startup(self) -> None:
        await self.living.startup()

    async def update(self, delta: float) -> None:
        now = self.engine.clock.game_time
        hour = int((now % GAME_DAY) // GAME_HOUR)
        if hour != self._hour:
            self._hour = hour
            self._to_plan = deque(self.living.world.holders(Schedule))
            self._plan_size = len(self._to_plan)
        if self._to_plan:
            budget = max(
                self.plan_batch, ceil(self._plan_size * max(delta, 0.0) / self.plan_seconds)
            )
            self._plan(hour, now, budget)
        if self._travel:
            self._step(now)

    def _plan(self, hour: int, now: float, budget: int) -> None:
        ws = self.living.world_service
        world = self.living.world
        queue = self._to_plan
        while queue and budget > 0:
            budget -= 1
            uid = queue.popleft()
            schedule = world.try_component(uid, Schedule)
            if schedule is None or not world.entity_exists(uid):
                continue
            target = schedule.room_at(hour)
            if target is None or ws.room_key_of(uid) == target or not ws.has_room(target):
                self._stop(uid)
                # Where it should be (an escort brought it home): no longer held.
                self.living.release_stranded(uid)
                continue
            current = self._travel.get(uid)
            if current is None or current[0] != target:
                # Staggered departures: a village does not move in one tick.
                self._go(uid, target, now + (uid.int % 997) / 997 * self.step_seconds)

    def _go(self, uid: UUID, target: str, at: float) -> None:
        if uid not in self._travel:
            self._order[uid] = self._counter
            self._counter += 1
        self._travel[uid] = (target, at)
        heapq.heappush(self._due, (at, self._order[uid], uid))

    def _stop(self, uid: UUID) -> None:
        if self._travel.pop(uid, None) is not None:
            del self._order[uid]

    def _take_due(self, now: float) -> list[tuple[UUID, str]]:
        """Walkers whose next step is due, in ``_travel`` order."""
        heap, travel, order = self._due, self._travel, self._order
        found: dict[UUID, int] = {}
        while heap and heap[0][0] <= now:
            at, place, uid = heapq.heappop(heap)
            entry = travel.get(uid)
            if entry is not None and entry[1] == at and order.get(uid) == place:
                found[uid] = place
        return [(uid, travel[uid][0]) for uid in sorted(found, key=found.__getitem__)]

    def _step(self, now: float) -> None:
        due = self._take_due(now)
        if not due:
            return
        ws = self.living.world_service
        world = self.living.world
        sessions = self.living.engine.sessions
        # Only rooms with someone online get arrival/departure lines.
        watched = {ws.room_key_of(c) for c in sessions.characters_online()}
        for uid, target in due:
            here = ws.room_key_of(uid)
            if not world.entity_exists(uid) or here is None or here == target:
                self._stop(uid)
                continue
            self._go(uid, target, now + self.step_seconds)
            if not self.living.movement_allowed(uid):
                continue
            # Nobody walks out past wolves at their heels: an NPC sharing its room
            # with a threat stays there, hiding, until the threat is gone or someone
            # comes for it; how long it has been held is what makes it missed.
            cornered = self.living.cornered_by(uid, here)
            if cornered is not None:
                self.living.hold_stranded(uid, here, cornered, now)
                continue
            self.living.release_stranded(uid)
            path = ws.path(here, target)
            if not path:
                log.debug("%s cannot reach %s from %s", uid, target, here)
                self._stop(uid)
                continue
            exit_name = path[0]
            nxt = ws.exits_of(here)[exit_name]
            seen = here in watched or nxt in watched
            name = capitalize(self.living.name_of(uid)) if seen else ""
            if here in watched:
                ws.announce(here, uid, name, f"leaves {departure_phrase(exit_name)}")
            ws.move(uid, nxt, reason="schedule")
            if nxt in watched:
                arrival = arrival_phrase(exit_name)
                ws.announce(nxt, uid, name, f"arrives{' ' + arrival if arrival else ''}")
            if nxt == target:
                self._stop(uid)
