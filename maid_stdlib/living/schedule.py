"""ScheduleSystem (priority 140): NPCs walk, room by room through
``WorldService.move`` (so every step emits EntityRelocatedEvent), to where their
:class:`~maid_stdlib.living.facts.Schedule` wants them at this game hour.

Departures are staggered over one step's time and rooms without anyone online get
no arrival/departure lines, so a large village does not move in a single tick.
"""

from __future__ import annotations

import logging
from uuid import UUID

from maid_engine.clock import GAME_DAY, GAME_HOUR
from maid_engine.ecs import System
from maid_stdlib.living.facts import Schedule
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.world.text import arrival_phrase, capitalize, departure_phrase

log = logging.getLogger("maid.living")


class ScheduleSystem(System):
    priority = 140
    #: Game seconds an NPC takes per room when walking to its scheduled place.
    step_seconds = 120.0

    def __init__(self, living: LivingWorld) -> None:
        self.living = living
        self._hour: int | None = None
        # walker -> (target room, game time of its next step)
        self._travel: dict[UUID, tuple[str, float]] = {}

    async def startup(self) -> None:
        await self.living.startup()

    async def update(self, delta: float) -> None:
        now = self.engine.clock.game_time
        hour = int((now % GAME_DAY) // GAME_HOUR)
        if hour != self._hour:
            self._hour = hour
            self._plan(hour, now)
        if self._travel:
            self._step(now)

    def _plan(self, hour: int, now: float) -> None:
        ws = self.living.world_service
        for uid, schedule in self.living.world.each(Schedule):
            target = schedule.room_at(hour)
            if target is None or ws.room_key_of(uid) == target or not ws.has_room(target):
                self._travel.pop(uid, None)
                continue
            current = self._travel.get(uid)
            if current is None or current[0] != target:
                # Staggered departures: a village does not move in one tick.
                self._travel[uid] = (target, now + (uid.int % 997) / 997 * self.step_seconds)

    def _step(self, now: float) -> None:
        due = [(u, t) for u, (t, at) in self._travel.items() if at <= now]
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
                self._travel.pop(uid, None)
                continue
            self._travel[uid] = (target, now + self.step_seconds)
            if not self.living.movement_allowed(uid):
                continue
            path = ws.path(here, target)
            if not path:
                log.debug("%s cannot reach %s from %s", uid, target, here)
                self._travel.pop(uid, None)
                continue
            exit_name = path[0]
            nxt = ws.exits_of(here)[exit_name]
            name = capitalize(self.living.name_of(uid))
            if here in watched:
                ws.message_room(here, f"{name} leaves {departure_phrase(exit_name)}.",
                                exclude=(uid,))
            ws.move(uid, nxt, reason="schedule")
            if nxt in watched:
                arrival = arrival_phrase(exit_name)
                ws.message_room(nxt, f"{name} arrives{' ' + arrival if arrival else ''}.",
                                exclude=(uid,))
            if nxt == target:
                self._travel.pop(uid, None)
