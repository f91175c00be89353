"""QuestGenerationSystem (phase generation): story signals in, offered quests out (seed 6.1).

Signals are gated as they arrive (per-(type, NPC) dedup window, world-wide
rolling cap), then evaluated alone and composed with the recent signals they
relate to (:mod:`.intake`: at once, or a burst spread over the ticks of
``signal_spread`` game seconds); the best resulting seed goes to the incoming
queue. ``update()`` then, every tick:

0. evaluates waiting signals within the tick's allowance;
1. drains the incoming queue into the pending seeds (a compound seed supersedes
   pending seeds built from a subset of its signals);
2. collects finished background builds: finish, content check, validation,
   quality filter, region density, registration, the ``generated_quests``
   side-table (:mod:`.side_table`), QuestHistory, delivery;
3. expires open quests past their expiry (game time);
4. every ``generation_interval`` game seconds -- at once while an urgent seed
   waits -- evicts expired seeds and seeds that failed ``max_seed_attempts``
   times, checks each candidate is still fresh, prepares its structure (no LLM)
   and launches the narrative in a background task, within the backpressure
   limits decided by :class:`~maid_stdlib.questgen.metrics.AutoThrottle` and the
   daily cap (``max_quests_per_day``, a rolling game day).

A failed build (no archetype could be planned, or the quest was rejected) does
not retry at the next cycle: the seed waits ``seed_retry_backoff * 2**(n-1)``
game seconds after its n-th failure, so its ``max_seed_attempts`` attempts are
spread over hours and a passing rejection (combat fatigue, a full day) does not
kill a situation the story layer will not signal again. Planning skips the
archetypes the quality filter's history rules would reject (three in a row,
combat fatigue, fetch loops) and tries the next.

The LLM is never awaited in ``update()``: only the narrative runs in the
background task, on an immutable NarrativeContext, so it never touches the world
outside the tick. Tests wait for it with :meth:`QuestGenerationSystem.drain`.
Every interval is game seconds on the engine clock; the token budget window is
monotonic seconds, like the shared LLM limiter's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar
from uuid import UUID

from maid_engine.clock import GAME_DAY
from maid_engine.ecs import System
from maid_engine.llm import ContentFilter
from maid_engine.llm.service import llm_service_of
from maid_stdlib.living.components import GoalsComponent
from maid_stdlib.questgen.builder import QuestPlan
from maid_stdlib.questgen.delivery import DeliveryPlanner, DeliveryPolicy, OpenQuest
from maid_stdlib.questgen.delivery_service import QuestDeliveryService
from maid_stdlib.questgen.generation_config import QuestGenerationConfig, SignalGate
from maid_stdlib.questgen.intake import SignalIntake
from maid_stdlib.questgen.metrics import AutoThrottle, QuestGenMetrics, ThrottleState
from maid_stdlib.questgen.narrative import (
    QuestNarrativeGenerator,
    TemplateFallbackGenerator,
    TemplateRegistry,
)
from maid_stdlib.questgen.narrative_context import QuestNarrative
from maid_stdlib.questgen.personalization import PlayStyleTracker, QuestPersonalizer
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.register import QuestGen
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.side_table import GeneratedQuestTable
from maid_stdlib.questgen.signals import StorySignalLike, signal_key
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.questgen.vocabulary import ObjectiveType

if TYPE_CHECKING:
    from maid_stdlib.story.signals import StorySignalEvent, StorySituationResolvedEvent

__all__ = ["BuildRecord", "QuestGenerationConfig", "QuestGenerationSystem", "SignalGate"]

log = logging.getLogger("maid.questgen.system")
#: Fallback reasons for which no LLM call was even attempted (no latency to count).
NO_CALL = frozenset({"template_only", "no_model", "budget_exhausted"})


@dataclass
class BuildJob:
    seed: QuestSeed
    plan: QuestPlan
    template_only: bool
    task: asyncio.Task[tuple[QuestNarrative, float]]


@dataclass
class BuildRecord:
    """One finished build, kept for admin tools and tests."""

    seed_id: UUID
    archetype_id: str
    outcome: str
    quest_id: str | None
    narrative_source: str
    fallback_reason: str | None
    tokens: int
    plan: QuestPlan


class QuestGenerationSystem(System):
    phase: ClassVar[str] = "generation"

    def __init__(
        self,
        qg: QuestGen,
        config: QuestGenerationConfig | None = None,
        templates: TemplateRegistry | None = None,
    ) -> None:
        self.qg = qg
        self.templates = templates or TemplateRegistry()
        engine = qg.engine
        self.metrics = QuestGenMetrics(engine.metrics)
        self.evaluator = qg.evaluator()
        self.composer = qg.composer(self.evaluator)
        self.builder = qg.builder()
        self.fallback_generator = TemplateFallbackGenerator(self.templates, rng=engine.random)
        self.content_filter = ContentFilter()
        self.tracker = PlayStyleTracker(engine, GAME_DAY)
        self.personalizer = QuestPersonalizer(qg.facts, self.tracker, qg.archetypes)
        self.planner = DeliveryPlanner(qg.facts, DeliveryPolicy())
        self.deliveries = QuestDeliveryService(
            engine, qg.facts, self.personalizer, self.planner, qg.history, self.metrics
        )
        self.llm, self._owns_llm = llm_service_of(engine)
        self.generator = QuestNarrativeGenerator(
            self.llm.provider,
            self.fallback_generator,
            content_filter=self.content_filter,
            cache=self.llm.cache,
            metrics=engine.metrics,
        )
        self.configure(config or QuestGenerationConfig())
        self._incoming: deque[QuestSeed] = deque()
        #: seed id -> the keys of its source signals (for supersession, computed once)
        self._signal_keys: dict[UUID, frozenset[object]] = {}
        self.pending_seeds: list[QuestSeed] = []
        self._processed: set[UUID] = set()
        self._in_flight: dict[UUID, BuildJob] = {}
        self.intake = SignalIntake(self)
        self._resolved: set[str] = set()
        self._next_cycle_at: float | None = None
        #: seed id -> game time before which a failed seed is not retried
        self._retry_at: dict[UUID, float] = {}
        self.side_table = GeneratedQuestTable(qg)
        self._grounding: deque[float] = deque(maxlen=50)
        self.records: deque[BuildRecord] = deque(maxlen=100)

    def configure(self, config: QuestGenerationConfig) -> None:
        """Apply ``config`` (at construction; a pack or test may replace it before
        start). The throttle's windows and the signal gate start empty."""
        self.config = cfg = config
        engine = self.qg.engine
        self.throttle = AutoThrottle(cfg.throttle_limits(), engine.clock.monotonic)
        self.state = ThrottleState(max_quests_per_cycle=cfg.max_quests_per_cycle)
        self.gate = SignalGate(
            cfg.signal_dedup_window, cfg.global_signal_window, cfg.global_signal_max
        )
        self.tracker.half_life = cfg.play_style_half_life
        self.personalizer.active_damping_at = cfg.active_quest_damping_at
        self.personalizer.active_damping = cfg.active_quest_damping
        self.planner.policy = self.deliveries.policy = cfg.delivery_policy()
        self.generator.timeout = cfg.build_timeout
        self.qg.quality_filter.max_quests_per_day = cfg.max_quests_per_day

    # -- lifecycle ------------------------------------------------------------------
    @property
    def open_quests(self) -> dict[str, OpenQuest]:
        return self.deliveries.open_quests

    async def startup(self) -> None:
        await self.qg.startup()
        engine = self.engine
        if self._owns_llm:
            await self.llm.start(engine.store.documents if engine.has_store else None)
        for oq in await self.side_table.load(self.qg.history.active_generated_quest_ids()):
            self.open_quests[oq.quest.id] = oq
        log.info("quest generation started: %d open generated quests", len(self.open_quests))

    async def shutdown(self) -> None:
        for job in list(self._in_flight.values()):
            job.task.cancel()
        await asyncio.gather(*(j.task for j in self._in_flight.values()), return_exceptions=True)
        self._in_flight.clear()
        try:
            await self.flush()
        except Exception:
            log.exception("writing quest generation documents at shutdown failed")
        if self._owns_llm:
            await self.llm.close()

    async def drain(self) -> None:
        """Wait for every build in flight (tests; the next update collects them)."""
        while True:
            tasks = [j.task for j in self._in_flight.values() if not j.task.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    # -- signals --------------------------------------------------------------------
    async def on_story_signal(self, event: StorySignalEvent) -> None:
        """Gate the signal now; evaluate it now or, in a burst, on a later tick
        (:mod:`.intake`)."""
        signal = event.signal
        now = self.engine.clock.game_time
        if self._admit(signal, now):
            self.intake.admitted(signal, now)
        await self.intake.evaluate_waiting()

    def on_situation_resolved(self, event: StorySituationResolvedEvent) -> None:
        self._resolved.add(event.situation_key)

    async def accept_signal(self, signal: StorySignalLike) -> QuestSeed | None:
        """Gate, evaluate and compose one signal at once; the seed queued, if any."""
        now = self.engine.clock.game_time
        if not self._admit(signal, now):
            return None
        return await self.intake.evaluate(now, signal)

    def _admit(self, signal: StorySignalLike, now: float) -> bool:
        verdict = self.gate.admit(signal, now)
        self.metrics.signal(verdict)
        if verdict != "accepted":
            return False
        self._resolved.discard(getattr(signal, "situation_key", "") or "")
        return True

    @property
    def signals_waiting(self) -> int:
        """Admitted signals not evaluated yet (a burst spread over ticks)."""
        return len(self.intake.waiting)

    def enqueue(self, seed: QuestSeed) -> None:
        """Queue a seed for the next tick (signals, admin tools, pack code)."""
        self._incoming.append(seed)
        self.metrics.seed("queued")
        log.info(
            "seed queued",
            extra={
                "seed_id": str(seed.id),
                "seed_type": seed.seed_type,
                "npc_id": str(seed.primary_npc),
            },
        )

    def in_flight_ids(self) -> set[UUID]:
        return set(self._in_flight)

    # -- the tick -------------------------------------------------------------------
    async def update(self, delta: float) -> None:
        now = self.engine.clock.game_time
        self.intake.delta = max(delta, 0.0)
        await self.intake.evaluate_waiting()
        self._drain_incoming()
        await self._collect()
        self.check_expiry(now)
        depth = self.queue_depth
        budget = self.llm.budget
        self.state = self.throttle.evaluate(
            depth, len(self._in_flight), budget is not None and budget.exhausted
        )
        self._publish_gauges(depth)
        urgent = any(
            s.importance >= self.config.urgent_importance
            and s.id not in self._in_flight
            and not self.backing_off(s, now)
            for s in self.pending_seeds
        )
        if self._next_cycle_at is not None and now < self._next_cycle_at and not urgent:
            self._flush_in_background()
            return
        self._next_cycle_at = now + self.config.generation_interval
        self._evict(now)
        await self._launch(self.state)
        self._flush_in_background()

    @property
    def queue_depth(self) -> int:
        """Seeds waiting (queued or pending, not being built)."""
        waiting = sum(1 for s in self.pending_seeds if s.id not in self._in_flight)
        return len(self._incoming) + waiting

    def _drain_incoming(self) -> None:
        keys = self._signal_keys
        while self._incoming:
            seed = self._incoming.popleft()
            if seed.id in self._processed:
                continue
            mine = keys[seed.id] = frozenset(signal_key(s) for s in seed.source_signals)
            kept = []
            for old in self.pending_seeds:
                theirs = keys.get(old.id)
                if theirs is None:
                    theirs = keys[old.id] = frozenset(signal_key(s) for s in old.source_signals)
                if old.id not in self._in_flight and theirs <= mine:
                    self.metrics.seed("superseded")
                    continue
                kept.append(old)
            self.pending_seeds = [*kept, seed]
        if len(keys) > 4 * len(self.pending_seeds) + 64:
            pending = {s.id for s in self.pending_seeds}
            self._signal_keys = {k: v for k, v in keys.items() if k in pending}

    def backing_off(self, seed: QuestSeed, now: float) -> bool:
        """Is ``seed`` waiting out the backoff after a failed build?"""
        return self._retry_at.get(seed.id, now) > now

    def _schedule_retry(self, seed: QuestSeed) -> None:
        now = self.engine.clock.game_time
        failures = max(1, seed.attempt_count)
        delay = self.config.seed_retry_backoff * 2 ** (failures - 1)
        self._retry_at[seed.id] = now + delay
        log.info(
            "seed %s failed %d time(s); retry in %.0f game seconds",
            seed.id,
            failures,
            delay,
            extra={"seed_id": str(seed.id), "seed_type": seed.seed_type},
        )

    def day_room(self, now: float) -> int | None:
        """Quests the daily cap still allows (builds in flight count), None: no cap."""
        cap = self.config.max_quests_per_day
        if cap is None:
            return None
        today = sum(1 for e in self.qg.history.since(now - GAME_DAY) if e.source == "generated")
        return max(0, cap - today - len(self._in_flight))

    def _evict(self, now: float) -> None:
        kept = []
        for seed in self.pending_seeds:
            if seed.id in self._in_flight:
                kept.append(seed)
            elif seed.id in self._processed:
                continue
            elif seed.is_expired(now):
                self.metrics.seed("evicted_expired")
            elif seed.attempt_count >= self.config.max_seed_attempts:
                self.metrics.seed("evicted_attempts")
            else:
                kept.append(seed)
        kept.sort(key=lambda s: -s.importance)
        for seed in kept[self.config.max_pending_seeds :]:
            if seed.id not in self._in_flight:
                self.metrics.seed("evicted_overflow")
        self.pending_seeds = [
            s
            for i, s in enumerate(kept)
            if i < self.config.max_pending_seeds or s.id in self._in_flight
        ]
        pending = {s.id for s in self.pending_seeds}
        self._retry_at = {k: t for k, t in self._retry_at.items() if k in pending}

    def is_fresh(self, seed: QuestSeed) -> bool:
        """Does the world that produced the seed still hold? (seed 6.1)"""
        facts = self.qg.facts
        if self.builder.grounding_problem(seed) is not None:
            return False
        goals = self.engine.world.try_component(seed.primary_npc, GoalsComponent)
        if (
            goals is not None
            and goals.goals
            and not goals.open_goals()
            and not any(s.unmet for s in facts.needs(seed.primary_npc).values())
        ):
            return False
        situations = [
            k for k in (getattr(s, "situation_key", "") for s in seed.source_signals) if k
        ]
        if situations and all(k in self._resolved for k in situations):
            return False
        living = facts.living
        if living is not None and living.is_threat(seed.primary_npc):
            return False  # nobody can walk up to a hostile bandit chief and ask for work
        giver = seed.primary_npc
        if any(oq.quest.quest_giver_id == giver for oq in self.open_quests.values()):
            return False  # one open request per person: the new seed is its double
        return not self.qg.history.recent_quest_from_npc(
            giver, self.evaluator.COOLDOWN_PER_NPC, facts.now
        )

    def region_full(self, region: str | None) -> bool:
        if region is None:
            return False
        return (
            self.qg.history.count_active_in_region(region)
            >= self.config.max_active_quests_per_region
        )

    def unaccepted_quests(self) -> int:
        """Open generated quests nobody has taken on (the rules layer knows)."""
        offers = self.deliveries.offers
        if offers is None:
            return len(self.open_quests)
        return sum(1 for qid in self.open_quests if not offers.accepted(qid))

    async def _launch(self, state: ThrottleState) -> int:
        if self.unaccepted_quests() >= self.config.max_pending_quests:
            return 0
        launched = 0
        facts = self.qg.facts
        now = self.engine.clock.game_time
        for seed in sorted(self.pending_seeds, key=lambda s: -s.importance):
            if launched >= state.max_quests_per_cycle:
                break
            room = self.day_room(now)
            if room is not None and room <= 0:
                break  # the day is full: seeds wait, and it is not an attempt
            if seed.id in self._in_flight or self.backing_off(seed, now):
                continue
            if len(self._in_flight) >= self.config.max_concurrent_builds:
                break
            if not self.is_fresh(seed):
                self._processed.add(seed.id)
                self.pending_seeds.remove(seed)
                self.metrics.seed("stale")
                continue
            if self.region_full(facts.region_of(seed.location)):
                continue  # not an attempt: the seed waits for the region to free up
            seed.attempt_count += 1
            plan = await self._plan(seed)
            if plan is None:
                self._reject(seed, None, "plan")  # schedules the retry
                continue
            template_only = state.template_only
            task = asyncio.create_task(
                self._narrate(plan, template_only), name=f"quest-build-{seed.id}"
            )
            self._in_flight[seed.id] = BuildJob(seed, plan, template_only, task)
            launched += 1
        return launched

    async def _plan(self, seed: QuestSeed) -> QuestPlan | None:
        quality = self.qg.quality_filter
        with self.qg.facts.steady():  # planning reads the world, never changes it
            for archetype in self.qg.ranked_archetypes(seed):
                blocked = quality.archetype_blocked(archetype.archetype_id)
                if blocked:
                    log.debug(
                        "seed %s: skipping %s (%s)",
                        seed.id,
                        archetype.archetype_id,
                        ", ".join(blocked),
                    )
                    continue
                plan = await self.builder.prepare(seed, archetype)
                if plan is not None:
                    return plan
        return None

    async def _narrate(self, plan: QuestPlan, template_only: bool) -> tuple[QuestNarrative, float]:
        started = time.perf_counter()
        try:
            narrative = await self.generator.generate(plan.context, template_only=template_only)
        except Exception:
            # generate() never raises by contract; a bug there must not lose the seed.
            log.exception("quest narrative generation failed")
            narrative = self.fallback_generator.generate(plan.context, reason="internal_error")
        return narrative, time.perf_counter() - started

    async def _collect(self) -> None:
        for seed_id, job in list(self._in_flight.items()):
            if not job.task.done():
                continue
            del self._in_flight[seed_id]
            if job.task.cancelled():
                continue
            narrative, latency = job.task.result()
            if narrative.fallback_reason not in NO_CALL:
                self.throttle.record_latency(latency)
                self.metrics.latency(latency)
            self.throttle.record_tokens(narrative.tokens_used)
            await self.complete(job.seed, job.plan, narrative)

    # -- finishing a quest -----------------------------------------------------------
    def _reject(
        self,
        seed: QuestSeed,
        plan: QuestPlan | None,
        stage: str,
        narrative: QuestNarrative | None = None,
    ) -> None:
        self.throttle.record_rejection()
        self.metrics.rejected(stage)
        log.info(
            "quest for seed %s rejected at %s: %s",
            seed.id,
            stage,
            self.builder.last_rejection or "",
            extra={"seed_id": str(seed.id), "seed_type": seed.seed_type, "stage": stage},
        )
        self._schedule_retry(seed)
        if plan is not None:
            self.records.append(
                BuildRecord(
                    seed.id,
                    plan.archetype.archetype_id,
                    f"rejected:{stage}",
                    None,
                    narrative.source if narrative else "",
                    narrative.fallback_reason if narrative else None,
                    narrative.tokens_used if narrative else 0,
                    plan,
                )
            )

    async def complete(
        self, seed: QuestSeed, plan: QuestPlan, narrative: QuestNarrative
    ) -> GeneratedQuest | None:
        """Finish, check, register and deliver one built quest."""
        qg, builder = self.qg, self.builder
        quest = builder.finish(plan, narrative)
        if quest is not None and quest.narrative_source == "llm" and not self._safe(quest):
            narrative = self.fallback_generator.generate(
                plan.context, reason="unsafe", tokens_used=narrative.tokens_used
            )
            quest = builder.finish(plan, narrative)
        if quest is None:
            self._reject(seed, plan, "scores", narrative)
            return None
        if not (await qg.validator.validate(quest)).valid:
            self._reject(seed, plan, "validation", narrative)
            return None
        if [p for p in qg.quality_filter.check(quest) if p != "region_density"]:
            self._reject(seed, plan, "quality", narrative)
            return None
        if self.region_full(quest.region):
            self._reject(seed, plan, "region_density", narrative)
            return None
        if qg.sink is None:
            self._reject(seed, plan, "no_sink", narrative)
            return None
        try:
            qg.sink.register(quest)
        except Exception:
            log.exception("registering generated quest %s failed", quest.id)
            self._reject(seed, plan, "register", narrative)
            return None
        qg.record(quest)
        self._processed.add(seed.id)
        self.pending_seeds = [s for s in self.pending_seeds if s.id != seed.id]
        oq = self._open_quest(seed, quest)
        self.open_quests[quest.id] = oq
        self.side_table.put(oq)
        self.throttle.record_built(narrative.source == "template")
        self.metrics.built(narrative.source, narrative.fallback_reason)
        self.metrics.seed("built")
        self._grounding.append(quest.grounding_score)
        self.records.append(
            BuildRecord(
                seed.id,
                quest.archetype_id,
                "registered",
                quest.id,
                narrative.source,
                narrative.fallback_reason,
                narrative.tokens_used,
                plan,
            )
        )
        log.info(
            "generated quest %s (%s, %s narrative) from %s",
            quest.id,
            quest.archetype_id,
            narrative.source,
            self.qg.facts.name(quest.quest_giver_id),
            extra={
                "quest_id": quest.id,
                "seed_id": str(seed.id),
                "npc_id": str(quest.quest_giver_id),
            },
        )
        self.deliveries.match([quest.id], self.engine.sessions.characters_online())
        return quest

    def _safe(self, quest: GeneratedQuest) -> bool:
        d = quest.quest_giver_dialogue
        texts = [
            quest.title,
            quest.summary,
            quest.detailed_description,
            d.offer,
            d.progress,
            d.completion,
        ]
        return bool(self.content_filter.check_all([t for t in texts if t]))

    def _open_quest(self, seed: QuestSeed, quest: GeneratedQuest) -> OpenQuest:
        facts = self.qg.facts
        targets = [
            u
            for o in quest.objectives
            if o.objective_type is ObjectiveType.KILL
            for u in o.target_entity_ids
        ]
        topics = topic_tokens(
            seed.threat_source,
            seed.subject,
            seed.resource_type,
            seed.blocker,
            seed.discovery_type,
            facts.area_name(quest.area),
            *(o.target for o in quest.objectives if o.objective_type is ObjectiveType.KILL),
        )
        return OpenQuest(quest, frozenset(topics), frozenset(facts.threat_keys(targets)))

    side_table_document = staticmethod(GeneratedQuestTable.document)

    # -- lifecycle of generated quests ------------------------------------------------
    def check_expiry(self, now: float) -> list[str]:
        """Expire open quests past their expiry; forget those closed elsewhere."""
        expired = []
        offers = self.deliveries.offers
        for quest_id, oq in list(self.open_quests.items()):
            if now > oq.quest.expiry:
                expire = getattr(self.qg.sink, "expire", None)
                if expire is not None:
                    expire(quest_id)
                self.qg.history.mark_finished(quest_id, "expired", now)
                self.deliveries.forget_quest(quest_id)
                expired.append(quest_id)
            elif offers is not None and not offers.is_open(quest_id):
                self.qg.history.mark_finished(quest_id, "failed", now)
                self.deliveries.forget_quest(quest_id)
        return expired

    def quest_accepted(self, quest_id: str, character: UUID) -> None:
        self.qg.history.mark_accepted(quest_id, character, self.engine.clock.game_time)
        self.deliveries.drop(character, quest_id)

    def quest_turned_in(self, quest_id: str, outcome: str) -> None:
        """The situation is resolved: the quest is closed for new offers."""
        if quest_id in self.open_quests:
            self.qg.history.mark_finished(quest_id, outcome, self.engine.clock.game_time)
            self.deliveries.forget_quest(quest_id)

    # -- gauges and persistence -------------------------------------------------------
    def _publish_gauges(self, depth: int) -> None:
        depths = [oq.quest.chain_depth for oq in self.open_quests.values()]
        avg = sum(self._grounding) / len(self._grounding) if self._grounding else 0.0
        self.metrics.gauges(
            seed_queue_depth=depth,
            in_flight_builds=len(self._in_flight),
            token_budget_remaining=self.throttle.tokens.remaining(),
            llm_latency_p99=self.throttle.p99() or 0.0,
            template_fallback_ratio=self.throttle.fallback_ratio() or 0.0,
            rejection_ratio=self.throttle.rejection_ratio() or 0.0,
            signals_in_window=self.gate.in_window(self.engine.clock.game_time),
            grounding_score_avg=avg,
            chain_depth_max=max(depths, default=0),
        )
        self.metrics.state(self.state)

    def _flush_in_background(self) -> None:
        self.side_table.flush_in_background()

    async def flush(self) -> None:
        """Write the queued side-table documents and QuestHistory entries now."""
        await self.side_table.flush()
