"""QuestManager: quest definitions and the per-character lifecycle state machine.

States (per character, in the ``QuestLog`` component)::

    offer_quest -> AVAILABLE -accept_quest-> IN_PROGRESS -(objectives met)-> COMPLETED
    IN_PROGRESS/COMPLETED -turn_in_quest-> TURNED_IN      (graded, rewards paid once)
    IN_PROGRESS/COMPLETED -abandon_quest-> ABANDONED
    IN_PROGRESS/COMPLETED -fail_quest----> FAILED (reason failed | expired)
    any non-terminal -expire_quest / invalidate_quest-> FAILED (expired | invalidated)

Every transition emits its event and writes a structured log line. A refused
transition raises :class:`QuestError` with a message fit for the player.
See docs/quests.md for the API the generation pipeline uses.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol
from uuid import UUID

from classic_rpg.components import CharacterStats
from classic_rpg.systems.quests.errors import QuestError
from classic_rpg.systems.quests.foes import QuestFoes
from classic_rpg.systems.quests.grading import PYRRHIC_DURATION_FACTOR, required_ratio
from classic_rpg.systems.quests.history import QuestHistory, QuestHistoryEntry
from classic_rpg.systems.quests.matching import display_name
from classic_rpg.systems.quests.models import Quest
from classic_rpg.systems.quests.objectives import ObjectiveTracker
from classic_rpg.systems.quests.questlog import QuestEntry, QuestLog, entry_of, log_of
from classic_rpg.systems.quests.registry import QuestRegistry, resolve_room_ids
from classic_rpg.systems.quests.rewards import TurnInLedger
from classic_rpg.systems.quests.scaling import QuestScaling
from maid_engine.clock import GAME_DAY
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_engine.ports import (
    ClockPort,
    EventsPort,
    RandomPort,
    ServicesPort,
    SessionsPort,
    StorePort,
    WorldLockPort,
    WorldPort,
)
from maid_stdlib.questgen.events import (
    QuestAbandonedEvent,
    QuestAcceptedEvent,
    QuestCompletedEvent,
    QuestExpiredInternalEvent,
    QuestFailedEvent,
    QuestGeneratedEvent,
    QuestOfferedEvent,
)
from maid_stdlib.questgen.vocabulary import (
    FailReason,
    QuestDeliveryMethod,
    QuestOutcome,
    QuestState,
)
from maid_stdlib.text.pronouns import pronouns
from maid_stdlib.world.components import Describable
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize

log = logging.getLogger("maid.rpg.quests")

#: ``validator(quest, character_id) -> reason | None`` (sync or async). A reason
#: means the quest's grounding is stale: accepting it invalidates the quest.
AcceptValidator = Callable[[Quest, UUID], "str | Awaitable[str | None] | None"]
#: ``adjuster(quest, character) -> scaling | None``: what to ask of this character
#: instead of the definition (per-character difficulty). The first one to answer
#: decides; None leaves the quest as defined.
AcceptAdjuster = Callable[[Quest, UUID], "QuestScaling | None"]


#: What ``register_generated_quest`` accepts as metadata for the QuestHistory entry.
_HISTORY_META = frozenset(
    {
        "seed_type",
        "archetype_id",
        "importance",
        "grounding_score",
        "coherence_score",
        "novelty_score",
        "region",
        "chain_depth",
        "chain_parent_id",
    }
)


class QuestManagerHost(
    WorldPort,
    EventsPort,
    ClockPort,
    ServicesPort,
    SessionsPort,
    StorePort,
    RandomPort,
    WorldLockPort,
    Protocol,
):
    """What the quest manager uses: what its objective tracker and turn-in ledger
    use (the world and its services, sessions, events, game time, the seeded random,
    the store and the world lock)."""


class QuestManager:
    #: Game seconds after which an offer the character turned down (or let lapse)
    #: may be made again while the quest is open: people change their minds. Asking
    #: its giver about it brings it back at once (:meth:`reconsider`).
    reoffer_after: float = GAME_DAY

    def __init__(self, engine: QuestManagerHost) -> None:
        self.engine = engine
        self.registry = QuestRegistry()
        self.history = QuestHistory()
        #: Run before every acceptance; the grounding monitor adds its check here.
        self.accept_validators: list[AcceptValidator] = []
        #: Run at every acceptance, after the validators; quest generation's glue
        #: fits generated quests to the accepting character here.
        self.accept_adjusters: list[AcceptAdjuster] = []
        #: Told the quest id when an objective's hint changed (GMCP Char.Quests).
        self.hint_listeners: list[Callable[[str], None]] = []
        # The tracker and the ledger get what they read and a way to report back,
        # not the manager.
        self.objectives = ObjectiveTracker(
            engine, self.registry, on_met=self.mark_objectives_met, on_failed=self._fail
        )
        #: Quests' own foes, spawned for whoever a quest was fitted to.
        self.foes = QuestFoes(engine)
        self.objectives.quarry = self.foes.tag_of
        self.objectives.counted = self.foes.forget
        self.ledger = TurnInLedger(engine, self.registry, self.history, self.objectives)

    @property
    def now(self) -> float:
        return self.engine.clock.game_time

    # -- definitions -------------------------------------------------------------------
    def register_quest(self, quest: Quest) -> None:
        """Register a hand-authored quest (from pack data or code)."""
        self.registry.add(quest)
        if self.history.get(quest.quest_id) is None:
            self.history.record(self._history_entry(quest))

    def register_generated_quest(self, quest: Quest, **meta: Any) -> str:
        """Register a quest built by the generation pipeline; returns its id.

        ``meta`` (optional) fills the QuestHistory entry: seed_type, archetype_id,
        importance, grounding_score, coherence_score, novelty_score, region,
        chain_depth, chain_parent_id. Room ids given as UUIDs become room keys.
        """
        unknown = set(meta) - _HISTORY_META
        if unknown:
            raise TypeError(f"unknown quest metadata: {', '.join(sorted(unknown))}")
        try:
            quest = resolve_room_ids(self.engine.world, quest)
        except LookupError as exc:
            raise QuestError(str(exc)) from exc
        quest = quest.model_copy(update={"source": "generated"})
        self.registry.add(quest, persist=True)
        entry = self._history_entry(quest, **meta)
        self.history.record(entry)
        self.engine.events.emit(
            QuestGeneratedEvent(
                quest.quest_id,
                quest.giver_npc_id,
                entry.seed_type,
                entry.archetype_id,
                entry.importance,
            )
        )
        log.info("quest generated", extra={"quest_id": quest.quest_id})
        return quest.quest_id

    def get_quest(self, quest_id: str) -> Quest | None:
        return self.registry.get(quest_id)

    def quests(self) -> list[Quest]:
        return self.registry.all()

    def is_open(self, quest_id: str) -> bool:
        """Registered and neither expired nor invalidated."""
        return self.registry.get(quest_id) is not None and self.registry.status(quest_id) is None

    def quests_from(self, npc: UUID) -> list[Quest]:
        return self.registry.from_giver(npc)

    def _history_entry(self, quest: Quest, **meta: Any) -> QuestHistoryEntry:
        return QuestHistoryEntry(
            quest_id=quest.quest_id,
            source=quest.source,
            quest_giver_id=quest.giver_npc_id,
            created_at=self.now,
            **meta,
        )

    async def flush(self) -> None:
        """Write queued registry and history documents now (the QuestSystem does it
        in the background each tick; tests and shutdown call this)."""
        if self.engine.has_store:
            documents = self.engine.store.documents
            await self.registry.flush(documents)
            await self.history.flush(documents)

    # -- per-character state -----------------------------------------------------------
    def log_of(self, character: UUID) -> QuestLog:
        """The character's QuestLog, created on first use."""
        return log_of(self.engine.world, character)  # EntityNotFound for a bad id

    def entry(self, character: UUID, quest_id: str) -> QuestEntry | None:
        return entry_of(self.engine.world, character, quest_id)

    def quest_state(self, character: UUID, quest_id: str) -> QuestState | None:
        entry = self.entry(character, quest_id)
        return entry.state if entry is not None else None

    def quests_of(self, character: UUID, *states: QuestState) -> list[tuple[Quest, QuestEntry]]:
        """The character's quests in ``states`` (all states if none are given)."""
        qlog = self.engine.world.try_component(character, QuestLog)
        out = []
        for entry in qlog.quests.values() if qlog is not None else ():
            quest = self.registry.for_entry(entry)
            if quest is not None and (not states or entry.state in states):
                out.append((quest, entry))
        return out

    def count_pending_offers(self, character: UUID) -> int:
        """Offers the character has not accepted yet (the per-player offer cap)."""
        return len(self.quests_of(character, QuestState.AVAILABLE))

    def holders(self, quest_id: str) -> list[tuple[UUID, QuestEntry]]:
        """Characters holding the quest in a non-terminal state."""
        out = []
        for uid, qlog in self.engine.world.each(QuestLog):
            entry = qlog.entry(quest_id)
            if entry is not None and not entry.state.terminal:
                out.append((uid, entry))
        return out

    def quest_for(self, entry: QuestEntry) -> Quest | None:
        """The quest as fitted to the character holding ``entry`` at acceptance
        (per-character difficulty; see ``accept_adjusters``)."""
        return self.registry.for_entry(entry)

    def title(self, quest_id: str) -> str:
        quest = self.registry.get(quest_id)
        return quest.title if quest is not None else quest_id

    def name_of(self, entity: UUID | None) -> str:
        return display_name(self.engine.world, entity)

    def set_objective_hint(self, quest_id: str, objective_id: str, hint: str) -> bool:
        """Replace the hint players see for one objective (e.g. the NPC moved)."""
        quest = self.registry.get(quest_id)
        if quest is None or quest.objective(objective_id) is None:
            return False
        objectives = [
            o.model_copy(update={"hint": hint}) if o.objective_id == objective_id else o
            for o in quest.objectives
        ]
        self.registry.replace(quest.model_copy(update={"objectives": objectives}))
        for listener in list(self.hint_listeners):
            listener(quest_id)
        return True

    def set_terms(self, quest_id: str, level_requirement: int, experience: int) -> bool:
        """Change the level a registered quest asks for and the experience it pays
        (a generated quest the world made harder); False if it is unknown. Offers
        and quests already taken keep going; acceptance checks the new level."""
        quest = self.registry.get(quest_id)
        if quest is None:
            return False
        rewards = quest.rewards.model_copy(update={"experience": experience})
        self.registry.replace(
            quest.model_copy(update={"level_requirement": level_requirement, "rewards": rewards})
        )
        return True

    def notify(self, character: UUID, text: str) -> None:
        self.engine.sessions.send_to(character, text)

    def warn_slow(self, warned: set[tuple[UUID, str, int]]) -> None:
        """Tell each character online, once per run (``warned`` keeps who was told),
        that a quest of theirs has gone past twice its estimate: finishing it is now
        a pyrrhic victory, which must not come as a surprise at the turn-in."""
        world, now = self.engine.world, self.now
        for uid in self.engine.sessions.characters_online():
            qlog = world.try_component(uid, QuestLog)
            if qlog is None:
                continue
            for entry in qlog.quests.values():
                if entry.state is not QuestState.IN_PROGRESS or entry.accepted_at is None:
                    continue
                quest = self.quest_for(entry)
                estimate = quest.estimated_duration_seconds if quest is not None else None
                if quest is None or not estimate:
                    continue
                key = (uid, entry.quest_id, entry.run)
                if now - entry.accepted_at <= PYRRHIC_DURATION_FACTOR * estimate or key in warned:
                    continue
                warned.add(key)
                self.notify(
                    uid,
                    f"|y'{quest.title}' has taken too long for a clean win: finishing it "
                    "now is a pyrrhic victory.|n",
                )

    def _require(self, quest_id: str) -> Quest:
        quest = self.registry.get(quest_id)
        if quest is None:
            raise QuestError(f"There is no quest '{quest_id}'.")
        return quest

    def _log(self, what: str, quest_id: str, character: UUID | None, **extra: Any) -> None:
        fields = {"quest_id": quest_id, "character_id": str(character) if character else None}
        log.info(what, extra={**fields, **extra})

    def _write_run(self, character: UUID, entry: QuestEntry) -> str:
        return self.history.write_run(self.registry.get(entry.quest_id), character, entry, self.now)

    # -- transitions ---------------------------------------------------------------------
    def offer_quest(
        self,
        character: UUID,
        quest_id: str,
        method: QuestDeliveryMethod | str = QuestDeliveryMethod.DIRECT_OFFER,
        match_score: float = 1.0,
    ) -> QuestEntry:
        """Offer the quest (state AVAILABLE). Re-offering a pending offer is a no-op."""
        quest = self._require(quest_id)
        if not self.is_open(quest_id):
            raise QuestError(f"'{quest.title}' is no longer available.")
        qlog = self.log_of(character)
        old = qlog.entry(quest_id)
        if old is not None and old.state is QuestState.AVAILABLE:
            return old
        if old is not None and old.state.active:
            raise QuestError(f"You are already on '{quest.title}'.")
        if qlog.turn_ins.get(quest_id) and not quest.repeatable:
            raise QuestError(f"You have already completed '{quest.title}'.")
        method_value = method.value if isinstance(method, QuestDeliveryMethod) else str(method)
        entry = QuestEntry(
            quest_id,
            QuestState.AVAILABLE,
            run=old.run if old is not None else 0,
            number=qlog.free_number(),
            offered_at=self.now,
            offer_method=method_value,
            match_score=match_score,
        )
        qlog.quests[quest_id] = entry
        self.engine.world.modified(character, qlog)
        self.engine.events.emit(QuestOfferedEvent(quest_id, character, method_value, match_score))
        self._log("quest offered", quest_id, character, delivery_method=method_value)
        return entry

    async def accept_quest(self, character: UUID, quest_id: str, told: str = "") -> QuestEntry:
        """Accept an offered quest; re-validates it first (see ``accept_validators``).
        ``told`` is said to the character once it is accepted, before what the
        acceptance brings (the quarry spawned for them)."""
        quest = self._require(quest_id)
        entry = self.entry(character, quest_id)
        if entry is not None and entry.state.active:
            raise QuestError(f"You are already on '{quest.title}'.")
        if entry is None or entry.state is not QuestState.AVAILABLE:
            raise QuestError(f"'{quest.title}' has not been offered to you.")
        if not self.is_open(quest_id):
            raise QuestError(f"'{quest.title}' is no longer available.")
        stats = self.engine.world.try_component(character, CharacterStats)
        level = stats.level if stats is not None else 1
        if level < quest.level_requirement:
            raise QuestError(
                f"You must be level {quest.level_requirement} to accept '{quest.title}'."
            )
        for validator in list(self.accept_validators):
            result = validator(quest, character)
            reason = await result if inspect.isawaitable(result) else result
            if reason:
                self.invalidate_quest(quest_id, reason, told=character)
                raise QuestError(
                    f"The situation has changed: '{quest.title}' is no longer available ({reason})."
                )
        entry.state = QuestState.IN_PROGRESS
        entry.run += 1
        entry.accepted_at = self.now
        entry.completed_at = entry.finished_at = None
        entry.fail_reason, entry.fail_detail, entry.outcome = None, "", None
        entry.lowest_health_pct = 1.0
        entry.clear_scaling()
        if told:
            self.notify(character, told)
        for adjuster in list(self.accept_adjusters):
            scaling = adjuster(quest, character)
            if scaling is not None:
                scaling.apply_to(entry)
                break
        self.engine.world.modified(character, self.log_of(character))
        self.engine.events.emit(QuestAcceptedEvent(quest_id, character))
        self._log("quest accepted", quest_id, character)
        self._write_run(character, entry)
        fitted = self.quest_for(entry) or quest
        self.objectives.start(character, fitted, entry)
        made = self.foes.spawn(character, fitted, entry)
        if made:
            self.notify(character, self.foes.summary(made))
        return entry

    def foes_back(self, event: CharacterConnectedEvent) -> None:
        """A character logs in: the foes still owed on their fitted quests return
        (runtime entities: a restart or their logout removed them)."""
        for quest, entry in self.quests_of(
            event.character_id, QuestState.IN_PROGRESS, QuestState.COMPLETED
        ):
            fitted = self.quest_for(entry) or quest
            made = self.foes.spawn(event.character_id, fitted, entry)
            if made:
                self.notify(event.character_id, self.foes.summary(made))

    def foes_away(self, event: CharacterDisconnectedEvent) -> None:
        """A character leaves the game: their quarry leaves with them."""
        self.foes.despawn(event.character_id)

    def mark_objectives_met(self, character: UUID, quest: Quest, entry: QuestEntry) -> None:
        """IN_PROGRESS -> COMPLETED (called by the objective tracker)."""
        if entry.state is not QuestState.IN_PROGRESS:
            return
        entry.state = QuestState.COMPLETED
        entry.completed_at = self.now
        self.engine.world.modified(character, self.log_of(character))
        self.engine.events.emit(QuestCompletedEvent(quest.quest_id, character))
        self._log("quest objectives met", quest.quest_id, character)
        self._write_run(character, entry)
        turn_in = quest.turn_in_npc
        where = ""
        if turn_in is not None:
            ws = self.engine.services.get(WorldService)
            giver = self.name_of(turn_in)
            here = ws.room_key_of(character)
            if self.objectives.talking == (character, turn_in):
                pass  # finished by talking to them: the same talk turns it in
            # Nobody "returns" to the person they are standing next to.
            elif here is not None and ws.room_key_of(turn_in) == here:
                desc = self.engine.world.try_component(turn_in, Describable)
                them = pronouns(desc.pronouns if desc is not None else None).object
                where = f" {capitalize(giver)} is right here: talk to {them} to turn it in."
            else:
                where = f" Return to {giver}."
        self.notify(character, f"|gYou have completed the objectives of '{quest.title}'.|n{where}")

    def decline_quest(self, character: UUID, quest_id: str, *, lapsed: bool = False) -> None:
        """Turn down an offer (AVAILABLE): the entry is removed, which frees the offer
        cap, and the quest is remembered as declined so delivery does not offer it
        again. ``lapsed``: nobody answered the offer in time (``lapse_offers``)."""
        quest = self._require(quest_id)
        qlog = self.log_of(character)
        entry = qlog.entry(quest_id)
        if entry is None or entry.state is not QuestState.AVAILABLE:
            raise QuestError(f"'{quest.title}' has not been offered to you.")
        del qlog.quests[quest_id]
        qlog.declined[quest_id] = self.now
        self.engine.world.modified(character, qlog)
        self._log("quest offer lapsed" if lapsed else "quest declined", quest_id, character)

    def turned_down(self, character: UUID, quest_id: str) -> bool:
        """Did the character turn the quest down (or let the offer lapse) less than
        ``reoffer_after`` ago? Then it is not offered again on its own."""
        qlog = self.engine.world.try_component(character, QuestLog)
        when = qlog.declined.get(quest_id) if qlog is not None else None
        return when is not None and self.now - when < self.reoffer_after

    def reconsider(self, character: UUID, quest_id: str) -> QuestEntry:
        """The character changed their mind about an offer they turned down: offered
        again, in person, while the quest is still open (a quest the world moved past
        is closed, so what comes back is still grounded)."""
        quest = self._require(quest_id)
        qlog = self.log_of(character)
        if quest_id not in qlog.declined or qlog.entry(quest_id) is not None:
            raise QuestError(f"You did not turn down '{quest.title}'.")
        if not self.is_open(quest_id):
            raise QuestError(f"'{quest.title}' is no longer available.")
        del qlog.declined[quest_id]
        self._log("quest reconsidered", quest_id, character)
        return self.offer_quest(character, quest_id, QuestDeliveryMethod.CONVERSATION)

    def lapse_offers(self, max_age: float) -> list[tuple[UUID, str]]:
        """Decline, for them, every offer older than ``max_age`` game seconds that
        the character never answered. Returns the (character, quest id) lapsed."""
        now = self.now
        out: list[tuple[UUID, str]] = []
        for uid, qlog in list(self.engine.world.each(QuestLog)):
            for entry in list(qlog.quests.values()):
                if (
                    entry.state is QuestState.AVAILABLE
                    and entry.offered_at is not None
                    and now - entry.offered_at >= max_age
                ):
                    self.decline_quest(uid, entry.quest_id, lapsed=True)
                    out.append((uid, entry.quest_id))
        return out

    def abandon_quest(self, character: UUID, quest_id: str) -> None:
        quest = self._require(quest_id)
        entry = self.entry(character, quest_id)
        if entry is None or not entry.state.active:
            raise QuestError(f"You are not on '{quest.title}'.")
        self._finish(character, entry, QuestState.ABANDONED, QuestOutcome.ABANDONED)
        self.engine.events.emit(QuestAbandonedEvent(quest_id, character))
        self._log("quest abandoned", quest_id, character)

    def fail_quest(
        self,
        character: UUID,
        quest_id: str,
        reason: FailReason | str = FailReason.FAILED,
        detail: str = "",
    ) -> QuestOutcome:
        """Fail an accepted quest; returns the graded outcome carried by the event."""
        quest = self._require(quest_id)
        reason = FailReason(reason)
        entry = self.entry(character, quest_id)
        if entry is None or not entry.state.active:
            raise QuestError(f"You are not on '{quest.title}'.")
        return self._fail(character, self.quest_for(entry) or quest, entry, reason, detail)

    def report_failure(self, character: UUID, quest_id: str) -> QuestOutcome:
        """The character tells the quest's turn-in NPC that they could not do it: an
        explicit failure, graded as one (less than half done: FAILED). Unlike
        ``abandon`` (walking away) the giver hears it from them. Only quests that may
        be turned in early (``partial_turn_in``) allow it, and only below half done:
        from half on, turning in early is a partial success."""
        quest = self._require(quest_id)
        entry = self.entry(character, quest_id)
        if entry is None or entry.state is not QuestState.IN_PROGRESS:
            raise QuestError(f"You are not working on '{quest.title}'.")
        quest = self.quest_for(entry) or quest
        if not quest.partial_turn_in:
            raise QuestError(f"You have not finished '{quest.title}' yet.")
        if required_ratio(quest, entry) >= 0.5:
            raise QuestError(f"You have done enough of '{quest.title}' to turn it in.")
        npc = quest.turn_in_npc
        name = self.name_of(npc) if npc is not None else "them"
        if npc is not None:
            ws = self.engine.services.get(WorldService)
            here = ws.room_key_of(character)
            if not self.engine.world.entity_exists(npc) or ws.room_key_of(npc) != here:
                raise QuestError(f"You need to be with {name} to tell them.")
        return self._fail(
            character, quest, entry, FailReason.FAILED, f"you told {name} you could not do it"
        )

    def _fail(
        self,
        character: UUID,
        quest: Quest,
        entry: QuestEntry,
        reason: FailReason,
        detail: str,
        *,
        emit: bool = True,
    ) -> QuestOutcome:
        previous = entry.state
        if reason is FailReason.EXPIRED:
            outcome = QuestOutcome.EXPIRED
        elif reason is FailReason.FAILED and previous.active:
            # >= 50% of the required objectives done at failure is a partial success.
            ratio = required_ratio(quest, entry)
            outcome = QuestOutcome.PARTIAL_SUCCESS if ratio >= 0.5 else QuestOutcome.FAILED
        else:
            outcome = QuestOutcome.FAILED
        entry.fail_reason, entry.fail_detail = reason, detail
        self._finish(character, entry, QuestState.FAILED, outcome)
        if emit:
            self.engine.events.emit(
                QuestFailedEvent(quest.quest_id, character, reason, outcome, detail, previous)
            )
        self._log("quest failed", quest.quest_id, character, reason=reason.value, detail=detail)
        if previous.active:
            why = f" ({detail})" if detail else ""
            self.notify(character, f"|rQuest failed: '{quest.title}'{why}.|n")
        return outcome

    def _finish(
        self, character: UUID, entry: QuestEntry, state: QuestState, outcome: QuestOutcome
    ) -> None:
        was_active = entry.state.active
        entry.state, entry.outcome, entry.finished_at = state, outcome, self.now
        self.engine.world.modified(character, self.log_of(character))
        if was_active:
            self._write_run(character, entry)
        self.objectives.stopped(character, entry.quest_id)
        self.foes.despawn(character, entry.quest_id)

    def expire_quest(self, quest_id: str) -> list[UUID]:
        """The quest opportunity is gone: every holder's copy fails with reason expired.

        Emits one QuestExpiredInternalEvent (listing the characters who had accepted
        it); returns those characters. Expiring a closed quest does nothing.
        """
        quest = self._require(quest_id)
        if not self.is_open(quest_id):
            return []
        self.registry.close(quest_id, "expired", "", self.now)
        accepted: list[UUID] = []
        for character, entry in self.holders(quest_id):
            if entry.state.active:
                accepted.append(character)
            self._fail(character, quest, entry, FailReason.EXPIRED, "time ran out", emit=False)
        self.history.close(quest_id, QuestOutcome.EXPIRED, self.now, "expired")
        self.engine.events.emit(QuestExpiredInternalEvent(quest_id, accepted))
        self._log("quest expired", quest_id, None, characters=len(accepted))
        return accepted

    def invalidate_quest(
        self, quest_id: str, reason: str, explanation: str = "", told: UUID | None = None
    ) -> list[UUID]:
        """The world changed underneath the quest: it fails for every holder.

        Emits QuestFailedEvent(reason=invalidated, detail=reason) per holder (offered
        or accepted) and tells them in game, with ``explanation`` (what happened,
        in words for players) when given; ``told`` is a holder who hears of it
        otherwise (the one whose acceptance was refused). Returns the characters
        affected.
        """
        quest = self._require(quest_id)
        if not self.is_open(quest_id):
            return []
        self.registry.close(quest_id, "invalidated", reason, self.now)
        affected = []
        for character, entry in self.holders(quest_id):
            affected.append(character)
            self._fail(character, quest, entry, FailReason.INVALIDATED, reason)
            if character == told:
                continue
            self.notify(
                character,
                f"The situation has changed: '{quest.title}' is no longer available."
                + (f" {explanation}" if explanation else ""),
            )
        self.history.close(quest_id, QuestOutcome.FAILED, self.now, f"invalidated: {reason}")
        self._log("quest invalidated", quest_id, None, reason=reason, characters=len(affected))
        return affected

    def complete_custom(self, character: UUID, quest_id: str, objective_id: str) -> None:
        """Complete a CUSTOM objective from code (branch choices, scripted events)."""
        quest = self._require(quest_id)
        entry = self.entry(character, quest_id)
        if entry is None or not entry.state.active:
            raise QuestError(f"You are not on '{quest.title}'.")
        quest = self.quest_for(entry) or quest
        self.objectives.complete_custom(character, quest, entry, objective_id)

    async def turn_in_quest(self, character: UUID, quest_id: str) -> QuestOutcome:
        """Turn the quest in to its NPC: grade, pay the rewards once, persist, emit.

        Needs the character in the turn-in NPC's room. Awaits the store (one
        transaction for rewards + record), so call it from a command or handler.
        """
        quest = self._require(quest_id)
        entry = self.entry(character, quest_id)
        if entry is None:
            raise QuestError(f"You are not on '{quest.title}'.")
        if entry.state is QuestState.TURNED_IN:
            raise QuestError(f"You have already turned in '{quest.title}'.")
        if entry.state.terminal or entry.state is QuestState.AVAILABLE:
            raise QuestError(f"You are not on '{quest.title}'.")
        # What was asked of (and is paid to) this character: the quest as fitted to them.
        quest = self.quest_for(entry) or quest
        if entry.state is QuestState.IN_PROGRESS and not (
            quest.partial_turn_in and required_ratio(quest, entry) >= 0.5
        ):
            raise QuestError(f"You have not finished '{quest.title}' yet.")
        npc = quest.turn_in_npc
        if npc is not None:
            ws = self.engine.services.get(WorldService)
            here = ws.room_key_of(character)
            if not self.engine.world.entity_exists(npc) or ws.room_key_of(npc) != here:
                raise QuestError(
                    f"You need to be with {self.name_of(npc)} to turn in '{quest.title}'."
                )
        outcome = await self.ledger.turn_in(character, quest, entry)
        self.foes.despawn(character, quest_id)
        if quest.source == "generated" and not quest.repeatable:
            self.resolve_quest(quest_id, f"turned in by {self.name_of(character)}")
        return outcome

    def resolve_quest(self, quest_id: str, reason: str) -> None:
        """A generated quest's situation was resolved by a turn-in: close it to new
        offers and withdraw unanswered ones. Characters already on it may finish.

        Without this a resolved quest stays open: it is offered again and the
        grounding sweep later "invalidates" it (its targets are gone by then).
        """
        if not self.is_open(quest_id):
            return
        self.registry.close(quest_id, "resolved", reason, self.now)
        for character, entry in self.holders(quest_id):
            if entry.state is QuestState.AVAILABLE:
                qlog = self.log_of(character)
                qlog.quests.pop(quest_id, None)
                self.engine.world.modified(character, qlog)
        self._log("quest resolved", quest_id, None, reason=reason)
