"""QuestGroundingMonitor (phase grounding): keeps open generated quests true to the world.

* **Deaths and destruction** (EntityDestroyedEvent; the rules layer forwards its
  death event with the killer): a quest whose giver is gone is invalidated. So is
  one whose *specific* objective target is gone while some accepted holder still
  needed it -- except a KILL target killed by a holder of the quest, which is
  progress. Group objectives ("defeat 3 bandit scouts") match any such NPC, so
  one of them dying elsewhere invalidates nothing; so do kill objectives with a
  template (matched by kind), as long as an NPC of that kind is alive or really
  due to respawn (``WorldFacts.kind_available``, from the rules layer's hooks).
* **Relocation** (EntityRelocatedEvent): hints of objectives about a moved NPC name
  its new room ("Gundrik was last seen at the Rusty Tankard."), in the quest the
  players see and in the side-table.
* **Acceptance**: the rules layer asks :meth:`check_acceptance` before a quest is
  accepted; the side-effect-free QuestValidator re-checks the quest against the
  world as it is now, and a stale quest is refused (and invalidated) with why.
* **Sweep**, every ``sweep_interval`` game seconds: offers are re-validated;
  accepted quests are invalidated once no accepted holder can still finish them.
  A quest still open is re-rated when the items it asks for can no longer be
  picked up without a fight (``QuestGen.rerate``): the free ones were taken, and
  those left lie where foes stand or are had only from the foes who drop them.
  Its difficulty rises to that fight, the rules layer's terms follow, the
  objective's hint names the foe, and :class:`QuestReratedEvent` says so.

Invalidation goes through the rules layer (:class:`QuestBoard`), which tells the
holders that the quest is gone; the monitor then tells them why.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, ClassVar
from uuid import UUID

from maid_engine.ecs import System
from maid_engine.events import EntityDestroyedEvent
from maid_engine.logs import ThrottledLog
from maid_stdlib.consequences.sidetable import GeneratedQuestIndex, connect_generation
from maid_stdlib.grounding.port import Holder, QuestBoard
from maid_stdlib.questgen.builder import Supply
from maid_stdlib.questgen.events import QuestReratedEvent
from maid_stdlib.questgen.quest import GeneratedQuest, QuestObjective
from maid_stdlib.questgen.register import QuestGen
from maid_stdlib.questgen.vocabulary import ObjectiveType
from maid_stdlib.text.place import located
from maid_stdlib.world.events import EntityRelocatedEvent
from maid_stdlib.world.text import capitalize

if TYPE_CHECKING:
    from maid_engine.ports import Host

__all__ = ["QuestGroundingMonitor"]

log = logging.getLogger("maid.grounding")


class QuestGroundingMonitor(System):
    phase = "grounding"
    #: Game seconds between two sweeps (10 game minutes).
    sweep_interval: ClassVar[float] = 600.0

    def __init__(self, qg: QuestGen, index: GeneratedQuestIndex) -> None:
        self.qg = qg
        self.index = index
        #: Installed by the rules layer; without one the monitor only watches.
        self.board: QuestBoard | None = None
        #: entity -> ids of open quests that refer to it (giver or objective target).
        self._refs: dict[UUID, set[str]] = {}
        #: Names of referenced entities, remembered while they still exist.
        self._names: dict[UUID, str] = {}
        #: Entities whose death was already judged (their destruction follows).
        self._judged: set[UUID] = set()
        self._last_sweep: float | None = None
        self._flush_task: asyncio.Task[None] | None = None
        # Retried every tick while the store is away: one line a minute.
        self._flush_failures = ThrottledLog(log, clock=lambda: self.engine.clock.monotonic())

    def bind(self, engine: Host) -> None:
        super().bind(engine)
        self._invalidations = engine.metrics.counter(
            "maid_grounding_invalidations",
            "Generated quests invalidated",
            ["reason"],
            known=(
                "quest_giver_destroyed",
                "objective_target_destroyed",
                "periodic_sweep",
                "stale_grounding_at_acceptance",
            ),
        )
        self._rerated = engine.metrics.counter(
            "maid_grounding_rerated",
            "Generated quests made harder because the items they ask for lie about no more",
        )

    async def startup(self) -> None:
        await self.qg.startup()
        connect_generation(self.engine, self.index)
        self.engine.events.subscribe(EntityDestroyedEvent, self.on_entity_destroyed)
        self.engine.events.subscribe(EntityRelocatedEvent, self.on_entity_relocated)
        self._last_sweep = self.engine.clock.game_time
        await self.refresh()

    async def update(self, delta: float) -> None:
        now = self.engine.clock.game_time
        if self._last_sweep is None or now - self._last_sweep >= self.sweep_interval:
            self._last_sweep = now
            await self.sweep()
        if self.index.pending and (self._flush_task is None or self._flush_task.done()):
            self._flush_task = asyncio.create_task(self._flush())

    async def shutdown(self) -> None:
        if self._flush_task is not None and not self._flush_task.done():
            await asyncio.gather(self._flush_task, return_exceptions=True)
        await self._flush()

    async def _flush(self) -> None:
        try:
            await self.index.flush()
        except Exception as exc:
            self._flush_failures.warning(
                type(exc).__name__, "writing quest hint updates failed, will retry: %s", exc
            )
        else:
            self._flush_failures.clear()

    # -- what refers to what ----------------------------------------------------------
    async def refresh(self) -> None:
        """Rebuild the entity -> quest index from the open generated quests."""
        self._refs = {}
        if self.board is None:
            return
        for quest_id in self.board.open_generated_quests():
            quest = await self.index.get(quest_id)
            if quest is not None:
                self._watch(quest)

    async def watch(self, quest_id: str) -> None:
        """Start watching a newly registered quest (the rules layer calls this)."""
        quest = await self.index.get(quest_id)
        if quest is not None:
            self._watch(quest)

    def _watch(self, quest: GeneratedQuest) -> None:
        facts = self.qg.facts
        for entity in _referenced(quest):
            self._refs.setdefault(entity, set()).add(quest.id)
        # Names are needed to explain an invalidation after the entity is gone.
        for entity in [*_referenced(quest), *quest.involved_npcs]:
            if facts.exists(entity):
                self._names[entity] = facts.name(entity)

    def _open(self, quest_ids: set[str]) -> list[GeneratedQuest]:
        board = self.board
        if board is None:
            return []
        live = set(board.open_generated_quests())
        out = []
        for quest_id in sorted(quest_ids & live):
            quest = self.index.cached(quest_id)
            if quest is not None:
                out.append(quest)
        return out

    def name_of(self, entity: UUID) -> str:
        if self.qg.facts.exists(entity):
            return self.qg.facts.name(entity)
        return self._names.get(entity, "someone")

    # -- deaths and destruction -------------------------------------------------------
    async def on_entity_died(self, entity: UUID, killer: UUID | None) -> list[str]:
        """An entity died (before its destruction). Returns the quests invalidated."""
        self._judged.add(entity)
        return self._judge(entity, killer)

    async def on_entity_destroyed(self, event: EntityDestroyedEvent) -> None:
        entity = event.entity_id
        if entity in self._judged:
            self._judged.discard(entity)
        else:
            self._judge(entity, None)
        self._refs.pop(entity, None)

    def _judge(self, entity: UUID, killer: UUID | None) -> list[str]:
        out: list[str] = []
        for quest in self._open(self._refs.get(entity, set())):
            why = self._why_gone(quest, entity, killer)
            if why is not None:
                reason, text = why
                self.invalidate(quest, reason, text)
                out.append(quest.id)
        return out

    def _why_gone(
        self, quest: GeneratedQuest, entity: UUID, killer: UUID | None
    ) -> tuple[str, str] | None:
        name = self.name_of(entity)
        if entity == quest.quest_giver_id:
            return "quest_giver_destroyed", f"{name}, who asked for your help, is dead."
        assert self.board is not None
        holders = self.board.holders(quest.id)
        accepted = [h for h in holders if h.accepted]
        for o in quest.objectives:
            if o.target_entity_id != entity or o.optional:
                continue
            if o.objective_type is ObjectiveType.KILL:
                if killer is not None and any(h.character == killer for h in accepted):
                    return None  # progress, not a problem
                if o.target_template and self.qg.facts.kind_available(
                    o.target_template, dying=entity
                ):
                    continue  # matched by kind: another one is alive or respawning
                if accepted and all(o.id in h.completed for h in accepted):
                    continue
                # An offer-holder who killed the target themselves knows who did it.
                by = (
                    " by someone else"
                    if killer is not None and not any(h.character == killer for h in holders)
                    else ""
                )
                return "objective_target_destroyed", f"{name} was killed{by}."
            if not accepted or any(o.id not in h.completed for h in accepted):
                return (
                    "objective_target_destroyed",
                    f"{name} is gone: {o.description} can no longer be done.",
                )
        return None

    def invalidate(self, quest: GeneratedQuest, reason: str, why: str) -> list[UUID]:
        """Invalidate through the rules layer, then tell each affected player why."""
        if self.board is None:
            return []
        # One message per player: the rules layer says the quest is gone and why.
        affected = self.board.invalidate(quest.id, reason, why)
        self._invalidations.labels(reason).inc()
        log.info(
            "generated quest invalidated",
            extra={"quest_id": quest.id, "reason": reason, "characters": len(affected)},
        )
        for ids in self._refs.values():
            ids.discard(quest.id)
        return affected

    # -- relocation -------------------------------------------------------------------
    def on_entity_relocated(self, event: EntityRelocatedEvent) -> None:
        if event.to_room is None or event.entity_id not in self._refs or self.board is None:
            return
        facts = self.qg.facts
        where = located(facts.place(event.to_room))
        hint = f"{facts.name(event.entity_id)} was last seen {where}."
        for quest in self._open(self._refs[event.entity_id]):
            changed = False
            for o in quest.objectives:
                if o.target_entity_id != event.entity_id or (o.hints and o.hints[0] == hint):
                    continue
                o.hints = [hint, *o.hints[1:]]
                self.board.set_hint(quest.id, o.id, hint)
                changed = True
            if changed:
                self.index.update(quest)

    # -- validation -------------------------------------------------------------------
    async def check_acceptance(self, quest_id: str, character: UUID) -> str | None:
        """Why ``quest_id`` may no longer be accepted (None: it may). Never changes
        the quest (the validator has no side effects)."""
        quest = await self.index.get(quest_id)
        if quest is None:
            return None
        result = await self.qg.validator.validate(quest, offered=True)
        if result.valid:
            return None
        self._invalidations.labels("stale_grounding_at_acceptance").inc()
        log.info("quest %s refused at acceptance: %s", quest_id, "; ".join(result.errors))
        # Said to the player: the validator's words (objective ids, rules) are not.
        return self.explain(quest) or "things have moved on"

    def explain(self, quest: GeneratedQuest) -> str | None:
        """What in the world no longer fits the quest, in words a player understands."""
        facts = self.qg.facts
        if not facts.is_alive(quest.quest_giver_id):
            return f"{self.name_of(quest.quest_giver_id)} is dead"
        for npc in quest.involved_npcs:
            if not facts.is_alive(npc):
                return f"{self.name_of(npc)} is dead"
        for o in quest.objectives:
            if (
                o.objective_type is ObjectiveType.KILL
                and o.target_template
                and facts.kind_available(o.target_template)
            ):
                continue  # matched by kind
            if o.target_entity_id is not None and not facts.is_alive(o.target_entity_id):
                return f"{self.name_of(o.target_entity_id)} is gone"
            if o.target_location is not None and not facts.room_exists(o.target_location):
                return f"{o.target_location} no longer exists"
        return None

    async def sweep(self) -> list[str]:
        """Re-check every open generated quest; returns the ids invalidated."""
        if self.board is None:
            return []
        out: list[str] = []
        for quest_id in self.board.open_generated_quests():
            quest = await self.index.get(quest_id)
            if quest is None:
                continue
            accepted = [h for h in self.board.holders(quest_id) if h.accepted]
            if accepted:
                stuck = [self._stuck(quest, h) for h in accepted]
                why = stuck[0] if all(stuck) else None
            else:
                result = await self.qg.validator.validate(quest, offered=True)
                if not result.valid:
                    log.info("quest %s no longer valid: %s", quest_id, "; ".join(result.errors))
                # The validator's words name objective ids and rules: for the log. A
                # player is told what changed in the world, or only that it did.
                why = None if result.valid else (self.explain(quest) or "")
            if why is not None:
                self.invalidate(quest, "periodic_sweep", f"{quest.title}: {why}." if why else "")
                out.append(quest_id)
            else:
                self.rerate(quest)
        await self.refresh()
        return out

    def _stuck(self, quest: GeneratedQuest, holder: Holder) -> str | None:
        """Why ``holder`` can no longer finish ``quest`` (None: they still can)."""
        facts = self.qg.facts
        if not facts.is_alive(quest.quest_giver_id):
            return f"{self.name_of(quest.quest_giver_id)} is dead"
        for o in quest.objectives:
            if o.optional or o.id in holder.completed:
                continue
            if (
                o.objective_type is ObjectiveType.KILL
                and o.target_template
                and facts.kind_available(o.target_template)
            ):
                continue  # matched by kind
            if o.target_entity_id is not None and not facts.is_alive(o.target_entity_id):
                return f"{self.name_of(o.target_entity_id)} is gone"
            if o.target_location is not None and not facts.room_exists(o.target_location):
                return f"{o.target_location} no longer exists"
        return None

    def rerate(self, quest: GeneratedQuest) -> bool:
        """Re-rate ``quest`` on the items it asks for (see the module's notes); True
        if it became harder."""
        if self.board is None:
            return False
        supplies = self.qg.rerate(quest)
        if not supplies:
            return False
        self.board.rerate(quest)
        for supply in supplies:
            hint = self._supply_hint(supply)
            supply.objective.hints = [hint, *supply.objective.hints[1:]]
            self.board.set_hint(quest.id, supply.objective.id, hint)
        self.index.update(quest)
        self._rerated.inc()
        log.info(
            "generated quest re-rated",
            extra={"quest_id": quest.id, "difficulty": quest.difficulty.value},
        )
        self.engine.events.emit(QuestReratedEvent(quest.id, quest.difficulty))
        return True

    def _supply_hint(self, supply: Supply) -> str:
        facts = self.qg.facts
        item = capitalize(supply.objective.target or "it")
        foe = self.name_of(supply.foe)
        if supply.room is not None:
            return f"{item} lies {located(facts.place(supply.room))}, where {foe} stands guard."
        room = facts.room_of(supply.foe)
        where = f" ({located(facts.place(room))})" if room else ""
        return f"{item} no longer lies about; {foe}{where} has some."


def _referenced(quest: GeneratedQuest) -> list[UUID]:
    out = [quest.quest_giver_id]
    objective: QuestObjective
    for objective in quest.objectives:
        if objective.target_entity_id is not None:
            out.append(objective.target_entity_id)
    return out
