"""QuestGenerationSystem (phase generation): the coordinator of the generation stages.

Story signals in, offered quests out. The work is done by the stages of
:mod:`maid_stdlib.questgen.pipeline` (and :mod:`.intake`), each built once with
its collaborators and the frozen
:class:`~maid_stdlib.questgen.generation_config.QuestGenerationConfig` by
:func:`maid_stdlib.questgen.system_wiring.build_quest_generation`; this class only
runs them, in this order, every tick:

0. intake: evaluates waiting signals within the tick's allowance;
1. queue: drains the incoming seeds into the pending ones (a compound seed
   supersedes pending seeds built from a subset of its signals);
2. collects finished background builds: check (scores, content, validation,
   quality, region density), then publish (sink, history, side-table,
   delivery to the characters online, a few a tick); a rejection schedules
   the seed's retry;
3. lifecycle: expires open quests past their expiry (game time);
4. backpressure: the throttle decides the cycle from the queue depth, the
   builds in flight and the LLM budget, and the gauges are published;
5. every ``generation_interval`` game seconds -- at once while an urgent seed
   waits -- the queue evicts; when the day is short of its floor the search
   widens (:mod:`.pipeline.floor`); then each candidate, most important first
   (of equals, the giver who gave least today), is screened (still fresh?),
   checked against the quotas (region density, the daily cap) and the holds
   (the giver's share of the day, the area's quests today, see
   :mod:`.pipeline.holds`), planned (no LLM) and its narrative launched in a
   background task. A held seed waits without spending an attempt; every
   hold, drop and rejection is counted by its named rule. A cycle plans at most
   ``plans_per_tick`` seeds a tick (a plan reads much of the world): the rest
   of its candidates, in the order fixed when it began, are tried on the next
   ticks, and no new cycle begins before it ends. Builds finished meanwhile are
   collected when it ends, so it decides as a cycle planned in one tick. A
   simulation's long tick plans the whole cycle at once.

The LLM is never awaited in ``update()``: only the narrative runs in the
background task, on an immutable NarrativeContext, so it never touches the world
outside the tick; :meth:`drain` waits for it (tests, the simulator). Every
interval is game seconds on the engine clock; the token budget window is
monotonic seconds, like the shared LLM limiter's. Callers outside the pipeline
use :class:`~maid_stdlib.questgen.service.QuestGenerationService`.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import ClassVar
from uuid import UUID

from maid_engine.clock import GAME_DAY, GameClock
from maid_engine.ecs import System
from maid_engine.llm.service import LLMService
from maid_engine.slicing import TickSlice
from maid_stdlib.questgen.builder import QuestPlan
from maid_stdlib.questgen.delivery import OpenQuest
from maid_stdlib.questgen.delivery_service import QuestDeliveryService
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.history import QuestHistory
from maid_stdlib.questgen.intake import SignalIntake
from maid_stdlib.questgen.metrics import QuestGenMetrics
from maid_stdlib.questgen.narrative_context import QuestNarrative
from maid_stdlib.questgen.pipeline.backpressure import Backpressure
from maid_stdlib.questgen.pipeline.check import CheckStage
from maid_stdlib.questgen.pipeline.floor import DailyFloor
from maid_stdlib.questgen.pipeline.holds import HOLD_RULES, SeedHolds
from maid_stdlib.questgen.pipeline.lifecycle import OpenQuestLifecycle
from maid_stdlib.questgen.pipeline.narrate import NarrateStage
from maid_stdlib.questgen.pipeline.plan import PlanStage
from maid_stdlib.questgen.pipeline.publish import PublishStage
from maid_stdlib.questgen.pipeline.queue import SeedQueue
from maid_stdlib.questgen.pipeline.quotas import Quotas
from maid_stdlib.questgen.pipeline.results import BuildRecord, RejectionRecord
from maid_stdlib.questgen.pipeline.screen import ResolvedSituations, SeedScreen
from maid_stdlib.questgen.pipeline.seed_store import SeedStore
from maid_stdlib.questgen.pipeline.variety import NOVELTY_WINDOW, launch_priority, recent_kinds
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.side_table import GeneratedQuestTable
from maid_stdlib.story.signals import StorySignalEvent, StorySituationResolvedEvent

__all__ = ["BuildRecord", "QuestGenerationStages", "QuestGenerationSystem", "RejectionRecord"]

log = logging.getLogger("maid.questgen.system")


#: Verdicts of ``_attempt`` after which a giver's errand does not keep its giver
#: for itself: it is under way, or the day, the giver's share or the giver's own
#: open request stands in the way of any seed of that giver alike.
_NOT_RESERVING = frozenset({"launched", "stop", "", "giver_busy", "giver_daily_cap"})


@dataclass
class _Cycle:
    """One generation cycle, which may go on over several ticks: its count of
    launches (a plan refused unwritten counts, see ``_attempt``) and of refusals
    that take a place in the day's room, and the candidates still to try."""

    max_launches: int
    template_only: bool = False
    #: Was the day short of its floor when the cycle began (see ``keeps_to_share``)?
    short: bool = False
    #: The candidates not tried yet, in launch order.
    order: deque[QuestSeed] = field(default_factory=deque)
    #: Givers whose own errand (see ``SeedScreen.keeps_its_giver``) is held this
    #: cycle: their later seeds wait with it.
    reserved: set[UUID] = field(default_factory=set)
    launched: int = 0
    judged: int = 0
    #: Seeds planned in the current tick (``plans_per_tick`` bounds it).
    planned: int = 0


