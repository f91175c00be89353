"""Configuration and the signal gate of the QuestGenerationSystem.

Every limit of the system is a field of :class:`QuestGenerationConfig`, with the
design's values as defaults. Times are game seconds on the engine clock (no
tick counts, so the tick rate may change), except the token budget
and alert windows, which are monotonic seconds like the shared LLM limiter's.
"""

from __future__ import annotations

from collections import deque
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, model_validator

from maid_engine.clock import GAME_DAY, GAME_HOUR
from maid_stdlib.questgen.delivery import DeliveryPolicy
from maid_stdlib.questgen.metrics import ThrottleLimits
from maid_stdlib.questgen.signals import StorySignalLike, signal_type_of

__all__ = ["QuestGenerationConfig", "SignalGate"]


class QuestGenerationConfig(BaseModel):
    """Every limit of the system, with the design's values as defaults. Times are
    game seconds unless marked monotonic."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    generation_interval: float = Field(default=300.0, gt=0)
    urgent_importance: float = Field(default=0.85, ge=0, le=1)
    max_pending_quests: int = Field(default=10, ge=1)
    max_quests_per_cycle: int = Field(default=2, ge=1)
    reduced_quests_per_cycle: int = Field(default=1, ge=1)
    #: Failed builds before a seed is evicted. The attempts are spread over game
    #: time: after the n-th failure the seed waits ``seed_retry_backoff * 2**(n-1)``
    #: (30 min, 1 h, 2 h ...), so a persisting situation outlives a passing
    #: rejection (combat fatigue, a full day) that the story layer will not re-signal.
    max_seed_attempts: int = Field(default=5, ge=1)
    seed_retry_backoff: float = Field(
        default=1800.0, ge=0, description="game seconds before the first retry"
    )
    #: Generated quests in any rolling game day (a few a day: the aim is 2 to 5).
    max_quests_per_day: int | None = Field(default=5, ge=1)
    #: The daily floor: when fewer quests than this were generated in the rolling
    #: game day (less ``floor_lead``), or none for a ``1 / (floor + 1)`` part of a
    #: day, the generator widens its search -- signals it
    #: turned down, judged again at ``floor_importance``; the situations the story
    #: layer still sees; a giver over its share when nobody else has anything to
    #: give -- before the day ends. It only ever finds what the world holds: a
    #: world with no trouble stays quiet. 0 turns the floor off.
    min_quests_per_day: int = Field(default=2, ge=0)
    #: Game seconds before the rolling day's end at which the floor already acts:
    #: quests about to leave the window count as gone, so the search starts while
    #: there is still time to build.
    floor_lead: float = Field(default=4 * GAME_HOUR, ge=0, lt=GAME_DAY)
    #: The importance threshold of the floor's wider search (the evaluator's own is 0.4).
    floor_importance: float = Field(default=0.2, ge=0, le=1)
    #: Game seconds between two wider searches while the day stays short.
    floor_interval: float = Field(default=GAME_HOUR, gt=0)
    #: No giver gives more than this share of the quests of a rolling game day
    #: (one quest is always allowed) while another giver has a seed waiting: a seed of a giver at
    #: its share waits (held, ``giver_daily_cap``). With nothing else to build, a day
    #: short of its floor lets a giver go past it.
    max_giver_share: float = Field(default=0.3, gt=0, le=1)
    #: Seeds waiting to be built. Larger than the design's 10 on purpose: failed
    #: seeds now wait hours between attempts and a quiet day reaches for the less
    #: important ones, so a world with several independent troubles keeps more
    #: than ten live situations waiting; evicting them loses work the story layer
    #: will not signal again. Seed expiry and the daily cap bound the stockpile.
    max_pending_seeds: int = Field(default=50, ge=1)
    signal_dedup_window: float = Field(default=60.0, ge=0)
    global_signal_window: float = Field(default=300.0, gt=0)
    global_signal_max: int = Field(default=30, ge=1)
    compose_window: float = Field(default=12 * GAME_HOUR, ge=0)
    compose_max_signals: int = Field(default=40, ge=1)
    #: A burst of admitted signals is evaluated within this many game seconds,
    #: at least ``signals_per_tick`` a tick (0: all at once, as they arrive).
    signal_spread: float = Field(default=60.0, ge=0)
    signals_per_tick: int = Field(default=1, ge=1)
    #: A burst's signals are composed together, this many at most at once (each
    #: signal's compound held all the burst's signals before it, and was
    #: superseded by the next at once). 1: each signal as its turn comes.
    compose_batch: int = Field(default=8, ge=1)
    #: A new quest is matched to the characters online within this many game
    #: seconds, at least ``deliveries_per_tick`` of them a tick (0: all at once):
    #: matching it to 200 players in one tick was a 25 ms tick.
    delivery_spread: float = Field(default=24.0, ge=0)
    deliveries_per_tick: int = Field(default=16, ge=1)
    #: A launch cycle plans at most this many seeds a tick (a plan is 10-25 ms in
    #: a big world); the rest of the cycle goes on over the next ticks. A tick
    #: ``signal_spread`` long or longer (a simulation's) plans its whole cycle at
    #: once, as the daily floor's search judges all its signals.
    plans_per_tick: int = Field(default=1, ge=1)
    max_concurrent_builds: int = Field(default=3, ge=1)
    build_timeout: float = Field(default=30.0, gt=0, description="wall seconds for both LLM calls")
    token_budget_window: float = Field(default=3600.0, gt=0, description="monotonic seconds")
    token_budget_limit: int = Field(default=15_000, ge=0)
    queue_spike_threshold: int = Field(default=20, ge=1)
    queue_spike_recover: int = Field(default=10, ge=0)
    latency_p99_threshold: float = Field(default=20.0, gt=0)
    alert_window: float = Field(default=3600.0, gt=0, description="monotonic seconds")
    fallback_alert_ratio: float = Field(default=0.5, ge=0, le=1)
    rejection_alert_ratio: float = Field(default=0.8, ge=0, le=1)
    max_active_quests_per_region: int = Field(default=3, ge=1)
    max_pending_offers_per_player: int = Field(default=2, ge=0)
    min_match_score: float = Field(default=0.3, ge=0)
    active_quest_damping_at: int = Field(default=3, ge=1)
    active_quest_damping: float = Field(default=0.5, ge=0, le=1)
    play_style_half_life: float = Field(default=3 * GAME_DAY, gt=0)
    notice_board_keywords: tuple[str, ...] = ("noticeboard",)
    notice_board_templates: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _floor_below_cap(self) -> QuestGenerationConfig:
        cap = self.max_quests_per_day
        if cap is not None and self.min_quests_per_day > cap:
            raise ValueError(
                f"min_quests_per_day ({self.min_quests_per_day}) is above "
                f"max_quests_per_day ({cap})"
            )
        return self

    def giver_at_share(self, given: int, day_total: int) -> bool:
        """Would one more quest from a giver who gave ``given`` of the rolling day's
        ``day_total`` put it over ``max_giver_share`` (one quest is always allowed)?"""
        return given + 1 > max(1.0, self.max_giver_share * (day_total + 1))

    def throttle_limits(self) -> ThrottleLimits:
        return ThrottleLimits(
            self.max_concurrent_builds,
            self.max_quests_per_cycle,
            self.reduced_quests_per_cycle,
            self.token_budget_limit,
            self.token_budget_window,
            self.queue_spike_threshold,
            self.queue_spike_recover,
            self.latency_p99_threshold,
            alert_window=self.alert_window,
            fallback_alert_ratio=self.fallback_alert_ratio,
            rejection_alert_ratio=self.rejection_alert_ratio,
        )

    def delivery_policy(self) -> DeliveryPolicy:
        return DeliveryPolicy(
            self.max_pending_offers_per_player,
            self.min_match_score,
            board_keywords=self.notice_board_keywords,
            board_templates=self.notice_board_templates,
        )


class SignalGate:
    """The signal throttle on game time: a world-wide cap of ``global_max``
    accepted signals per ``global_window``, then suppression of repeats of one
    (signal type, first NPC) within ``dedup_window``."""

    def __init__(self, dedup_window: float, global_window: float, global_max: int) -> None:
        self.dedup_window, self.global_window, self.global_max = (
            dedup_window,
            global_window,
            global_max,
        )
        self._seen: dict[tuple[str, UUID | None], float] = {}
        self._accepted: deque[float] = deque()

    def in_window(self, now: float) -> int:
        while self._accepted and now - self._accepted[0] >= self.global_window:
            self._accepted.popleft()
        return len(self._accepted)

    def admit(self, signal: StorySignalLike, now: float) -> str:
        """ "accepted", "throttled" (world-wide cap) or "duplicate"."""
        if self.in_window(now) >= self.global_max:
            return "throttled"
        npcs = list(signal.involved_npcs)
        key = (signal_type_of(signal), npcs[0] if npcs else None)
        last = self._seen.get(key)
        if last is not None and now - last < self.dedup_window:
            return "duplicate"
        self._seen[key] = now
        self._accepted.append(now)
        if len(self._seen) > 4096:
            self._seen = {k: t for k, t in self._seen.items() if now - t < self.dedup_window}
        return "accepted"
