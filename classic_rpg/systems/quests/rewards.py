"""Turn-in: rewards paid once and only once, atomically with the turn-in record.

On turn-in the rewards are applied to the character's components, the quest is
marked TURNED_IN in its QuestLog, and then the ``quest_turnins`` record is written
by a commit of the world (``StorePort.commit_now``): the character, the reward
items and every other entity changed since the last checkpoint go to the store in
ONE transaction with the record, before the player is told. Never the character
alone: it may hold the other half of a trade, and a crash must not find one half
on disk without the other. If the write fails, the in-memory changes are rolled
back and nothing was paid.

A record that already exists means "already paid". Each record also keeps the
components it paid and starts ``settled: false``; at start-up,
:meth:`TurnInLedger.reconcile` restores those components for every unsettled
record the character's QuestLog does not list as paid, then settles it. Writes of
the world land in the order they were collected, so a checkpoint that collected
the character before the turn-in can no longer land after it; the repair remains
for records stored before that was so.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from classic_rpg.characters.levels import Progression
from classic_rpg.components import CharacterStats, Inventory
from classic_rpg.items.factory import ItemFactory
from classic_rpg.items.select import group_names
from classic_rpg.systems.quests.errors import QuestError
from classic_rpg.systems.quests.grading import grade_outcome, pyrrhic_reason
from classic_rpg.systems.quests.history import COLLECTION as HISTORY
from classic_rpg.systems.quests.history import QuestHistory
from classic_rpg.systems.quests.matching import display_name, template_name
from classic_rpg.systems.quests.models import Quest, QuestRewards
from classic_rpg.systems.quests.objectives import ObjectiveTracker
from classic_rpg.systems.quests.questlog import QuestEntry, QuestLog, log_of
from classic_rpg.systems.quests.registry import QuestRegistry
from maid_engine.ecs import dump_component, load_component
from maid_engine.ports import SessionsPort, StorePort, WorldLockPort
from maid_engine.store import Transaction
from maid_stdlib.questgen.events import QuestTurnedInEvent
from maid_stdlib.questgen.vocabulary import ObjectiveType, QuestOutcome, QuestState
from maid_stdlib.text.morph import counted
from maid_stdlib.world.extensions import ExtensionHost
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.spawner import spawn_template
from maid_stdlib.world.text import capitalize, join_words, speaker

if TYPE_CHECKING:
    from maid_engine.ecs import World

log = logging.getLogger("maid.rpg.quests")

COLLECTION = "quest_turnins"
#: Reward share of a PARTIAL_SUCCESS turn-in (items are withheld).
PARTIAL_SHARE = 0.5
#: Components never restored from a record: the world index owns positions.
_NOT_RESTORED = frozenset({"Position"})


def rewards_for(quest: Quest, outcome: QuestOutcome) -> QuestRewards:
    if outcome is QuestOutcome.PARTIAL_SUCCESS:
        return QuestRewards(
            experience=int(quest.rewards.experience * PARTIAL_SHARE),
            gold=int(quest.rewards.gold * PARTIAL_SHARE),
        )
    return quest.rewards


def record_key(quest_id: str, character: UUID, previous_turn_ins: int) -> str:
    base = f"{quest_id}:{character}"
    return base if previous_turn_ins == 0 else f"{base}:{previous_turn_ins + 1}"


class LedgerHost(ExtensionHost, SessionsPort, StorePort, WorldLockPort, Protocol):
    """What paying turn-ins uses: spawning reward items (what the world data's
    extensions get: world, events, services, game time, the seeded random),
    telling the character, and the store and world lock its records are settled
    under."""


class TurnInLedger:
    """Pays turn-ins and settles their records. It reads quests from the registry,
    writes runs to the history and tells the objective tracker when a quest stops
    (or, after a rollback or a restore, to rebuild)."""

    def __init__(
        self,
        engine: LedgerHost,
        registry: QuestRegistry,
        history: QuestHistory,
        objectives: ObjectiveTracker,
    ) -> None:
        self.engine = engine
        self.registry = registry
        self.history = history
        self.objectives = objectives

    @property
    def world(self) -> World:
        return self.engine.world

    def _notify(self, character: UUID, text: str) -> None:
        self.engine.sessions.send_to(character, text)

    def _components(self, uid: UUID) -> dict[str, dict[str, Any]]:
        return {
            c.component_name: dump_component(c) for c in self.world.components_of(uid) if c.persist
        }

    # -- turning in ----------------------------------------------------------------------
    async def turn_in(self, character: UUID, quest: Quest, entry: QuestEntry) -> QuestOutcome:
        engine = self.engine
        qlog = log_of(self.world, character)
        previous = qlog.turn_ins.get(quest.quest_id, 0)
        key = record_key(quest.quest_id, character, previous)
        store = engine.store if engine.has_store else None
        if key in qlog.paid:
            raise QuestError(f"You have already turned in '{quest.title}'.")
        if store is not None:
            existing = await store.documents.get(COLLECTION, key)
            if existing is not None:
                self.restore(existing)
                raise QuestError(f"You have already turned in '{quest.title}'.")
        now = engine.clock.game_time
        npc = quest.turn_in_npc
        handed = self.gathered(character, quest, entry)
        outcome = grade_outcome(quest, entry, now)
        rewards = rewards_for(quest, outcome)
        if quest.complete_dialogue and npc is not None:
            who = speaker(display_name(self.world, npc))
            self._notify(character, f'{who} says, "{quest.complete_dialogue}"')
        # Everything the turn-in may change, as it was: put back if it is not saved.
        parties = [character, *([npc] if handed and npc is not None else []), *handed]
        snapshot = {uid: self._components(uid) for uid in parties}
        spawned: list[UUID] = []
        try:
            if handed and npc is not None:
                self._hand_over(npc, handed)
            spawned = self._pay(character, quest, rewards)
            entry.state, entry.outcome, entry.finished_at = QuestState.TURNED_IN, outcome, now
            qlog.turn_ins[quest.quest_id] = previous + 1
            qlog.paid.append(key)
            self.world.modified(character, qlog)
            self.objectives.stopped(character, quest.quest_id)
            history_key = self.history.write_run(
                self.registry.get(entry.quest_id), character, entry, now
            )
            if store is not None:
                upserts = {
                    uid: self._components(uid)
                    for uid in (*parties, *spawned)
                    if self.world.entity_exists(uid)
                }
                if npc in upserts and npc != character:
                    # Of the NPC only what it was handed: the rest of it (its needs,
                    # its day) moves on, and a repair must not set it back.
                    name = Inventory.component_name
                    upserts[npc] = {k: v for k, v in upserts[npc].items() if k == name}
                record = {
                    "key": key,
                    "quest_id": quest.quest_id,
                    "character_id": str(character),
                    "outcome": outcome.value,
                    "rewards": rewards.model_dump(mode="json"),
                    "items": [str(i) for i in spawned],
                    "turned_in_at": now,
                    "settled": False,
                    "components": {str(uid): comps for uid, comps in upserts.items()},
                }
                history_doc = self.history.take_run(history_key)
                await self._write(key, record, history_key, history_doc)
        except Exception as exc:
            self._rollback(snapshot, spawned)
            self.objectives.rebuild()
            log.exception(
                "quest turn-in could not be saved; rolled back",
                extra={"quest_id": quest.quest_id, "character_id": str(character)},
            )
            raise QuestError(
                "Your report could not be recorded just now and nothing was paid; "
                "please try again in a moment."
            ) from exc
        engine.events.emit(QuestTurnedInEvent(quest.quest_id, character, outcome))
        log.info(
            "quest turned in",
            extra={
                "quest_id": quest.quest_id,
                "character_id": str(character),
                "outcome": outcome.value,
            },
        )
        if handed and npc is not None:
            self._tell_handed(character, npc, handed)
            # Other quests collecting the same things count what is left.
            items = self.engine.services.get(ItemFactory)
            for template in {items.template_of(i) for i in handed}:
                self.objectives.recount(character, template)
        grade = outcome.value.replace("_", " ")
        self._notify(character, f"|gQuest complete: '{quest.title}' ({grade}).|n")
        if outcome is QuestOutcome.PYRRHIC_VICTORY:
            why = pyrrhic_reason(quest, entry, now)
            self._notify(
                character,
                f"A pyrrhic victory: you won, but {why}, so it changes the world "
                "less than a clean win would. (Type 'help pyrrhic'.)",
            )
        if spawned:
            names = ", ".join(display_name(self.world, i) for i in spawned)
            self._notify(character, f"You receive {names}.")
        return outcome

    # -- what was gathered ---------------------------------------------------------------
    def gathered(self, character: UUID, quest: Quest, entry: QuestEntry) -> list[UUID]:
        """The items the quest's COLLECT objectives asked for, which its turn-in NPC
        takes: as many as each objective counted (all it asked for, once done) less
        what the quest's DELIVER steps already took of the kind, carried ones
        first. QuestError when a finished objective's items are no longer all
        there (dropped, sold or given away since)."""
        items = self.engine.services.try_get(ItemFactory)
        if items is None or quest.turn_in_npc is None:
            return []
        # What the quest's own DELIVER steps took of a kind was gathered for them
        # (collect the ore, then bring it to the smith): nothing more to hand over.
        delivered: dict[str, int] = {}
        for o in quest.objectives:
            done = entry.objectives.get(o.objective_id)
            if o.objective_type is ObjectiveType.DELIVER and o.item_template and done is not None:
                delivered[o.item_template] = delivered.get(o.item_template, 0) + done.count
        chosen: list[UUID] = []
        for o in quest.objectives:
            if o.objective_type is not ObjectiveType.COLLECT or not o.item_template:
                continue
            progress = entry.objectives.get(o.objective_id)
            counted_now = min(o.target_count, progress.count if progress is not None else 0)
            given = min(counted_now, delivered.get(o.item_template, 0))
            delivered[o.item_template] = delivered.get(o.item_template, 0) - given
            wanted = counted_now - given
            found = [
                i
                for i in items.all_items(character)
                if i not in chosen and items.template_of(i) == o.item_template
            ][:wanted]
            if progress is not None and progress.completed and len(found) < wanted:
                who = capitalize(display_name(self.world, quest.turn_in_npc))
                name = template_name(self.engine, o.item_template) or o.item_template
                raise QuestError(
                    f"{who} wants what you gathered for '{quest.title}': "
                    f"{counted(wanted, name)}. You have {len(found)} of them with you."
                )
            chosen.extend(found)
        return chosen

    def _hand_over(self, npc: UUID, handed: list[UUID]) -> None:
        items = self.engine.services.get(ItemFactory)
        for item in handed:
            items.add_to_inventory(item, npc)

    def _tell_handed(self, character: UUID, npc: UUID, handed: list[UUID]) -> None:
        ws = self.engine.services.get(WorldService)
        things = join_words(group_names(ws, handed))
        who = display_name(self.world, npc)
        self._notify(character, f"You hand {things} to {who}.")
        room = ws.room_key_of(character)
        if room is not None:
            ws.message_room(
                room,
                f"{capitalize(name_of(ws, character))} hands {things} to {who}.",
                exclude=(character,),
            )

    def _pay(self, character: UUID, quest: Quest, rewards: QuestRewards) -> list[UUID]:
        services = self.engine.services
        reason = f"for completing '{quest.title}'"
        progression = services.try_get(Progression)
        if progression is not None:
            progression.award_experience(character, rewards.experience, reason)
            progression.award_gold(character, rewards.gold, reason)
        elif rewards.experience or rewards.gold:
            stats = self.world.get_or_add(character, CharacterStats)
            stats.experience += rewards.experience
            stats.gold += rewards.gold
        factory = services.try_get(ItemFactory)
        spawned: list[UUID] = []
        for template in rewards.item_template_ids:
            try:
                if factory is not None:
                    spawned.append(factory.spawn(template, holder=character))
                else:
                    spawned.append(self._spawn_plain(template, character))
            except LookupError:
                # A missing template must not make the quest impossible to turn in.
                log.error(
                    "quest reward item template %r does not exist",
                    template,
                    extra={"quest_id": quest.quest_id},
                )
        return spawned

    def _spawn_plain(self, template: str, character: UUID) -> UUID:
        uid = spawn_template(self.engine, template, None, kind="item")
        inv = self.world.get_or_add(character, Inventory)
        inv.items.append(uid)
        self.world.modified(character, inv)
        return uid

    async def _write(
        self,
        key: str,
        record: dict[str, Any],
        history_key: str,
        history_doc: dict[str, Any] | None,
    ) -> None:
        """The record (and the quest run) with the whole world, in one commit. The
        turn-in runs in a command, under the world lock."""

        async def put(tx: Transaction) -> None:
            await tx.documents.put(COLLECTION, key, record)
            if history_doc is not None:
                await tx.documents.put(HISTORY, history_key, history_doc)

        await self.engine.commit_now(put)

    def _rollback(
        self, snapshot: dict[UUID, dict[str, dict[str, Any]]], spawned: list[UUID]
    ) -> None:
        for uid in spawned:
            self.world.destroy_entity(uid)
        for uid, comps in snapshot.items():
            if not self.world.entity_exists(uid):
                continue
            # A component the turn-in added (an item's holder) goes too.
            for comp in list(self.world.components_of(uid)):
                if comp.persist and comp.component_name not in comps:
                    self.world.remove_component(uid, type(comp))
            for name, data in comps.items():
                self.world.add_component(uid, load_component(name, data))

    # -- recovery ------------------------------------------------------------------------
    def restore(self, record: dict[str, Any]) -> bool:
        """Bring a character to the state written with ``record`` unless its QuestLog
        already lists the record as paid. Returns True if something was restored."""
        character = UUID(record["character_id"])
        if not self.world.entity_exists(character):
            return False
        qlog = self.world.try_component(character, QuestLog)
        if qlog is not None and record["key"] in qlog.paid:
            return False
        for uid_text, comps in (record.get("components") or {}).items():
            uid = UUID(uid_text)
            loaded = []
            for name, data in comps.items():
                if name in _NOT_RESTORED:
                    continue
                try:
                    loaded.append(load_component(name, data))
                except KeyError:
                    log.warning("turn-in record %s: unknown component %s", record["key"], name)
            if self.world.entity_exists(uid):
                for comp in loaded:
                    self.world.add_component(uid, comp)
            else:
                self.world.create_entity(*loaded, entity_id=uid)
        log.warning(
            "restored a quest turn-in lost by a stale checkpoint",
            extra={"quest_id": record["quest_id"], "character_id": str(character)},
        )
        return True

    async def reconcile(self) -> int:
        """Settle every unsettled turn-in record (start-up). Returns how many were restored."""
        engine = self.engine
        if not engine.has_store:
            return 0
        restored = 0
        for record in await engine.store.documents.query(COLLECTION, {"settled": False}):
            settled = {**record, "settled": True, "components": {}}

            async def settle(tx: Transaction, key: str = record["key"], doc: Any = settled) -> None:
                await tx.documents.put(COLLECTION, key, doc)

            # The restored components are dirty: they are written with the record.
            async with engine.world_lock:
                changed = self.restore(record)
                pending = engine.commit_now(settle)
            await pending
            restored += int(changed)
        if restored:
            self.objectives.rebuild()
        return restored
