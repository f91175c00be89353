"""The systems that make the world move on its own (Doc 07-lite).

* :class:`ScheduleSystem` (140): NPCs walk, room by room, to where their schedule
  wants them at this game hour.
* :class:`AutonomySystem` (150): needs decay and recover under world conditions;
  unmet needs form goals; goals are blocked and unblocked by world facts (a threat
  on a supply route) and progress when they can.
* :class:`SocialFabricSystem` (155): NPCs perceive threats where they are, watch
  or trade; gossip spreads; relationships drift when their people meet.

All of them run on game time (never tick counts), so the tick rate can change and a
test can run days in seconds. Work is spread over ticks so that no tick stalls on a
big world: Autonomy and SocialFabric visit every NPC once per ``interval`` game
seconds, a slice per tick, each NPC with the exact game time elapsed since its last
visit (a world too big for ``max_batch`` visits a tick takes longer over a round:
its tick stays bounded); walkers take their steps at staggered moments.
"""

from __future__ import annotations

import abc
import logging
from collections import deque
from dataclasses import dataclass
from math import ceil
from uuid import UUID

from maid_engine.clock import GAME_DAY, GAME_HOUR
from maid_engine.ecs import Component, System
from maid_stdlib.living import api, gossip
from maid_stdlib.living.api import finish_goal
from maid_stdlib.living.components import (
    Goal,
    GoalsComponent,
    GoalStatus,
    MisdeedRecord,
    NeedsComponent,
    Relationships,
    clamp_signed,
    clamp_unit,
    target_uuid,
)
from maid_stdlib.living.conditions import Evaluation, ThreatGroup, ThreatMap
from maid_stdlib.living.events import GoalFormedEvent, GoalStatusChangedEvent, ThreatObservedEvent
from maid_stdlib.living.facts import Misdeeds
from maid_stdlib.living.memory import EmotionalValence, EpisodicMemory, MemoryVisibility
from maid_stdlib.living.schedule import ScheduleSystem
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.text.morph import is_plural
from maid_stdlib.text.place import located
from maid_stdlib.world.text import capitalize

log = logging.getLogger("maid.living")

__all__ = ["AutonomySystem", "ScheduleSystem", "SocialFabricSystem"]

#: A goal whose need climbs this far above its threshold is no longer needed.
RESOLVE_MARGIN = 0.35


