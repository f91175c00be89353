"""QuestGenerationService: what the rest of the game may ask of quest generation.

Commands (``@quest``, ``board``, ``questgen``), the rules layer's glue
(classic_rpg), the consequence layer and ``maid simulate`` talk to quest
generation through this one object, provided under its class by
the ``stdlib.quest_generation`` plugin; none of them reaches into the stages. It is a
facade: every method delegates to the stage that owns the answer.

=====================  ===============================================================
group                  methods
=====================  ===============================================================
seeds in               ``enqueue``, ``accept_signal``
force-generate         ``build_seed``, ``screen``, ``region_full_at``, ``dry_run``,
                       ``giver_cooldown``, ``held_before_plan``, ``held_from``
open quests            ``open_quest``, ``open_quest_ids``, ``open_quests``
reports                ``settings``, ``pending_seeds``, ``in_flight_ids``,
                       ``queue_depth``, ``signals_waiting``, ``build_records``, ``rejections``,
                       ``metrics``, ``throttle_state``, ``throttle_snapshot``,
                       ``alert_ratios``, ``unaccepted_quests``, ``day_full``,
                       ``llm_status``
delivery               ``offer_cap``, ``would_offer_in_person``, ``pending_deliveries``,
                       ``conversation``, ``notice_board_in``, ``read_board``
rules layer            ``install_offers``, ``quest_accepted``, ``quest_turned_in``,
                       ``record_play``, ``record_quest_outcome``
world events           ``character_moved``, ``character_connected``,
                       ``character_disconnected``, ``preference_changed``
background work        ``drain``, ``flush``
=====================  ===============================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from maid_engine.clock import GameClock
from maid_stdlib.questgen.archetypes import QuestArchetype
from maid_stdlib.questgen.builder import QuestPlan
from maid_stdlib.questgen.delivery import OpenQuest, PendingDelivery, QuestOffers
from maid_stdlib.questgen.evaluator import GroundedSignal, SeedEvaluator
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.metrics import QuestGenMetrics, ThrottleState
from maid_stdlib.questgen.personalization import PlayStyle, PlayStyleTracker, QuestPreference
from maid_stdlib.questgen.pipeline.results import BuildRecord, RejectionRecord
from maid_stdlib.questgen.preferences import PreferenceObserver
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import StorySignalLike
from maid_stdlib.questgen.system import QuestGenerationStages, QuestGenerationSystem
from maid_stdlib.world.events import EntityRelocatedEvent

__all__ = ["QuestGenerationService"]


class QuestGenerationService(PreferenceObserver):
    def __init__(
        self,
        system: QuestGenerationSystem,
        stages: QuestGenerationStages,
        evaluator: SeedEvaluator,
        tracker: PlayStyleTracker,
        metrics: QuestGenMetrics,
        clock: GameClock,
    ) -> None:
        self._system = system
        self._stages = stages
        self._evaluator = evaluator
        self._tracker = tracker
        self._metrics = metrics
        self._clock = clock

    # -- seeds in -------------------------------------------------------------------
    def enqueue(self, seed: QuestSeed) -> None:
        """Queue a seed for the next tick (admin tools, pack code, tests)."""
        self._stages.queue.enqueue(seed)

    async def accept_signal(self, signal: StorySignalLike) -> QuestSeed | Rejection:
        """Gate, evaluate and compose one signal at once; the seed queued, or why not."""
        return await self._stages.intake.accept(signal)

    # -- force-generate ---------------------------------------------------------------
    @property
    def giver_cooldown(self) -> float:
        """Game seconds between two quests from the same giver."""
        return self._evaluator.COOLDOWN_PER_NPC

    def build_seed(
        self,
        parts: Sequence[GroundedSignal],
        lead: GroundedSignal,
        importance: float,
        *,
        ignore_cooldown: bool = False,
    ) -> QuestSeed | Rejection:
        """The evaluator's seed of already grounded signals (not queued);
        ``ignore_cooldown`` (an admin's force-generate) skips the giver's cooldown."""
        return self._evaluator.build_seed(parts, lead, importance, ignore_cooldown=ignore_cooldown)

    def held_before_plan(self, seed: QuestSeed) -> str | None:
        """The hold rule that would make ``seed`` wait before it is planned (the
        giver's day, the area's day), None if none."""
        return self._stages.holds.before_plan(seed, self._clock.game_time, others_waiting=False)

    def held_from(self, seed: QuestSeed, archetype: QuestArchetype) -> str | None:
        """The hold rule that keeps ``seed`` from a quest of ``archetype`` now (the
        threat gone, or claimed by an open quest), None if none."""
        return self._stages.holds.for_archetype(seed, archetype)

    def screen(self, seed: QuestSeed) -> Rejection | None:
        """None if the world that produced ``seed`` still holds, else why not."""
        return self._stages.screen.screen(seed)

    def region_full_at(self, room: str) -> bool:
        return self._stages.quotas.region_full_at(room)

    async def dry_run(self, seed: QuestSeed, archetype: QuestArchetype) -> QuestPlan | Rejection:
        """The builder's structural step for one archetype (nothing is queued)."""
        return await self._stages.plan.dry_run(seed, archetype)

    # -- open quests --------------------------------------------------------------------
    def open_quest(self, quest_id: str) -> OpenQuest | None:
        return self._stages.open_quests.get(quest_id)

    def open_quest_ids(self) -> list[str]:
        return list(self._stages.open_quests)

    def open_quests(self) -> dict[str, OpenQuest]:
        """The open generated quests by id (a copy)."""
        return dict(self._stages.open_quests)

    # -- reports ------------------------------------------------------------------------
    @property
    def settings(self) -> QuestGenerationConfig:
        return self._system.settings

    @property
    def metrics(self) -> QuestGenMetrics:
        return self._metrics

    def pending_seeds(self) -> list[QuestSeed]:
        return self._stages.queue.pending

    def in_flight_ids(self) -> set[UUID]:
        return self._stages.narrate.ids()

    def queue_depth(self) -> int:
        """Seeds waiting (queued or pending, not being built)."""
        return self._stages.queue.depth(self._stages.narrate)

    def signals_waiting(self) -> int:
        """Admitted signals not evaluated yet (a burst spread over ticks)."""
        return len(self._stages.intake.waiting)

    def build_records(self) -> list[BuildRecord]:
        """The last finished builds, oldest first."""
        return list(self._system.records)

    def rejections(self) -> list[RejectionRecord]:
        """The last rejections at every stage, with their reasons, oldest first."""
        return list(self._system.rejections)

    def throttle_state(self) -> ThrottleState:
        return self._stages.backpressure.state

    def throttle_snapshot(self) -> dict[str, Any]:
        return self._stages.backpressure.throttle.snapshot()

    def alert_ratios(self) -> tuple[float | None, float | None]:
        """(template fallback ratio, rejection ratio) over the alert window."""
        throttle = self._stages.backpressure.throttle
        return throttle.fallback_ratio(), throttle.rejection_ratio()

    def unaccepted_quests(self) -> int:
        st = self._stages
        return st.quotas.unaccepted(st.open_quests, st.deliveries.offers)

    def day_full(self) -> bool:
        """Has the rolling game day had ``max_quests_per_day`` generated quests?"""
        return self._stages.quotas.day_full(self._clock.game_time)

    def llm_status(self) -> dict[str, Any]:
        return self._system.llm.status()

    # -- delivery ----------------------------------------------------------------------
    def offer_cap(self, character: UUID) -> int:
        """Unanswered offers the character may hold (its preference lowers the cap)."""
        return self._stages.deliveries.cap_for(character)

    def would_offer_in_person(self, quest_id: str, character: UUID) -> bool:
        """Would the giver, met in person, offer the open quest to ``character``?
        (False for a quest that is not open.)"""
        oq = self._stages.open_quests.get(quest_id)
        if oq is None:
            return False
        return self._stages.deliveries.personalize(oq, character, in_person=True) is not None

    def pending_deliveries(self, character: UUID) -> dict[str, PendingDelivery]:
        return dict(self._stages.deliveries.pending(character))

    def conversation(self, character: UUID, npc: UUID, topic: str = "") -> list[str] | None:
        """The character talks to (or asks) ``npc``: the lines of rumors and quests
        that come up (None: nothing)."""
        return self._stages.deliveries.on_conversation(character, npc, topic)

    def notice_board_in(self, room: str | None) -> UUID | str | None:
        """The notice board of ``room``: an item, or the room itself when flagged."""
        return self._stages.deliveries.planner.board_in(room)

    def read_board(self, character: UUID) -> list[str]:
        """The character reads the board where they stand: its notices become offers."""
        return self._stages.deliveries.read_board(character)

    # -- the rules layer ----------------------------------------------------------------
    @property
    def offers(self) -> QuestOffers | None:
        """The rules layer's offers, once installed."""
        return self._stages.deliveries.offers

    def install_offers(self, offers: QuestOffers) -> bool:
        """Install the rules layer's offers (once; False if some already are)."""
        return self._stages.deliveries.install_offers(offers)

    def quest_accepted(self, quest_id: str, character: UUID) -> None:
        self._stages.lifecycle.accepted(quest_id, character, self._clock.game_time)

    def quest_turned_in(self, quest_id: str, outcome: str) -> None:
        """The situation is resolved: the quest is closed for new offers."""
        self._stages.lifecycle.turned_in(quest_id, outcome, self._clock.game_time)

    def record_play(self, character: UUID, style: PlayStyle, weight: float) -> None:
        """An action saying something about the character's play style."""
        self._tracker.record(character, style, weight)

    def record_quest_outcome(
        self,
        character: UUID,
        quest_id: str,
        archetype_id: str,
        giver: UUID | None,
        outcome: str,
        styles: tuple[PlayStyle, ...] = (),
    ) -> None:
        """A generated quest ended for the character; ``styles`` it exercised."""
        self._tracker.record_quest(character, quest_id, archetype_id, giver, outcome, styles)

    # -- world events ---------------------------------------------------------------------
    def character_moved(self, event: EntityRelocatedEvent) -> None:
        self._tracker.on_moved(event.entity_id, event.to_room, event.reason)
        self._stages.deliveries.on_relocated(event)

    def character_connected(self, character: UUID) -> None:
        self._tracker.connected(character)
        self._stages.deliveries.match(list(self._stages.open_quests), [character])

    def character_disconnected(self, character: UUID) -> None:
        self._tracker.disconnected(character)

    def preference_changed(self, character: UUID, preference: QuestPreference) -> None:
        self._tracker.set_preference(character, preference)
        if preference is QuestPreference.OFF:
            deliveries = self._stages.deliveries
            for quest_id in list(deliveries.pending(character)):
                deliveries.drop(character, quest_id)

    # -- background work ----------------------------------------------------------------
    async def drain(self) -> None:
        """Wait for every build in flight (the next tick collects them)."""
        await self._system.drain()

    async def flush(self) -> None:
        """Write the queued side-table documents now."""
        await self._system.flush()