@dataclass(frozen=True)
class QuestGenerationStages:
    """Every stage of one engine's pipeline and what they share, built once."""

    intake: SignalIntake
    queue: SeedQueue
    screen: SeedScreen
    resolved: ResolvedSituations
    quotas: Quotas
    holds: SeedHolds
    floor: DailyFloor
    plan: PlanStage
    narrate: NarrateStage
    check: CheckStage
    publish: PublishStage
    lifecycle: OpenQuestLifecycle
    backpressure: Backpressure
    deliveries: QuestDeliveryService
    side_table: GeneratedQuestTable
    #: The seed queue across restarts.
    seed_store: SeedStore
    #: The open generated quests, by id (the delivery service's and the stages' book).
    open_quests: dict[str, OpenQuest]
    metrics: QuestGenMetrics


class QuestGenerationSystem(System):
    phase: ClassVar[str] = "generation"

    def __init__(
        self,
        settings: QuestGenerationConfig,
        stages: QuestGenerationStages,
        clock: GameClock,
        history: QuestHistory,
        llm: LLMService,
        toolkit_startup: Callable[[], Awaitable[None]],
    ) -> None:
        self.settings = settings
        self.stages = stages
        self._clock = clock
        self._history = history
        #: The engine's one LLM service: the engine starts and closes it.
        self.llm = llm
        self._toolkit_startup = toolkit_startup
        self._next_cycle_at: float | None = None
        self._next_prune_at: float | None = None
        #: Seeds held at the last cycle: an urgent one waits for the next cycle
        #: like any other (what holds it does not pass within a tick).
        self._held: set[UUID] = set()
        #: Seed id -> game time since which its giver has been the only one with
        #: work in the queue (kept while the seed waits).
        self._alone_since: dict[UUID, float] = {}
        #: The launch cycle under way (None: none), carried over ticks.
        self._cycle: _Cycle | None = None
        self.records: deque[BuildRecord] = deque(maxlen=100)
        #: The latest rejections at any stage, with their reasons (admin reports).
        self.rejections: deque[RejectionRecord] = deque(maxlen=100)

    # -- lifecycle ------------------------------------------------------------------
    async def startup(self) -> None:
        await self._toolkit_startup()
        open_quests = self.stages.open_quests
        for oq in await self.stages.side_table.load(self._history.active_generated_quest_ids()):
            open_quests[oq.quest.id] = oq
        seeds = await self.stages.seed_store.load()
        self.stages.deliveries.planner.warm()
        log.info(
            "quest generation started: %d open generated quests, %d seeds waiting",
            len(open_quests),
            seeds,
        )

    async def shutdown(self) -> None:
        # A build cancelled here leaves its seed pending: it is stored with the rest
        # and built again after the restart.
        await self.stages.narrate.cancel_all()
        try:
            await self.flush()
        except Exception:
            log.exception("writing quest generation documents at shutdown failed")
        try:
            await self.stages.seed_store.save()
        except Exception:
            log.exception("writing the seed queue at shutdown failed")

    async def drain(self) -> None:
        """Wait for every build in flight (the next update collects them)."""
        await self.stages.narrate.drain()

    async def flush(self) -> None:
        """Write the queued side-table documents now."""
        await self.stages.side_table.flush()

    # -- events ---------------------------------------------------------------------
    async def on_story_signal(self, event: StorySignalEvent) -> None:
        await self.stages.intake.receive(event.signal)

    def on_situation_resolved(self, event: StorySituationResolvedEvent) -> None:
        self.stages.resolved.resolve(event.situation_key)

    # -- the tick -------------------------------------------------------------------
    async def update(self, delta: float) -> None:
        st, cfg = self.stages, self.settings
        now = self._clock.game_time
        st.intake.tick_started(delta)
        st.publish.tick_started(delta)
        st.floor.tick_started(delta)
        # A tick shorter than the spread composes and collects finished builds
        # within the system's share of the tick's real time, the rest next tick; a
        # longer one (a simulation's) does everything as it comes, whole.
        share = self.engine.tick_slice(self.name) if delta < cfg.signal_spread else None
        await st.intake.evaluate_waiting(share)
        st.queue.drain_incoming(st.narrate)
        if await st.floor.collect():
            st.queue.drain_incoming(st.narrate)
        st.publish.deliver_waiting()
        if self._cycle is None:
            # Builds that finish while a cycle goes on over ticks are collected
            # when it ends: every plan of a cycle sees the quests its first saw,
            # so the cycle decides as it did when it was planned in one tick.
            await self._collect(share)
        st.lifecycle.check_expiry(now)
        depth = st.queue.depth(st.narrate)
        budget = self.llm.budget
        state = st.backpressure.evaluate(
            depth, len(st.narrate), budget is not None and budget.exhausted
        )
        st.backpressure.publish_gauges(
            depth,
            len(st.narrate),
            [oq.quest.chain_depth for oq in st.open_quests.values()],
            st.intake.signals_in_window(),
        )
        if self._cycle is not None:
            await self._go_on(delta)
        elif (
            self._next_cycle_at is None
            or now >= self._next_cycle_at
            or (self._urgent_waits(now) and self._could_launch(now, state.max_quests_per_cycle))
        ):
            self._next_cycle_at = now + cfg.generation_interval
            st.queue.evict(now, st.narrate)
            self._prune(now)
            if await st.floor.widen(now):
                st.queue.drain_incoming(st.narrate)
            self._cycle = self._begin(state.max_quests_per_cycle, state.template_only)
            if self._cycle is not None:
                await self._go_on(delta)
        st.side_table.flush_in_background()
        st.seed_store.save_in_background()

    def _urgent_waits(self, now: float) -> bool:
        """Is an urgent seed waiting that no cycle has held yet?"""
        st, cfg = self.stages, self.settings
        return any(
            s.importance >= cfg.urgent_importance
            and s.id not in st.narrate
            and s.id not in self._held
            and not st.queue.backing_off(s, now)
            for s in st.queue.pending
        )

    def _could_launch(self, now: float, max_launches: int) -> bool:
        """Could a cycle begun now launch anything? Not with no launches allowed,
        every build slot taken, the day's cap reached (an admin's forced seed
        excepted: the cap does not hold it) or too many quests unaccepted: such a
        cycle stops at its first candidate, and an urgent seed that began one every
        tick until the room came spent a tick's eviction and ordering of the whole
        queue on nothing. It begins a cycle on the first tick the room is there."""
        st, cfg = self.stages, self.settings
        in_flight = len(st.narrate)
        if max_launches <= 0 or in_flight >= cfg.max_concurrent_builds:
            return False
        room = st.quotas.day_room(now, in_flight)
        if room is not None and room <= 0 and not any(s.forced for s in st.queue.pending):
            return False
        return not st.quotas.unaccepted_full(st.open_quests, st.deliveries.offers)

    def _prune(self, now: float) -> None:
        """Once a game day: forget quests finished a retention period ago (the
        history's working set and their side-table documents)."""
        if self._next_prune_at is not None and now < self._next_prune_at:
            return
        self._next_prune_at = now + GAME_DAY
        pruned = self._history.prune(now)
        if pruned:
            for quest_id in pruned:
                self.stages.open_quests.pop(quest_id, None)
            self.stages.side_table.forget(pruned)
            log.info("pruned %d quests finished long ago from the history", len(pruned))

    def _begin(self, max_launches: int, template_only: bool) -> _Cycle | None:
        """A new launch cycle with its candidates in order (None: the players have
        as many quests unaccepted as they may)."""
        st = self.stages
        if st.quotas.unaccepted_full(st.open_quests, st.deliveries.offers):
            return None
        now = self._clock.game_time
        short = st.floor.short(now)
        self._held = set()
        # Most important first, and of equals the giver who gave least today: the
        # day's quests spread over the people who have something to ask.
        given: dict[object, int] = {}
        for seed in st.queue.pending:
            if seed.primary_npc not in given:
                given[seed.primary_npc] = st.quotas.given_today(seed.primary_npc, now)
        # An admin's forced seed first: the daily cap that stops the cycle for the
        # others does not hold it. Then an errand a giver keeps for itself (a
        # chain's follow-up, an order standing alone): the valley raises more
        # troubles than a day has room for, and a follow-up that waits behind them
        # decays before the story it continues goes on. Then by importance,
        # discounted for the kinds the latest quests were of: the day's room goes
        # to what players have not seen lately (pipeline.variety).
        recent = recent_kinds(self._history.recent_types(NOVELTY_WINDOW))
        order = sorted(
            st.queue.pending,
            key=lambda s: (
                not s.forced,
                not st.screen.keeps_its_giver(s),
                -launch_priority(s, recent),
                given[s.primary_npc],
            ),
        )
        waiting = {s.id for s in st.queue.pending}
        self._alone_since = {k: t for k, t in self._alone_since.items() if k in waiting}
        return _Cycle(max_launches, template_only, short, deque(order))

    async def _go_on(self, delta: float) -> None:
        """Try the cycle's next candidates, until it ends or this tick has planned
        ``plans_per_tick`` seeds (any number in a tick ``signal_spread`` long)."""
        cycle, st, cfg = self._cycle, self.stages, self.settings
        assert cycle is not None
        limit = None if delta >= cfg.signal_spread else cfg.plans_per_tick
        cycle.planned = 0
        now = self._clock.game_time
        # A candidate may have left the queue since the cycle began (built,
        # dropped, superseded by a compound seed, evicted).
        waiting = {s.id for s in st.queue.pending}
        while cycle.order and (limit is None or cycle.planned < limit):
            seed = cycle.order.popleft()
            if seed.id not in waiting:
                continue
            if seed.primary_npc in cycle.reserved:
                # The giver's errand that waited for them comes first: a newer
                # trouble of theirs would make them busy again the moment the
                # errand's own hold clears, and it would wait until it decays.
                st.metrics.held(("giver_reserved",))
                self._held.add(seed.id)
                continue
            keeps = self.keeps_to_share(seed, now, cycle.short)
            verdict = await self._attempt(seed, now, keeps, cycle, cycle.template_only)
            if verdict == "stop":
                cycle.order.clear()
            elif verdict not in _NOT_RESERVING and st.screen.keeps_its_giver(seed):
                cycle.reserved.add(seed.primary_npc)
        if not cycle.order:
            self._cycle = None

    def keeps_to_share(self, seed: QuestSeed, now: float, short: bool) -> bool:
        """Does ``seed``'s giver keep to its share of the day? Always while another
        giver has work; on a short day with nobody else's work, only until it has
        been alone with ``seed`` for as long as the world may go without a quest
        (``Quotas.quiet_spell``): at dawn the others' troubles come in hours after
        the first giver's, and a giver let past its share before they do takes the
        place of one of theirs (the valley's first giver gave two of the day's five)."""
        if self.others_have_work(seed, now):
            self._alone_since.pop(seed.id, None)
            return True
        since = self._alone_since.setdefault(seed.id, now)
        return not short or now - since < self.stages.quotas.quiet_spell()

    def others_have_work(self, seed: QuestSeed, now: float) -> bool:
        """Has a giver other than ``seed``'s a seed in the queue, and room in their
        own share of the day? A seed being written or waiting out a retry counts:
        it is a grounded trouble of theirs that will come to a quest this day, and
        a giver let past its share before it does takes that quest's place."""
        st = self.stages
        return any(
            s.primary_npc != seed.primary_npc and not st.quotas.giver_at_share(s.primary_npc, now)
            for s in st.queue.pending
        )

    async def _attempt(
        self,
        seed: QuestSeed,
        now: float,
        others_waiting: bool,
        cycle: _Cycle,
        template_only: bool,
    ) -> str:
        """Screen, hold or plan and launch one seed: "launched", "stop" (the cycle
        or the day is full), the rule that held it, or "" (skipped, dropped or
        rejected)."""
        st, cfg, metrics = self.stages, self.settings, self.stages.metrics
        if cycle.launched >= cycle.max_launches:
            return "stop"
        room = st.quotas.day_room(now, len(st.narrate) + cycle.judged)
        if room is not None and room <= 0 and not seed.forced:
            return "stop"  # the day is full: seeds wait, and it is not an attempt
        if seed.id in st.narrate or st.queue.backing_off(seed, now):
            return ""
        if len(st.narrate) >= cfg.max_concurrent_builds:
            return "stop"
        if st.screen.waits(seed):
            # Another errand of its giver is open, or the giver is on cooldown: a
            # stand-alone seed waits for it, and waiting is not an attempt.
            metrics.held(("giver_busy",))
            self._held.add(seed.id)
            return "giver_busy"
        stale = st.screen.screen(seed)
        if stale is not None:
            metrics.dropped(stale.rule)
            log.info(
                "seed %s dropped: %s",
                seed.id,
                stale.reason,
                extra={"seed_id": str(seed.id), "rules": stale.rule},
            )
            st.queue.drop_stale(seed)
            return ""
        held = st.holds.before_plan(seed, now, others_waiting)
        if held is None and st.quotas.region_full_at(seed.location):
            held = "region_density"  # the seed waits for the region to free up
        if held is not None:
            metrics.held((held,))
            self._held.add(seed.id)
            return held
        seed.attempt_count += 1
        cycle.planned += 1
        # The plan is judged before a word is written: no prose (nor a model
        # call) is spent on a quest its structure would get rejected.
        plan = await st.plan.plan(seed)
        if isinstance(plan, Rejection):
            if plan.stage == "plan" and set(plan.rules) <= HOLD_RULES:
                # Only the run of recent quests (three of a kind, combat fatigue)
                # or the threat's state (gone, or another open quest's) stands in
                # the way: the seed waits, and waiting spends none of its attempts.
                seed.attempt_count -= 1
                metrics.held(plan.rules)
                self._held.add(seed.id)
                return plan.rule
            self._rejected(seed, None, plan)  # schedules the retry
            if plan.stage == "quality":
                # A plan refused unwritten takes the place in the cycle (and in the
                # day's room) its build would have taken: the pace of launches
                # stays what it is when the refusal follows the prose.
                cycle.launched += 1
                cycle.judged += 1
            return ""
        st.narrate.launch(seed, plan, template_only)
        cycle.launched += 1
        return "launched"

    async def _collect(self, share: TickSlice | None) -> None:
        """Check and publish the finished builds, oldest first. A cycle's builds
        finish together and each is milliseconds in a big world: once ``share``
        is spent (after one at least) the rest wait for the next tick, as if
        their prose had come a little later."""
        st = self.stages
        collected = 0
        for job in st.narrate.jobs():
            if collected and share is not None and share.spent():
                return
            narrated = st.narrate.take(job)
            if narrated is None:
                continue
            st.backpressure.narrated(narrated)
            await self.complete(job.seed, job.plan, narrated.narrative)
            collected += 1

    # -- finishing a quest -----------------------------------------------------------
    async def complete(
        self, seed: QuestSeed, plan: QuestPlan, narrative: QuestNarrative
    ) -> GeneratedQuest | Rejection:
        """Check, register, record and deliver one written quest."""
        st = self.stages
        outcome = await st.check.check(plan, narrative)
        narrative, quest = outcome.narrative, outcome.result
        if isinstance(quest, Rejection):
            self._rejected(seed, plan, quest, narrative)
            return quest
        refused = st.publish.register(quest)
        if refused is not None:
            self._rejected(seed, plan, refused, narrative)
            return refused
        st.publish.open(seed, quest)
        st.backpressure.built(narrative, quest.grounding_score)
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
            st.publish.giver_name(quest),
            extra={
                "quest_id": quest.id,
                "seed_id": str(seed.id),
                "npc_id": str(quest.quest_giver_id),
            },
        )
        st.publish.deliver(quest)
        return quest

    def _rejected(
        self,
        seed: QuestSeed,
        plan: QuestPlan | None,
        rejection: Rejection,
        narrative: QuestNarrative | None = None,
    ) -> None:
        stage = rejection.stage
        self.stages.backpressure.rejected(stage, rejection.rules)
        self.rejections.append(RejectionRecord(seed.id, self._clock.game_time, rejection))
        log.info(
            "quest for seed %s rejected at %s: %s",
            seed.id,
            stage,
            rejection.reason,
            extra={
                "seed_id": str(seed.id),
                "seed_type": seed.seed_type,
                "stage": stage,
                "rules": ",".join(rejection.rules),
            },
        )
        self.stages.queue.schedule_retry(seed, self._clock.game_time)
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