class _Sliced(System, abc.ABC):
    """Visits every member once per ``interval`` game seconds, a slice per tick.

    Members are the holders of any of ``member_types``. A cycle's queue is
    those types' holders as they stand when the cycle starts, each once, at its
    first place among them (``World.holders_any``: a copy of the world's index,
    the repeats dropped without hashing a UUID; building it from the UUIDs, with
    a fresh "last visited" table of 10,000 at each cycle start, was a 10-40 ms
    tick, and skipping the repeats in the queue instead was 4 ms in one tick).
    Each visit gets the game time elapsed since the entity's visit in the
    previous cycle, or since this cycle started for a newcomer.
    """

    interval = 300.0
    #: Members handled per tick at least (a small world finishes a cycle at once).
    #: Kept small: a big world needs only ``size * delta / interval`` per tick
    #: (76 at 10,000 NPCs), and each member costs ~0.1 ms, so a large floor made
    #: every busy tick a spike (256 members: ~30 ms) for the same work per cycle.
    min_batch = 32
    #: Members handled per tick at most. A tick's cost grows with the slice, and
    #: the slice with the world (80 a tick at 10,000 NPCs, 160 at 20,000): past
    #: this, a cycle takes longer than ``interval`` instead (at 10,000 NPCs, 8
    #: game minutes rather than 5). Each visit still gets the exact game time
    #: since the last, so a need falls at its rate all the same; what a bigger
    #: world loses is how soon a member notices a change (a blocked road).
    #: A tick also stops its slice once it has worked ``settings.tick_slice``
    #: (after one visit at least), however few it has visited.
    max_batch = 48
    #: Holders of any of these component types are the members.
    member_types: tuple[type[Component], ...] = ()

    def __init__(self, living: LivingWorld) -> None:
        self.living = living
        self._queue: deque[UUID] = deque()
        self._cycle_start = 0.0
        self._cycle_size = 0
        #: entity -> game time of its visit in the previous cycle
        self._last: dict[UUID, float] = {}
        #: entity -> game time of its visit in this cycle (becomes ``_last``)
        self._seen: dict[UUID, float] = {}

    def members(self) -> list[UUID]:
        """Who this system visits, once per cycle (each once, in queue order).
        A subclass may override it instead of naming ``member_types``."""
        return self.living.world.holders_any(*self.member_types)

    @abc.abstractmethod
    def visit(self, ev: Evaluation, uid: UUID, hours: float, now: float) -> None:
        """Advance one member by ``hours`` of game time."""

    async def startup(self) -> None:
        await self.living.startup()
        now = self.engine.clock.game_time
        self._cycle_start = now
        self._last = dict.fromkeys(self.members(), now)

    async def update(self, delta: float) -> None:
        now = self.engine.clock.game_time
        # The share counts from here: a cycle's start (its queue) and a threat map
        # rebuilt for this tick's evaluation leave less time for the visits.
        share = self.engine.tick_slice(self.name)
        if not self._queue:
            if now - self._cycle_start < self.interval:
                return
            self._cycle_start = now
            if self._seen:
                # Only last cycle's members carry their time over (a former member
                # that returns later starts afresh, from its cycle's start).
                self._last, self._seen = self._seen, {}
            self._queue = deque(self.members())
            self._cycle_size = len(self._queue)
        budget = max(self.min_batch, ceil(self._cycle_size * max(delta, 0.0) / self.interval))
        budget = min(budget, max(self.max_batch, self.min_batch))
        ev = Evaluation(self.living, now)
        world = self.living.world
        queue, seen = self._queue, self._seen
        engine = self.engine
        while queue and budget > 0:
            uid = queue.popleft()
            if uid in seen:
                continue  # listed twice by an overriding ``members``
            budget -= 1
            if not world.entity_exists(uid):
                continue
            last = self._last.get(uid, self._cycle_start)
            seen[uid] = now
            self.visit(ev, uid, max(0.0, now - last) / GAME_HOUR, now)
            # Between two members the world is whole: players' commands that came
            # in may run here (a batch takes a few ms at 10,000 NPCs). What they
            # changed (who is where, threats) is read afresh for the next member.
            if await engine.lend_point():
                ev = Evaluation(self.living, now)
            # A slow moment of the machine makes each visit longer: the rest of the
            # slice waits for the next tick (the cycle ends later, each visit still
            # with its exact time since the last).
            if share.spent():
                break

    def run_now(self) -> None:
        """Visit every member at once (tests, admin tools)."""
        now = self.engine.clock.game_time
        ev = Evaluation(self.living, now)
        for uid in self.members():
            # Whichever table the next visit will read (this cycle's if the member
            # was visited already in it) learns of this one.
            table = self._seen if uid in self._seen else self._last
            last = table.get(uid, now)
            table[uid] = now
            self.visit(ev, uid, max(0.0, now - last) / GAME_HOUR, now)


