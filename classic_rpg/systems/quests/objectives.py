"""Objective progress from game events, per character.

Order semantics: objectives of the same ``order`` run in parallel; an
objective unlocks once every *required* objective of lower order is complete;
order 0 is available at acceptance. Optional objectives never block unlocking.
Progress only counts while an objective is unlocked, and completion latches.

Sources: KILL <- EntityDiedEvent (the character is the killer), COLLECT <-
ItemPickedUpEvent/ItemGivenEvent + the inventory, DELIVER <- ItemGivenEvent, VISIT
<- EntityRelocatedEvent, TALK <- TalkedToEvent, PROTECT/ESCORT <- the NPC's death
and relocation, TIMED/PROTECT durations/quest time limits <- the QuestSystem tick,
CUSTOM <- ``QuestManager.complete_custom``, FACT <- FactSetEvent (the character made
the world fact true).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from classic_rpg.components import CharacterStats
from classic_rpg.events import DamageDealtEvent, ItemGivenEvent, ItemPickedUpEvent, TalkedToEvent
from classic_rpg.systems.quests.errors import QuestError
from classic_rpg.systems.quests.matching import (
    MatchHost,
    count_items,
    display_name,
    npc_matches,
    template_name,
)
from classic_rpg.systems.quests.models import WATCHERS, Quest, QuestObjective
from classic_rpg.systems.quests.questlog import (
    ObjectiveProgress,
    QuestEntry,
    QuestLog,
    entry_of,
    log_of,
)
from classic_rpg.systems.quests.registry import QuestRegistry
from classic_rpg.systems.quests.tracker import QuestProgressTracker
from maid_engine.ports import ClockPort, EventsPort, SessionsPort
from maid_stdlib.questgen.events import QuestProgressEvent
from maid_stdlib.questgen.quest import ProgressionMode
from maid_stdlib.questgen.vocabulary import FailReason, ObjectiveType, QuestState
from maid_stdlib.story.facts import FactBook, FactSetEvent
from maid_stdlib.world.events import EntityDiedEvent, EntityRelocatedEvent
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize

if TYPE_CHECKING:
    from classic_rpg.systems.quests.foes import QuestFoe
    from maid_engine.ecs import World

_Key = tuple[UUID, str]

#: ``(character, quest, entry)``: every required objective is met.
ObjectivesMet = Callable[[UUID, Quest, QuestEntry], None]
#: ``(character, quest, entry, reason, detail)``: a required objective failed or
#: the quest's time limit ran out; the quest fails.
QuestFailer = Callable[[UUID, Quest, QuestEntry, FailReason, str], object]


class ObjectivesHost(MatchHost, SessionsPort, EventsPort, ClockPort, Protocol):
    """What the objective tracker uses: what matching reads, telling characters of
    their progress, the progress event, and game time (deadlines)."""


class ObjectiveTracker:
    """Reads quests from the registry and progress from the characters' QuestLogs;
    what completion or failure means for the quest is for ``on_met`` and
    ``on_failed`` (the QuestManager's transitions) to decide."""

    def __init__(
        self,
        engine: ObjectivesHost,
        registry: QuestRegistry,
        *,
        on_met: ObjectivesMet,
        on_failed: QuestFailer,
    ) -> None:
        self.engine = engine
        self.registry = registry
        self._on_met = on_met
        #: A character and the group members with them (the groups plugin installs
        #: its own): a kill counts for all of them on a shared-credit quest.
        self.companions: Callable[[UUID], list[UUID]] = lambda uid: [uid]
        #: The quest foe tag of an NPC (its quest, objective and hunter), if it is
        #: one (the QuestManager installs its QuestFoes' ``tag_of``).
        self.quarry: Callable[[UUID], QuestFoe | None] = lambda npc: None
        #: Called once a death was counted (the foes' keeper drops its tag).
        self.counted: Callable[[UUID], None] = lambda npc: None
        self._on_failed = on_failed
        #: character -> ids of its accepted (IN_PROGRESS/COMPLETED) quests.
        self._active: dict[UUID, set[str]] = defaultdict(set)
        #: PROTECT/ESCORT NPC -> (character, quest) watching it.
        self._npcs: dict[UUID, set[_Key]] = defaultdict(set)
        #: (character, quest) with something that runs out over time.
        self._timed: set[_Key] = set()
        #: ``_timed`` in the order ``tick`` visits it (None: to be sorted again).
        self._timed_order: list[_Key] | None = None
        #: Timed quests whose only clock is the quest's time limit: key ->
        #: (accepted at, limit). ``tick`` skips them until the limit runs out.
        self._limit_only: dict[_Key, tuple[float, float]] = {}
        #: Conversations already counted by ``talk_now`` -> how many events to skip.
        self._talked: dict[tuple[UUID, UUID], int] = {}
        #: (character, NPC) while ``talk_now`` counts their conversation: a quest it
        #: completes for that NPC is turned in by the same ``talk``.
        self.talking: tuple[UUID, UUID] | None = None
        #: (character, quest id) told that a kill did not count for it as offered.
        self._told_uncounted: set[_Key] = set()

    @property
    def world(self) -> World:
        return self.engine.world

    @property
    def now(self) -> float:
        return self.engine.clock.game_time

    def _ws(self) -> WorldService:
        return self.engine.services.get(WorldService)

    def _notify(self, character: UUID, text: str) -> None:
        self.engine.sessions.send_to(character, text)

    # -- index -------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Rebuild the indexes from every QuestLog (after loading the world)."""
        self._active.clear()
        self._npcs.clear()
        self._timed.clear()
        self._timed_order = None
        self._limit_only.clear()
        for uid, qlog in self.world.each(QuestLog):
            for entry in qlog.active:
                quest = self.registry.for_entry(entry)
                if quest is not None:
                    self._index(uid, quest)

    def _index(self, character: UUID, quest: Quest) -> None:
        key = (character, quest.quest_id)
        self._active[character].add(quest.quest_id)
        for o in quest.objectives:
            if o.target_id is not None and o.objective_type in (
                ObjectiveType.PROTECT,
                ObjectiveType.ESCORT,
            ):
                self._npcs[o.target_id].add(key)
        if quest.time_limit_seconds is not None or any(
            o.objective_type is ObjectiveType.TIMED
            or (o.objective_type is ObjectiveType.PROTECT and o.time_limit_seconds)
            for o in quest.objectives
        ):
            self._timed.add(key)
            self._timed_order = None
            self._limit_only.pop(key, None)  # accepted again: a new clock

    def stopped(self, character: UUID, quest_id: str) -> None:
        """Forget a quest that left the active states."""
        key = (character, quest_id)
        ids = self._active.get(character)
        if ids is not None:
            ids.discard(quest_id)
            if not ids:
                del self._active[character]
        for npc in [n for n, keys in self._npcs.items() if key in keys]:
            self._npcs[npc].discard(key)
            if not self._npcs[npc]:
                del self._npcs[npc]
        if key in self._timed:
            self._timed.discard(key)
            self._timed_order = None
        self._limit_only.pop(key, None)

    def running(self, character: UUID) -> list[tuple[Quest, QuestEntry]]:
        """The character's accepted quests, in a stable order."""
        ids = self._active.get(character)
        qlog = self.world.try_component(character, QuestLog) if ids else None
        if not ids or qlog is None:
            return []
        out = []
        for quest_id in sorted(ids):
            entry = qlog.entry(quest_id)
            quest = self.registry.for_entry(entry) if entry is not None else None
            if entry is not None and quest is not None and entry.state.active:
                out.append((quest, entry))
        return out

    # -- lifecycle ---------------------------------------------------------------------
    def start(self, character: UUID, quest: Quest, entry: QuestEntry) -> None:
        entry.objectives = {o.objective_id: ObjectiveProgress() for o in quest.objectives}
        self._index(character, quest)
        self._advance(character, quest, entry)

    def complete_custom(
        self, character: UUID, quest: Quest, entry: QuestEntry, objective_id: str
    ) -> None:
        o = quest.objective(objective_id)
        if o is None or o.objective_type is not ObjectiveType.CUSTOM:
            raise QuestError(f"'{quest.title}' has no custom objective '{objective_id}'.")
        progress = entry.objectives[objective_id]
        if not progress.unlocked:
            raise QuestError(f"That part of '{quest.title}' is not open yet.")
        self._set(character, quest, entry, o, o.target_count)

    # -- the state of objectives -------------------------------------------------------
    def _advance(self, character: UUID, quest: Quest, entry: QuestEntry) -> None:
        """Unlock what the order allows, settle watchers, detect completion."""
        now = self.now
        changed = True
        while changed and entry.state.active:
            changed = False
            gate = min(
                (o.order for o in quest.required if not entry.objectives[o.objective_id].completed),
                default=None,
            )
            for o in quest.objectives:
                p = entry.objectives[o.objective_id]
                if p.unlocked_at is None and (gate is None or o.order <= gate):
                    p.unlocked_at = now
                    changed = True
                    self._on_unlock(character, quest, entry, o)
                    if not entry.state.active:
                        return
            for o in quest.objectives:
                p = entry.objectives[o.objective_id]
                if o.objective_type in WATCHERS and p.open and self._watch_done(quest, entry, o):
                    self._set(character, quest, entry, o, o.target_count, advance=False)
                    changed = True
        if entry.state is QuestState.IN_PROGRESS and all(
            entry.objectives[o.objective_id].completed for o in quest.required
        ):
            self._on_met(character, quest, entry)

    def _watch_done(self, quest: Quest, entry: QuestEntry, o: QuestObjective) -> bool:
        if any(not entry.objectives[w].completed for w in quest.watched(o)):
            return False
        p = entry.objectives[o.objective_id]
        assert p.unlocked_at is not None
        elapsed = self.now - p.unlocked_at
        if o.objective_type is ObjectiveType.TIMED:
            return o.time_limit_seconds is None or elapsed <= o.time_limit_seconds
        if o.time_limit_seconds is not None and elapsed < o.time_limit_seconds:
            return False
        return o.target_id is not None and self.world.entity_exists(o.target_id)

    def _on_unlock(
        self, character: UUID, quest: Quest, entry: QuestEntry, o: QuestObjective
    ) -> None:
        """Checks that need no event: what is already true when an objective opens."""
        t = o.objective_type
        if t in (ObjectiveType.PROTECT, ObjectiveType.ESCORT):
            assert o.target_id is not None
            if not self.world.entity_exists(o.target_id):
                name = o.target_name or "the one you were to look after"
                self._fail_objective(character, quest, entry, o, f"{name} is gone")
                return
        if t is ObjectiveType.COLLECT:
            assert o.item_template is not None
            self._set(
                character,
                quest,
                entry,
                o,
                self.count_items(character, o.item_template),
                advance=False,
            )
        elif t is ObjectiveType.VISIT and self._ws().room_key_of(character) == (
            o.destination_room_id
        ):
            self._set(character, quest, entry, o, o.target_count, advance=False)
        elif t is ObjectiveType.ESCORT:
            self._check_escort(character, quest, entry, o, advance=False)

    def _set(
        self,
        character: UUID,
        quest: Quest,
        entry: QuestEntry,
        o: QuestObjective,
        count: int,
        *,
        advance: bool = True,
    ) -> None:
        """Raise an open objective's count to ``count`` (capped); completion latches."""
        p = entry.objectives[o.objective_id]
        count = min(count, o.target_count)
        if not p.open or count <= p.count:
            return
        p.count = count
        done = count >= o.target_count
        if done:
            p.completed, p.completed_at = True, self.now
        self.world.modified(character, log_of(self.world, character))
        self.engine.events.emit(
            QuestProgressEvent(
                quest.quest_id, character, o.objective_id, count, o.target_count, done
            )
        )
        tally = f" ({count}/{o.target_count})" if o.target_count > 1 else ""
        status = " |g- done|n" if done else ""
        self._notify(character, f"[{quest.title}] {o.description}{tally}{status}")
        if advance:
            self._advance(character, quest, entry)

    def _fail_objective(
        self, character: UUID, quest: Quest, entry: QuestEntry, o: QuestObjective, why: str
    ) -> None:
        entry.objectives[o.objective_id].failed = True
        self.world.modified(character, log_of(self.world, character))
        if o.required:
            self._on_failed(character, quest, entry, FailReason.FAILED, why)
        else:
            self._notify(character, f"[{quest.title}] {o.description} |r- failed ({why})|n")

    def _each_open(
        self, character: UUID, *types: ObjectiveType
    ) -> list[tuple[Quest, QuestEntry, QuestObjective]]:
        out = []
        for quest, entry in self.running(character):
            for o in quest.objectives:
                if o.objective_type in types and entry.objectives[o.objective_id].open:
                    out.append((quest, entry, o))
        return out

    def needed_templates(self, character: UUID) -> set[str]:
        """The items the character's quests still ask for (to deliver, or collected
        for a turn-in that hands them over, done or not): what they should not sell
        by accident."""
        found = {
            o.item_template
            for _, _, o in self._each_open(character, ObjectiveType.DELIVER)
            if o.item_template
        }
        for quest, _entry in self.running(character):
            found.update(
                o.item_template
                for o in quest.objectives
                if o.objective_type is ObjectiveType.COLLECT and o.item_template
            )
        return found

    def is_escorted(self, npc: UUID) -> bool:
        """Whether someone is bringing ``npc`` somewhere (an open ESCORT objective of
        an accepted quest): it goes where its escort goes, not where its day would."""
        for _character, quest, entry in self._watching(npc):
            for o in quest.objectives:
                if (
                    o.objective_type is ObjectiveType.ESCORT
                    and o.target_id == npc
                    and entry.objectives[o.objective_id].open
                ):
                    return True
        return False

    # -- helpers -----------------------------------------------------------------------
    def _watching(self, npc: UUID) -> list[tuple[UUID, Quest, QuestEntry]]:
        """Accepted quests with a PROTECT/ESCORT objective about ``npc``."""
        out = []
        for character, quest_id in sorted(self._npcs.get(npc, ()), key=str):
            entry = entry_of(self.world, character, quest_id)
            quest = self.registry.for_entry(entry) if entry is not None else None
            if quest is not None and entry is not None and entry.state.active:
                out.append((character, quest, entry))
        return out

    def count_items(self, character: UUID, template: str) -> int:
        return count_items(self.engine, character, template)

    def _npc_matches(self, o: QuestObjective, npc: UUID, template: str = "") -> bool:
        return npc_matches(self.engine, o, npc, template)

    def _dead_name(self, template: str) -> str:
        return template_name(self.engine, template) or "the one you were protecting"

    def _check_escort(
        self,
        character: UUID,
        quest: Quest,
        entry: QuestEntry,
        o: QuestObjective,
        *,
        advance: bool = True,
    ) -> None:
        ws = self._ws()
        assert o.target_id is not None
        room = ws.room_key_of(o.target_id)
        if room is not None and room == o.destination_room_id == ws.room_key_of(character):
            self._set(character, quest, entry, o, o.target_count, advance=advance)

    # -- event handlers ----------------------------------------------------------------
    def on_died(self, event: EntityDiedEvent) -> None:
        killer = event.killer_id
        for character in self.companions(killer) if killer is not None else []:
            for quest, entry, o in self._each_open(character, ObjectiveType.KILL):
                if (
                    character != killer
                    and quest.progression_mode is not ProgressionMode.SHARED_CREDIT
                ):
                    continue
                if entry.state.active and self._kill_counts(
                    character, quest, entry, o, event.entity_id, event.template
                ):
                    count = entry.objectives[o.objective_id].count + 1
                    self._set(character, quest, entry, o, count)
        for character, quest, entry in self._watching(event.entity_id):
            for o in quest.objectives:
                p = entry.objectives[o.objective_id]
                if (
                    o.target_id == event.entity_id
                    and o.objective_type in (ObjectiveType.PROTECT, ObjectiveType.ESCORT)
                    and not p.completed
                    and not p.failed
                    and entry.state.active
                ):
                    name = o.target_name or self._dead_name(event.template)
                    self._fail_objective(character, quest, entry, o, f"{name} died")
        if killer is not None:
            self._tell_uncounted(killer, event.entity_id, event.template)
        self.counted(event.entity_id)

    def _tell_uncounted(self, killer: UUID, npc: UUID, template: str) -> None:
        """A kill that a quest only offered to the killer would have counted: say
        so, once a quest. Kills count from the acceptance on; without a word a
        player who cleared the road first wonders why the quest asks for it all."""
        qlog = self.world.try_component(killer, QuestLog)
        if qlog is None or self.quarry(npc) is not None:
            return
        stats = self.world.try_component(killer, CharacterStats)
        level = stats.level if stats is not None else 1
        for entry in list(qlog.quests.values()):
            key = (killer, entry.quest_id)
            if entry.state is not QuestState.AVAILABLE or key in self._told_uncounted:
                continue
            quest = self.registry.for_entry(entry)
            # One they may not take on yet is no advice ("type 'accept 1'") to give.
            if (
                quest is None
                or level < quest.level_requirement
                or not any(
                    o.objective_type is ObjectiveType.KILL and self._npc_matches(o, npc, template)
                    for o in quest.objectives
                )
            ):
                continue
            self._told_uncounted.add(key)
            if not entry.number:
                qlog.live()  # numbers the offers as the quest list shows them
            self._notify(
                killer,
                f"(That kill does not count for '{quest.title}' until you accept it: "
                f"type 'accept {entry.number}'.)",
            )

    def _kill_counts(
        self,
        character: UUID,
        quest: Quest,
        entry: QuestEntry,
        o: QuestObjective,
        npc: UUID,
        template: str,
    ) -> bool:
        """Whether killing ``npc`` counts for the objective: a quest's own foe counts
        only for the objective it was spawned for, of its hunter; the world's foes
        of the kind count as ever (they are the real threat the quest is about)."""
        tag = self.quarry(npc)
        if tag is not None:
            return (
                tag.owner == character
                and tag.quest_id == quest.quest_id
                and tag.objective_id == o.objective_id
            )
        return self._npc_matches(o, npc, template)

    def on_picked_up(self, event: ItemPickedUpEvent) -> None:
        self._recount(event.holder_id, event.template)

    def on_given(self, event: ItemGivenEvent) -> None:
        for quest, entry, o in self._each_open(event.giver_id, ObjectiveType.DELIVER):
            if o.item_template == event.template and self._npc_matches(o, event.receiver_id):
                if entry.state.active:
                    count = entry.objectives[o.objective_id].count + 1
                    self._set(event.giver_id, quest, entry, o, count)
        self._recount(event.receiver_id, event.template)

    def takes_gift(self, giver: UUID, receiver: UUID, template: str) -> int | str | None:
        """The items' GiftTaker: an NPC takes as many as the giver's open deliveries
        still bring it. What a quest of theirs collects for that NPC it turns down,
        saying why: collecting counts what the giver carries, so handing it over
        would undo the objective instead of finishing it."""
        owed = 0
        for _, entry, o in self._each_open(giver, ObjectiveType.DELIVER):
            if (
                o.item_template == template
                and entry.state.active
                and self._npc_matches(o, receiver)
            ):
                owed += max(0, o.target_count - entry.objectives[o.objective_id].count)
        if owed:
            return owed
        for quest, entry in self.running(giver):
            if receiver not in (quest.turn_in_npc, quest.giver_npc_id):
                continue
            if not any(
                o.objective_type is ObjectiveType.COLLECT and o.item_template == template
                for o in quest.objectives
            ):
                continue
            name = name_of(self._ws(), quest.turn_in_npc or receiver)
            if entry.state is QuestState.COMPLETED:
                return (
                    f"Keep it for now: talk to {name} to turn in '{quest.title}', and "
                    "all you gathered is handed over then."
                )
            return (
                f"Keep it for now: '{quest.title}' counts what you carry. Talk to {name} "
                "once you have all of it, and it is handed over then."
            )
        return None

    def recount(self, character: UUID, template: str) -> None:
        """Count again what the character's COLLECT objectives of ``template`` hold
        (items of it left the character some way no event reports)."""
        self._recount(character, template)

    def _recount(self, character: UUID, template: str) -> None:
        for quest, entry, o in self._each_open(character, ObjectiveType.COLLECT):
            if o.item_template == template and entry.state.active:
                self._set(character, quest, entry, o, self.count_items(character, template))

    def replies(self, character: UUID, npc: UUID) -> list[str]:
        """What ``npc`` answers to the character's TALK steps a conversation now
        would finish (their ``reply``, where one is written)."""
        out = []
        for _quest, entry, o in self._each_open(character, ObjectiveType.TALK):
            if (
                o.reply
                and entry.state.active
                and self._npc_matches(o, npc)
                and entry.objectives[o.objective_id].count + 1 >= o.target_count
            ):
                out.append(o.reply)
        return out

    def deliverable(self, character: UUID, npc: UUID) -> list[tuple[Quest, QuestObjective]]:
        """The character's open DELIVER steps to ``npc`` that what they carry could
        finish now (a ``give`` away): talking to the NPC then says so, instead of
        asking for what is already in hand."""
        return [
            (quest, o)
            for quest, entry, o in self._each_open(character, ObjectiveType.DELIVER)
            if o.item_template
            and entry.state.active
            and self._npc_matches(o, npc)
            and self.count_items(character, o.item_template) > 0
        ]

    def talk_now(self, character: UUID, npc: UUID) -> None:
        """Count a conversation before its queued TalkedToEvent is dispatched (the
        ``talk`` handler turns quests in right away); that event is then skipped."""
        self._talked[(character, npc)] = self._talked.get((character, npc), 0) + 1
        self.talking = (character, npc)
        try:
            self._on_talk(character, npc)
        finally:
            self.talking = None

    def on_talked(self, event: TalkedToEvent) -> None:
        key = (event.character_id, event.npc_id)
        pending = self._talked.get(key, 0)
        if pending:
            if pending == 1:
                del self._talked[key]
            else:
                self._talked[key] = pending - 1
            return
        self._on_talk(event.character_id, event.npc_id)

    def _on_talk(self, character: UUID, npc: UUID) -> None:
        for quest, entry, o in self._each_open(character, ObjectiveType.TALK):
            if entry.state.active and self._npc_matches(o, npc):
                count = entry.objectives[o.objective_id].count + 1
                self._set(character, quest, entry, o, count)

    def on_fact(self, event: FactSetEvent) -> None:
        """A FACT objective is done when its holder makes the fact true. The fact
        remembers it counted, so the deed can no longer be undone."""
        character = event.by
        if character is None or character not in self._active:
            return
        facts = self.engine.services.get(FactBook)
        if facts.current(event) is None:
            return  # undone before anyone reacted
        for quest, entry, o in self._each_open(character, ObjectiveType.FACT):
            if entry.state.active and o.fact == event.name:
                self._set(character, quest, entry, o, o.target_count)
                facts.react(event.name, f"it counted for your quest '{quest.title}'")

    def on_relocated(self, event: EntityRelocatedEvent) -> None:
        uid, to_room = event.entity_id, event.to_room
        if uid in self._active and to_room is not None:
            ws = self._ws()
            for quest, entry, o in self._each_open(uid, ObjectiveType.VISIT, ObjectiveType.ESCORT):
                if not entry.state.active:
                    continue
                if o.objective_type is ObjectiveType.VISIT:
                    if o.destination_room_id == to_room:
                        self._set(uid, quest, entry, o, o.target_count)
                    continue
                assert o.target_id is not None
                # The escorted NPC follows its escort; its own relocation event
                # then checks whether it has arrived.
                if event.from_room is not None and ws.room_key_of(o.target_id) == (event.from_room):
                    ws.move(o.target_id, to_room, reason="follow")
                    who = capitalize(display_name(self.world, o.target_id))
                    self._notify(uid, f"{who} follows you.")
                self._check_escort(uid, quest, entry, o)
        for character, quest, entry in self._watching(uid):
            for o in quest.objectives:
                if (
                    o.objective_type is ObjectiveType.ESCORT
                    and o.target_id == uid
                    and (entry.objectives[o.objective_id].open)
                ):
                    self._check_escort(character, quest, entry, o)

    def on_damage(self, event: DamageDealtEvent) -> None:
        if event.target_id not in self._active:
            return
        for _quest, entry in self.running(event.target_id):
            tracker = QuestProgressTracker(entry)
            if tracker.record_health(event.target_health, event.target_max_health):
                self.world.modified(event.target_id, log_of(self.world, event.target_id))

    # -- time --------------------------------------------------------------------------
    def tick(self) -> None:
        """Time limits, TIMED objectives and PROTECT durations (game time)."""
        now = self.now
        # A stable order without formatting UUIDs, sorted again only when the set
        # changed (not on every tick).
        order = self._timed_order
        if order is None:
            order = self._timed_order = sorted(self._timed, key=lambda k: (k[0].int, k[1]))
        limit_only = self._limit_only
        for key in list(order):
            clock = limit_only.get(key)
            if clock is not None and now - clock[0] <= clock[1]:
                # Nothing to do before the limit runs out; an entry that left the
                # active states meanwhile is dropped then (or by ``stopped``).
                continue
            character, quest_id = key
            entry = entry_of(self.world, character, quest_id)
            quest = self.registry.for_entry(entry) if entry is not None else None
            if quest is None or entry is None or not entry.state.active:
                self._timed.discard(key)
                self._timed_order = None
                limit_only.pop(key, None)
                continue
            limit = quest.time_limit_seconds
            if (
                limit is not None
                and entry.accepted_at is not None
                and (now - entry.accepted_at > limit)
            ):
                self._on_failed(
                    character, quest, entry, FailReason.EXPIRED, "the time limit ran out"
                )
                continue
            if (
                limit is not None
                and entry.accepted_at is not None
                and not any(
                    o.objective_type is ObjectiveType.TIMED or o.objective_type in WATCHERS
                    for o in quest.objectives
                )
            ):
                limit_only[key] = (entry.accepted_at, limit)
                continue
            for o in quest.objectives:
                p = entry.objectives[o.objective_id]
                if (
                    o.objective_type is ObjectiveType.TIMED
                    and p.open
                    and entry.state.active
                    and o.time_limit_seconds is not None
                    and p.unlocked_at is not None
                    and now - p.unlocked_at > o.time_limit_seconds
                ):
                    self._fail_objective(character, quest, entry, o, "you ran out of time")
            # Only watchers (TIMED, PROTECT) settle with time alone; a quest here just
            # for its time limit advances on events as every other quest does.
            if any(o.objective_type in WATCHERS for o in quest.objectives):
                self._advance(character, quest, entry)
