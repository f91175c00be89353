"""ConsequenceSystem (phase consequences): quest outcomes change the living world.

The rules layer calls the ``on_*`` methods from its quest events (classic_rpg:
``classic_rpg.consequences_glue``), passing the outcome graded by its quest
manager; nothing here grades (one grade, many readers). For a generated quest (one with a
``generated_quests`` document; authored quests are skipped):

1. consequences: the quest's own on success (scaled by OUTCOME_SCALE and by the
   work factor the quest was fitted to its doers with, QuestHistory.work_factor), plus those
   of the options the character chose at branch points; its failure consequences
   otherwise; an abandonment adds -0.15 trust from the giver and gossip. An
   invalidated quest (the world changed, nobody failed) has none.
2. each consequence -> ``ConsequencePropagator.plan_mutation`` -> one
   WorldMutationBatch, validated (merging same-target changes) and applied
   atomically. A version conflict re-plans from the current world and retries
   once; a second conflict is rolled back, logged and counted.
   Every NPC the quest involved besides its giver gets a witness memory.
3. the applied batch and the entities it changed are written in one store
   transaction (audit collection ``quest_consequences``); memories are flushed.
4. new story signals (chains, retaliation) are emitted, at most
   CONSEQUENCE_SIGNAL_BUDGET; one that must wait for the world (the beaten
   bandits back on the road) waits in :class:`PendingChains`.

Every outcome is handled once per audit key (quest, character, run, outcome).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar
from uuid import UUID

from maid_engine.ecs import System
from maid_engine.logs import ThrottledLog
from maid_stdlib.consequences.audit import (
    AUDIT_COLLECTION,
    ConsequenceAudit,
    ConsequencesAppliedEvent,
    Propagation,
    audit_document,
)
from maid_stdlib.consequences.batch import BatchResult, EntityVersions, WorldMutationBatch
from maid_stdlib.consequences.chains import (
    CONSEQUENCE_SIGNAL_BUDGET,
    ChainRules,
    PendingChains,
    QuestChainEvent,
    detect_consequence_signals,
    is_ready,
)
from maid_stdlib.consequences.kinds import MutationKinds
from maid_stdlib.consequences.mutations import MutationEnv, WorldMutation
from maid_stdlib.consequences.outcome import OUTCOME_SCALE
from maid_stdlib.consequences.propagator import (
    ConsequencePropagator,
    PlanContext,
    witness_memory,
)
from maid_stdlib.consequences.sidetable import (
    BranchChoices,
    GeneratedQuestIndex,
    connect_generation,
)
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.questgen.quest import ConsequenceType, GeneratedQuest, QuestConsequence
from maid_stdlib.questgen.register import QuestGen
from maid_stdlib.questgen.text import join_names
from maid_stdlib.questgen.vocabulary import FailReason, QuestOutcome
from maid_stdlib.story.signals import StorySignal, StorySignalEvent
from maid_stdlib.world.text import capitalize

if TYPE_CHECKING:
    from maid_engine.ports import Host

__all__ = ["AUDIT_COLLECTION", "ConsequenceSystem", "ConsequencesAppliedEvent", "Propagation"]

log = logging.getLogger("maid.consequences")

#: Consequences that are about the character who did the quest (once per character).
_PER_CHARACTER = frozenset({ConsequenceType.RELATIONSHIP_CHANGE, ConsequenceType.FACTION_STANDING})

#: How a failed attempt ended, in the giver's words ("X took on ... and <how>").
_FAILED_HOW: dict[QuestOutcome, str] = {
    QuestOutcome.FAILED: "failed",
    QuestOutcome.EXPIRED: "did not finish in time",
    QuestOutcome.ABANDONED: "gave up on it",
}

#: ``hook(batch, attempt)``: runs after validation, before application.
PreApplyHook = Callable[[WorldMutationBatch, int], None]


class ConsequenceSystem(System):
    phase = "consequences"
    #: Trust a giver loses when the character walks away from the quest.
    ABANDON_TRUST: ClassVar[float] = -0.15
    MAX_ATTEMPTS: ClassVar[int] = 2

    def __init__(
        self,
        qg: QuestGen,
        living: LivingWorld,
        index: GeneratedQuestIndex,
        choices: BranchChoices,
    ) -> None:
        self.qg = qg
        self.living = living
        self.index = index
        self.choices = choices
        self.propagator = ConsequencePropagator()
        self.versions = EntityVersions()
        self.kinds = MutationKinds.builtin()
        self.chain_rules = ChainRules.builtin()
        self.signal_budget = CONSEQUENCE_SIGNAL_BUDGET
        self.pending = PendingChains()
        #: Test and extension seam: called between validation and application.
        self.before_apply: list[PreApplyHook] = []
        #: The latest propagations, newest last (admin views and tests).
        self.recent: deque[Propagation] = deque(maxlen=100)
        self._done: set[str] = set()
        #: Quests someone took on and failed (in memory: after a restart a quest that
        #: then lapses is told as "nobody came" again).
        self._tried: set[str] = set()
        self.audit = ConsequenceAudit(qg.engine)
        self._flush_task: asyncio.Task[None] | None = None
        # Retried every tick while the store is away: one line a minute.
        self._pending_failures = ThrottledLog(log, clock=lambda: self.engine.clock.monotonic())

    def bind(self, engine: Host) -> None:
        super().bind(engine)
        metrics = engine.metrics
        self._batches = metrics.counter(
            "maid_consequence_batches",
            "Consequence batches by result",
            ["status"],
            known=("applied", "conflict", "failed"),
        )
        self._signals = metrics.counter(
            "maid_consequence_signals",
            "Story signals raised by consequences",
            ["chain_type"],
            known=("retaliation", "follow_up"),
        )
        self._duration = metrics.histogram(
            "maid_consequence_seconds",
            "Wall time of one consequence propagation",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25),
        )

    async def startup(self) -> None:
        await self.living.startup()
        await self.qg.startup()
        connect_generation(self.engine, self.index)
        if self.engine.has_store:
            await self.pending.load(self.engine.store.documents)

    async def update(self, delta: float) -> None:
        for signal in self.pending.due(self.qg.facts):
            self._emit_signal(str(signal.context.get("previous_quest_id", "")), signal)
        if (self.audit.pending or self.pending.pending_writes) and (
            self._flush_task is None or self._flush_task.done()
        ):
            self._flush_task = asyncio.create_task(self._write_pending())

    async def shutdown(self) -> None:
        if self._flush_task is not None and not self._flush_task.done():
            await asyncio.gather(self._flush_task, return_exceptions=True)
        await self._write_pending()

    # -- entry points (the rules layer's quest events) -------------------------------
    async def on_turned_in(
        self, quest_id: str, character_id: UUID, outcome: QuestOutcome, *, run: int = 0
    ) -> Propagation | None:
        """Read the grade from the event (``outcome``); never re-grade."""
        return await self._propagate(quest_id, outcome, [character_id], run=run)

    async def on_failed(
        self,
        quest_id: str,
        character_id: UUID,
        outcome: QuestOutcome = QuestOutcome.FAILED,
        reason: FailReason = FailReason.FAILED,
        *,
        run: int = 0,
    ) -> Propagation | None:
        """Failure consequences. ``reason`` "invalidated" means the world, not the
        character, ended the quest: nothing happens."""
        if reason is FailReason.INVALIDATED:
            return None
        graded = outcome
        # A failure graded PARTIAL_SUCCESS is still a failure (with partial credit
        # recorded); EXPIRED stays EXPIRED.
        if graded.success:
            graded = QuestOutcome.FAILED
        return await self._propagate(quest_id, graded, [character_id], run=run)

    async def on_abandoned(
        self, quest_id: str, character_id: UUID, *, run: int = 0
    ) -> Propagation | None:
        return await self._propagate(quest_id, QuestOutcome.ABANDONED, [character_id], run=run)

    async def on_expired(self, quest_id: str, character_ids: Sequence[UUID]) -> Propagation | None:
        """The opportunity expired: failure consequences once, character-specific
        ones for each character who had accepted it (expiry is an outcome too)."""
        return await self._propagate(quest_id, QuestOutcome.EXPIRED, list(character_ids))

    # -- propagation ------------------------------------------------------------------
    @staticmethod
    def audit_key(
        quest_id: str, characters: Sequence[UUID], run: int, outcome: QuestOutcome
    ) -> str:
        who = ",".join(sorted(str(c) for c in characters)) or "world"
        return f"{quest_id}:{who}:{run}:{outcome.value}"

    async def _propagate(
        self, quest_id: str, outcome: QuestOutcome, characters: list[UUID], *, run: int = 0
    ) -> Propagation | None:
        quest = await self.index.get(quest_id)
        if quest is None:
            return None
        key = self.audit_key(quest_id, characters, run, outcome)
        if key in self._done or await self.audit.already_applied(key):
            log.info("consequences of %s already applied", key)
            return None
        started = time.perf_counter()
        result = Propagation(quest_id, outcome, "invalid", key)
        consequences = await self._consequences(quest, outcome, characters)
        batch_result: BatchResult | None = None
        for attempt in range(1, self.MAX_ATTEMPTS + 1):
            result.attempts = attempt
            batch = self._plan(quest, outcome, characters, consequences)
            validation = batch.validate()
            if not validation:
                result.errors = list(validation.errors)
                break
            for hook in list(self.before_apply):
                hook(batch, attempt)
            batch_result = batch.apply()
            result.status = batch_result.status
            if batch_result.ok:
                result.applied = batch_result.applied
                break
            result.errors.append(batch_result.error or batch_result.status)
            if batch_result.status != "conflict":
                break
            log.info(
                "consequence batch %s conflicted (attempt %d): %s", key, attempt, batch_result.error
            )
        self._batches.labels(result.status).inc()
        self.recent.append(result)
        if result.status != "applied":
            log.warning(
                "consequence batch failed: %s",
                key,
                extra={
                    "quest_id": quest_id,
                    "outcome": outcome.value,
                    "status": result.status,
                    "attempts": result.attempts,
                    "errors": result.errors,
                    "character_ids": ",".join(str(c) for c in characters),
                },
            )
            await self.audit.write(key, self._audit_doc(quest, result, characters), [])
            self._duration.observe(time.perf_counter() - started)
            return result
        self._done.add(key)
        assert batch_result is not None
        result.signals = self._signals_for(quest, outcome, characters, result.applied)
        await self.audit.write(
            key, self._audit_doc(quest, result, characters), batch_result.touched
        )
        await self._flush_memories()
        self._emit(quest, result, characters)
        self._duration.observe(time.perf_counter() - started)
        log.info(
            "consequences applied",
            extra={
                "quest_id": quest_id,
                "outcome": outcome.value,
                "mutations": len(result.applied),
                "character_ids": ",".join(map(str, characters)),
            },
        )
        return result

    async def _consequences(
        self, quest: GeneratedQuest, outcome: QuestOutcome, characters: list[UUID]
    ) -> list[QuestConsequence]:
        if outcome.success:
            out = list(quest.consequences)
            for character in characters:
                out.extend(await self._branch_consequences(quest, character))
            return out
        tried = bool(characters) or quest.id in self._tried
        # "Nobody came" is not what happened once someone took the quest on.
        out = [c for c in quest.failure_consequences if not (tried and c.unattended_only)]
        if characters:
            self._tried.add(quest.id)
            out.extend(self._failed_attempt(quest, outcome, characters))
        if outcome is QuestOutcome.ABANDONED:
            facts = self.qg.facts
            giver = quest.quest_giver_id
            for character in characters:
                name = facts.name(character) or "An adventurer"
                out.append(
                    QuestConsequence(
                        consequence_type=ConsequenceType.RELATIONSHIP_CHANGE,
                        target_npc=giver,
                        relationship_delta=self.ABANDON_TRUST,
                        description="Abandoned quest: the quest giver is disappointed",
                    )
                )
                out.append(
                    QuestConsequence(
                        consequence_type=ConsequenceType.GOSSIP_INJECTION,
                        target_npc=giver,
                        gossip_content=f"{name} gave up on helping {facts.name(giver)}: "
                        f"{quest.title}",
                        description="Word spreads that the task was left unfinished",
                    )
                )
        return out

    def _failed_attempt(
        self, quest: GeneratedQuest, outcome: QuestOutcome, characters: list[UUID]
    ) -> list[QuestConsequence]:
        """What a failure by someone who took the quest on adds to its planned
        failure consequences: the giver remembers who failed them (the memory is
        about the first of them), and, unless they walked away (an abandonment has
        its own gossip), word spreads of who tried and how it ended."""
        facts = self.qg.facts
        giver = quest.quest_giver_id
        doers = join_names([facts.name(c) or "an adventurer" for c in characters])
        ended = _FAILED_HOW.get(outcome, "failed")
        out = [
            QuestConsequence(
                consequence_type=ConsequenceType.MEMORY_CREATION,
                target_npc=giver,
                memory_content=f'{capitalize(doers)} took on "{quest.title}" for me, and {ended}.',
                description=f"{facts.name(giver)} remembers who failed them",
            )
        ]
        if outcome is not QuestOutcome.ABANDONED:
            out.append(
                QuestConsequence(
                    consequence_type=ConsequenceType.GOSSIP_INJECTION,
                    target_npc=giver,
                    gossip_content=f"{capitalize(doers)} tried to help {facts.name(giver)} "
                    f'("{quest.title}"), and {ended}',
                    description="Word spreads of who tried and failed",
                )
            )
        return out

    async def _branch_consequences(
        self, quest: GeneratedQuest, character: UUID
    ) -> list[QuestConsequence]:
        if not quest.branches:
            return []
        chosen = await self.choices.get(quest.id, character)
        out: list[QuestConsequence] = []
        for branch in quest.branches:
            option_id = chosen.get(str(branch.id))
            for option in branch.options:
                if str(option.id) == option_id:
                    out.extend(option.consequences)
        return out

    def _plan(
        self,
        quest: GeneratedQuest,
        outcome: QuestOutcome,
        characters: list[UUID],
        consequences: list[QuestConsequence],
    ) -> WorldMutationBatch:
        """A fresh batch planned from the world as it is now (re-run on a retry)."""
        engine = self.engine
        env = MutationEnv(engine.world, engine.clock.game_time, self.living)
        batch = WorldMutationBatch(env, self.versions, self.kinds, emit=engine.events.emit)
        scale = OUTCOME_SCALE.get(outcome, 1.0)
        if outcome.success:
            # Per-character difficulty: a quest fitted to ask less (or more) of the
            # characters who did it moves the world as much less (or more).
            scale *= self.qg.history.work_factor(quest.id, characters)
        context = PlanContext(
            quest.id, outcome, quest.quest_giver_id, quest.importance, quest.location
        )
        first = characters[0] if characters else None
        for c in consequences:
            who: list[UUID | None] = (
                list(characters) if c.consequence_type in _PER_CHARACTER else [first]
            )
            for character in who:
                mutation = self.propagator.plan_mutation(
                    c, character, scale, engine.world, context=context
                )
                if mutation is not None:
                    batch.add(mutation)
        if characters:
            # Not only the giver remembers: everyone the quest involved saw who came.
            doer = self.qg.facts.name(first) or "An adventurer"
            if len(characters) > 1:
                doer = f"{doer} and {len(characters) - 1} other(s)"
            for npc, role in quest.involved_npcs.items():
                if npc != quest.quest_giver_id and engine.world.entity_exists(npc):
                    batch.add(witness_memory(npc, role, quest.title, first, doer, context))
        return batch

    def _signals_for(
        self,
        quest: GeneratedQuest,
        outcome: QuestOutcome,
        characters: list[UUID],
        applied: list[WorldMutation],
    ) -> list[StorySignal]:
        archetype = self.qg.archetypes.get(quest.archetype_id)
        chain = self.qg.history.chain_of(quest.id)
        root = chain[0].importance if chain and chain[0].quest_id != quest.id else None
        return detect_consequence_signals(
            quest,
            outcome,
            characters,
            applied,
            self.qg.facts,
            rules=self.chain_rules,
            pattern=archetype.objective_pattern if archetype is not None else "",
            budget=self.signal_budget,
            root_importance=root,
        )

    def _emit(self, quest: GeneratedQuest, result: Propagation, characters: list[UUID]) -> None:
        events = self.engine.events
        events.emit(
            ConsequencesAppliedEvent(
                quest.id,
                list(characters),
                result.outcome.value,
                result.audit_key,
                len(result.applied),
            )
        )
        for signal in result.signals:
            if is_ready(signal, self.qg.facts):
                self._emit_signal(quest.id, signal)
            else:
                self.pending.park(signal, self.engine.clock.game_time)

    def _emit_signal(self, quest_id: str, signal: StorySignal) -> None:
        chain_type = str(signal.context.get("chain_type", "follow_up"))
        self._signals.labels(chain_type).inc()
        events = self.engine.events
        events.emit(QuestChainEvent(quest_id, signal, chain_type, signal.chain_depth))
        events.emit(StorySignalEvent(signal=signal))

    async def _write_pending(self) -> None:
        """Audits that could not be written, and waiting follow-ups (off the tick)."""
        if not self.engine.has_store:
            return
        documents = self.engine.store.documents
        try:
            await self.pending.flush(documents)
        except Exception as exc:
            self._pending_failures.warning(
                type(exc).__name__, "waiting follow-ups could not be written: %s", exc
            )
        else:
            self._pending_failures.clear()
        await self.audit.retry()

    def _audit_doc(
        self, quest: GeneratedQuest, result: Propagation, characters: list[UUID]
    ) -> dict[str, Any]:
        clock = self.engine.clock
        return audit_document(quest, result, characters, clock.game_time, clock.wall())

    async def _flush_memories(self) -> None:
        try:
            await self.living.memory.flush()
        except Exception as exc:
            log.warning("quest memories will be written with the next flush: %s", exc)