class AutonomySystem(_Sliced):
    phase = "living"
    after = (ScheduleSystem,)
    interval = 300.0
    member_types = (NeedsComponent, GoalsComponent)

    def visit(self, ev: Evaluation, uid: UUID, hours: float, now: float) -> None:
        world = self.living.world
        needs = world.try_component(uid, NeedsComponent)
        if needs is not None:
            self._needs(ev, uid, needs, hours)
            self._form_goals(uid, needs, now)
        goals = world.try_component(uid, GoalsComponent)
        if goals is not None:
            self._goals(ev, uid, goals, hours, now)
        deeds = world.try_component(uid, Misdeeds)
        if deeds is not None:
            self._misdeeds(ev, uid, deeds, now)

    def _misdeeds(self, ev: Evaluation, uid: UUID, deeds: Misdeeds, now: float) -> None:
        """Do the wrong a need drives the NPC to, when everything it waits for holds
        (the place, nobody about): the victim finds it out later, not who did it."""
        world = self.living.world
        record = world.try_component(uid, MisdeedRecord)
        for deed in deeds.acts:
            last = record.last.get(deed.act) if record is not None else None
            if last is not None and now - last < deed.every_days * GAME_DAY:
                continue
            victim = target_uuid(deed.victim)
            if victim is None or not world.entity_exists(victim):
                continue
            if not all(ev.holds(cond, uid) for cond in deed.when):
                continue
            if record is None:
                record = MisdeedRecord()
                world.add_component(uid, record)
            record.last[deed.act] = now
            world.modified(uid, record)
            # The victim's memory is about the culprit (whom a quest may uncover);
            # its words name only what is missing, so telling it gives nobody away.
            self.living.memory.add(
                EpisodicMemory(
                    victim,
                    deed.content,
                    deed.importance,
                    EmotionalValence.NEGATIVE,
                    0.6,
                    ["betrayal", deed.act],
                    MemoryVisibility.PUBLIC,
                    subject_id=uid,
                    location=self.living.world_service.room_key_of(uid),
                    game_time=now,
                )
            )
            if deed.need:
                api.satisfy_need(world, uid, deed.relief, deed.need)

    def _needs(self, ev: Evaluation, uid: UUID, needs: NeedsComponent, hours: float) -> None:
        # The hot loop of a big world (76 NPCs a tick at 10,000): plain loops and a
        # local ``check`` rather than generator expressions and ``holds``.
        check = ev.check
        changed = False
        for state in needs.needs.values():
            decay = state.decay
            extra = 0.0
            for mod in state.modifiers:
                if check(mod.when, uid) is not None:
                    decay *= mod.decay_x
                    extra += mod.add
            gain = 0.0
            for satisfier in state.satisfied_by:
                if check(satisfier.when, uid) is not None:
                    gain += satisfier.rate
            value = clamp_unit(state.value + (gain - decay - extra) * hours)
            if value != state.value:
                state.value = value
                changed = True
        if changed:
            self.living.world.modified(uid, needs)

    def _form_goals(self, uid: UUID, needs: NeedsComponent, now: float) -> None:
        world = self.living.world
        goals = world.try_component(uid, GoalsComponent)
        for name in needs.unmet():
            template = needs.needs[name].goal
            if template is None:
                continue
            if goals is not None and any(g.id == template.id and g.is_open for g in goals.goals):
                continue
            if goals is None:
                goals = GoalsComponent()
                world.add_component(uid, goals)
            goals.add(Goal.from_template(template, name, now))
            world.modified(uid, goals)
            self.engine.events.emit(GoalFormedEvent(uid, template.id, name))
            self._remember(
                uid,
                f"I must {_lower_first(template.description)}.",
                0.5,
                EmotionalValence.NEGATIVE,
                ["goal", template.type.lower()],
                now,
            )

    def _goals(
        self, ev: Evaluation, uid: UUID, goals: GoalsComponent, hours: float, now: float
    ) -> None:
        world = self.living.world
        needs = world.try_component(uid, NeedsComponent)
        for goal in goals.open_goals():
            old = goal.status
            fact = next(
                (f for f in (ev.check(c, uid) for c in goal.blocked_when) if f is not None), None
            )
            if fact is not None:
                if old != GoalStatus.BLOCKED or goal.blocker_key != fact.key:
                    goal.status = GoalStatus.BLOCKED
                    goal.blocker, goal.blocker_key = fact.description, fact.key
                    goal.blocker_source = fact.source or None
                    goal.blocker_rooms = list(fact.rooms)
                    if old != GoalStatus.BLOCKED:
                        goal.blocked_since = now
                    world.modified(uid, goals)
                    self._changed(uid, goal, old, now, fact.description)
                continue
            if old == GoalStatus.BLOCKED:
                blocker = goal.blocker
                goal.status = GoalStatus.ACTIVE
                goal.blocker = goal.blocker_key = goal.blocker_source = None
                goal.blocker_rooms = []
                goal.blocked_since = None
                world.modified(uid, goals)
                self._changed(uid, goal, old, now, blocker)
                old = GoalStatus.ACTIVE
            if goal.progress_when and goal.progress_rate > 0 and ev.holds(goal.progress_when, uid):
                goal.progress = clamp_unit(goal.progress + goal.progress_rate * hours)
                world.modified(uid, goals)
            state = needs.needs.get(goal.need) if needs is not None and goal.need else None
            recovered = state is not None and state.value >= min(
                1.0, state.threshold + RESOLVE_MARGIN
            )
            if goal.progress >= 1.0 or recovered:
                finish_goal(world, uid, goals, goal, now)
                self._changed(uid, goal, old, now, None)

    def _changed(self, uid: UUID, goal: Goal, old: str, now: float, blocker: str | None) -> None:
        self.engine.events.emit(GoalStatusChangedEvent(uid, goal.id, old, goal.status, blocker))
        what = _lower_first(goal.description)
        if goal.status == GoalStatus.BLOCKED and blocker:
            self._remember(
                uid,
                f"I cannot {what}: {blocker}.",
                max(goal.priority, 0.5),
                EmotionalValence.NEGATIVE,
                ["goal", "blocked"],
                now,
                public=True,
            )
        elif old == GoalStatus.BLOCKED and goal.status == GoalStatus.ACTIVE:
            self._remember(
                uid,
                f"Nothing stands in my way any more: I can {what} again.",
                0.5,
                EmotionalValence.POSITIVE,
                ["goal", "unblocked"],
                now,
                public=True,
            )
        elif goal.status == GoalStatus.DONE:
            self._remember(
                uid,
                f"I managed to {what}.",
                0.5,
                EmotionalValence.POSITIVE,
                ["goal", "done"],
                now,
                public=True,
            )

    def _remember(
        self,
        uid: UUID,
        content: str,
        importance: float,
        valence: EmotionalValence,
        tags: list[str],
        now: float,
        public: bool = False,
    ) -> None:
        self.living.memory.add(
            EpisodicMemory(
                uid,
                content,
                importance,
                valence,
                0.5,
                tags,
                MemoryVisibility.PUBLIC if public else MemoryVisibility.PRIVATE,
                game_time=now,
            )
        )


@dataclass(frozen=True)
class _Sighting:
    """What every NPC that sees one threat group learns: the gossip, the memory of
    a first sighting, and the room it is placed in."""

    content: str
    memory: str
    room: str


class SocialFabricSystem(_Sliced):
    phase = "living"
    after = (AutonomySystem,)
    interval = 900.0

    def __init__(self, living: LivingWorld) -> None:
        super().__init__(living)
        self._rooms: dict[str, list[UUID]] = {}
        self._rooms_at: float | None = None
        #: Threat key -> its sighting, for the threat map they were made from: the
        #: NPCs that see one group (dozens on a busy road) learn the same words,
        #: and a map never changes once built.
        self._sightings: dict[str, _Sighting] = {}
        self._sightings_of: ThreatMap | None = None

    member_types = (gossip.KnownGossip, Relationships)

    def _roommates(self, room: str, now: float) -> list[UUID]:
        if self._rooms_at != now:
            self._rooms, self._rooms_at = {}, now
        found = self._rooms.get(room)
        if found is None:
            has = self.living.world.has_component
            found = [
                u for u in self.living.world_service.contents(room) if has(u, gossip.KnownGossip)
            ]
            self._rooms[room] = found
        return found

    def visit(self, ev: Evaluation, uid: UUID, hours: float, now: float) -> None:
        world = self.living.world
        known = world.try_component(uid, gossip.KnownGossip)
        if known is not None:
            self._perceive(ev, uid, known, now)
            gossip.forget_stale(world, uid, known, now)
            room = ev.ws.room_key_of(uid)
            if room is not None:
                gossip.tell_round(
                    world, uid, self._roommates(room, now), self.engine.random, hours, now
                )
        rels = world.try_component(uid, Relationships)
        if rels is not None and rels.entries:
            self._drift(ev, uid, rels, hours, now)

    def _perceive(self, ev: Evaluation, uid: UUID, known: gossip.KnownGossip, now: float) -> None:
        rooms = ev.observed_rooms(uid)
        for group in ev.threats.groups_in(rooms):
            self._observe_threat(ev, uid, known, group, now)
        watched = set(rooms)
        for item in list(known.items.values()):
            if "threat" not in item.tags or item.subject in ev.threats.groups:
                continue
            if item.location is not None and item.location in watched:
                self._observe_cleared(uid, item, now)

    def _observe_threat(
        self,
        ev: Evaluation,
        uid: UUID,
        known: gossip.KnownGossip,
        group: ThreatGroup,
        now: float,
    ) -> None:
        world = self.living.world
        first = group.key not in known.items
        seen = self._sighting(ev.threats, group)
        gossip.observe(
            world,
            uid,
            group.key,
            seen.content,
            now,
            subject=group.key,
            tags=["threat", group.source],
            location=seen.room,
        )
        if first:
            self.living.memory.add(
                EpisodicMemory(
                    uid,
                    seen.memory,
                    0.6,
                    EmotionalValence.NEGATIVE,
                    0.6,
                    ["threat", group.source],
                    MemoryVisibility.PUBLIC,
                    location=seen.room,
                    game_time=now,
                )
            )
            self.engine.events.emit(ThreatObservedEvent(uid, group.key, group.source, seen.room))

    def _sighting(self, threats: ThreatMap, group: ThreatGroup) -> _Sighting:
        """The words of a sighting of ``group``, made once per threat map."""
        if threats is not self._sightings_of:
            self._sightings, self._sightings_of = {}, threats
        found = self._sightings.get(group.key)
        if found is None:
            name = group.source_name
            where = located(threats.place_of(group))
            have = "have" if is_plural(name) else "has"
            found = self._sightings[group.key] = _Sighting(
                f"{capitalize(name)} {have} been seen {where}.",
                f"I learned that {name} {_be(name)} {where}.",
                group.primary_room,
            )
        return found

    def _observe_cleared(self, uid: UUID, item: gossip.GossipItem, now: float) -> None:
        source = next((t for t in item.tags if t != "threat"), "threat")
        name = self.living.source_name(source)
        assert item.location is not None
        place = self.living.place_name([item.location])
        content = f"The {name} {_be(name)} gone from {place}."
        gossip.observe(
            self.living.world,
            uid,
            f"{item.subject}:cleared",
            content,
            now,
            subject=item.subject,
            tags=["threat_cleared", source],
            location=item.location,
            supersedes=item.id,
            # Found gone, not seen go: as of the last sighting, so the news of the
            # deed that cleared them (a later fact) is what spreads.
            at=item.fact_time,
        )
        self.living.memory.add(
            EpisodicMemory(
                uid,
                content,
                0.5,
                EmotionalValence.POSITIVE,
                0.5,
                ["threat_cleared", source],
                MemoryVisibility.PUBLIC,
                location=item.location,
                game_time=now,
            )
        )
        self.engine.events.emit(
            ThreatObservedEvent(uid, item.subject, source, item.location, cleared=True)
        )

    def _drift(
        self, ev: Evaluation, uid: UUID, rels: Relationships, hours: float, now: float
    ) -> None:
        room = ev.ws.room_key_of(uid)
        if room is None:
            return
        needs = self.living.world.try_component(uid, NeedsComponent)
        lowest = needs.lowest() if needs is not None else None
        # Hard times sour a drifting relationship faster (up to twice as fast).
        stress = 1.0 + (1.0 - lowest[1] if lowest is not None else 0.0)
        changed = False
        for target, rel in rels.entries.items():
            other = target_uuid(target)
            if other is None or ev.ws.room_key_of(other) != room:
                continue
            rel.last_seen = now
            if rel.drift:
                rel.trust = clamp_signed(rel.trust + rel.drift * hours * stress)
            changed = True
        if changed:
            self.living.world.modified(uid, rels)


def _lower_first(text: str) -> str:
    text = text.strip().rstrip(".")
    if len(text) > 1 and text[1].islower():
        return text[:1].lower() + text[1:]
    return text


def _be(subject: str) -> str:
    """ "are" after "bandits", "is" after "the wolf pack"."""
    return "are" if is_plural(subject) else "is"
