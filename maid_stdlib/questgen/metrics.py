"""Telemetry and auto-throttle of quest generation.

:class:`QuestGenMetrics` puts the designed metrics on the engine's Prometheus
registry, named by Prometheus conventions (``maid_questgen_`` prefix, base units,
``_total`` added to counters by the client library, ``_ratio`` for fractions):

=============================================  ======================================
design name                                    here
=============================================  ======================================
``quest_gen.seed_queue_depth``                 ``maid_questgen_seed_queue_depth``
``quest_gen.in_flight_builds``                 ``maid_questgen_in_flight_builds``
``quest_gen.llm_latency_p99``                  ``maid_questgen_llm_latency_seconds`` (histogram)
                                               and ``maid_questgen_llm_latency_p99_seconds``
``quest_gen.token_budget_remaining``           ``maid_questgen_token_budget_remaining_tokens``
``quest_gen.template_fallback_rate``           ``maid_questgen_template_fallbacks_total{reason}``,
                                               ``maid_questgen_template_fallback_ratio``
``quest_gen.rejection_rate``                   ``maid_questgen_rejections_total{stage}``,
                                               ``maid_questgen_rejection_ratio``
``quest_gen.global_signal_rate``               ``maid_questgen_signals_total{outcome}``,
                                               ``maid_questgen_signals_in_window``
``quest_gen.grounding_score_avg``              ``maid_questgen_grounding_score_avg``
``quest_gen.chain_depth_max``                  ``maid_questgen_chain_depth_max``
=============================================  ======================================

plus ``maid_questgen_quests_built_total{narrative}``, ``maid_questgen_offers_total{method}``,
``maid_questgen_seeds_total{outcome}``, what was turned down or held back and why
(``maid_questgen_rejection_rules_total{stage,rule}`` for builds,
``maid_questgen_signal_rejections_total{rule}`` for signals no seed was made of,
``maid_questgen_seed_holds_total{rule}`` for generation cycles a seed waited
without an attempt, ``maid_questgen_seeds_dropped_total{rule}`` for seeds the world
no longer supports), the seeds the daily floor's wider search found
(``maid_questgen_floor_seeds_total{source}``), and the state of every automatic action as
``maid_questgen_throttle_active{action}`` / ``maid_questgen_alert_active{alert}``.

:class:`AutoThrottle` takes these automatic actions: template-only mode on
a queue spike (with hysteresis, so it does not flap) or when the rolling token
budget is spent, one quest per cycle while the LLM's p99 latency is above its
threshold, no launches at the concurrency cap, and alerts (a logged warning and a
gauge) when the template-fallback or rejection ratio over the alert window is too
high. Its windows run on the engine's monotonic clock, like the shared LLM
limiter: they measure the LLM service, which works in real time.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from maid_engine.llm.limiter import TokenBudget
from maid_stdlib.questgen.narrative.generator import FallbackReason
from maid_stdlib.questgen.vocabulary import QuestDeliveryMethod

if TYPE_CHECKING:
    from maid_engine.metrics import EngineMetrics

__all__ = ["AutoThrottle", "QuestGenMetrics", "ThrottleLimits", "ThrottleState"]

log = logging.getLogger("maid.questgen.metrics")

LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0)
ACTIONS = (
    "template_only_queue_spike",
    "template_only_token_budget",
    "template_only_llm_budget",
    "reduced_cycle",
    "launches_blocked",
)
ALERTS = ("template_fallback_rate", "rejection_rate")
# The label values the code below can produce, exposed at zero from start-up so a
# dashboard over a quiet server shows 0 rather than "No data".
NARRATIVES = ("llm", "template")
FALLBACK_REASONS = (*(reason.value for reason in FallbackReason), "unknown")
REJECTION_STAGES = (
    "intake",
    "evaluate",
    "plan",
    "screen",
    "validation",
    "quality",
    "region_density",
    "register",
    "no_sink",
)
#: Where the daily floor's wider search finds seeds: signals turned down earlier,
#: judged again at the floor's importance threshold, and situations the story layer
#: still sees (needs and troubles that outlived their first signal).
FLOOR_SOURCES = ("turned_down", "live_situation")
SIGNAL_OUTCOMES = ("accepted", "duplicate", "throttled")
SEED_OUTCOMES = (
    "queued",
    "built",
    "superseded",
    "stale",
    "evicted_expired",
    "evicted_attempts",
    "evicted_overflow",
)


class QuestGenMetrics:
    """The metrics on ``engine.metrics`` (a no-op holder when it is None)."""

    def __init__(self, metrics: EngineMetrics | None) -> None:
        self.enabled = metrics is not None
        if metrics is None:
            return
        m = metrics
        self.seed_queue_depth = m.gauge(
            "maid_questgen_seed_queue_depth", "Quest seeds waiting to be built"
        )
        self.in_flight_builds = m.gauge(
            "maid_questgen_in_flight_builds", "Quest builds running in the background"
        )
        self.llm_latency = m.histogram(
            "maid_questgen_llm_latency_seconds",
            "Wall time of quest narrative generation that asked the LLM",
            buckets=LATENCY_BUCKETS,
        )
        self.llm_latency_p99 = m.gauge(
            "maid_questgen_llm_latency_p99_seconds",
            "99th percentile of recent quest narrative LLM latency",
        )
        self.token_budget_remaining = m.gauge(
            "maid_questgen_token_budget_remaining_tokens",
            "Tokens left in quest generation's rolling token budget",
        )
        self.quests_built = m.counter(
            "maid_questgen_quests_built",
            "Generated quests registered",
            ["narrative"],
            known=NARRATIVES,
        )
        self.template_fallbacks = m.counter(
            "maid_questgen_template_fallbacks",
            "Quests whose prose came from templates",
            ["reason"],
            known=FALLBACK_REASONS,
        )
        self.template_fallback_ratio = m.gauge(
            "maid_questgen_template_fallback_ratio",
            "Share of quests built from templates over the alert window",
        )
        self.rejections = m.counter(
            "maid_questgen_rejections",
            "Quests rejected, by pipeline stage",
            ["stage"],
            known=REJECTION_STAGES,
        )
        self.rejection_rules = m.counter(
            "maid_questgen_rejection_rules",
            "Quests rejected, by stage and the named rule that said no",
            ["stage", "rule"],
        )
        self.signal_rejections = m.counter(
            "maid_questgen_signal_rejections",
            "Story signals no quest seed was made of, by the named rule that said no",
            ["rule"],
        )
        self.seed_holds = m.counter(
            "maid_questgen_seed_holds",
            "Generation cycles a seed waited without a build attempt, by the rule",
            ["rule"],
        )
        self.seeds_dropped = m.counter(
            "maid_questgen_seeds_dropped",
            "Seeds dropped because the world no longer supports them, by the rule",
            ["rule"],
        )
        self.floor_seeds = m.counter(
            "maid_questgen_floor_seeds",
            "Seeds the daily floor's wider search found, by where it looked",
            ["source"],
            known=FLOOR_SOURCES,
        )
        self.rejection_ratio = m.gauge(
            "maid_questgen_rejection_ratio",
            "Share of finished builds rejected over the alert window",
        )
        self.signals = m.counter(
            "maid_questgen_signals",
            "Story signals seen by quest generation",
            ["outcome"],
            known=SIGNAL_OUTCOMES,
        )
        self.signals_in_window = m.gauge(
            "maid_questgen_signals_in_window", "Signals accepted in the global signal window"
        )
        self.grounding_score_avg = m.gauge(
            "maid_questgen_grounding_score_avg", "Rolling average grounding score"
        )
        self.chain_depth_max = m.gauge(
            "maid_questgen_chain_depth_max", "Deepest chain among open generated quests"
        )
        self.offers = m.counter(
            "maid_questgen_offers",
            "Generated quests offered to characters",
            ["method"],
            known=[method.value for method in QuestDeliveryMethod],
        )
        self.seeds = m.counter(
            "maid_questgen_seeds", "What became of quest seeds", ["outcome"], known=SEED_OUTCOMES
        )
        self.throttle_active = m.gauge(
            "maid_questgen_throttle_active",
            "Automatic throttle actions in force (1/0)",
            ["action"],
            known=ACTIONS,
        )
        self.alert_active = m.gauge(
            "maid_questgen_alert_active",
            "Quest generation alerts raised (1/0)",
            ["alert"],
            known=ALERTS,
        )

    # Every recorder is a no-op without a registry, so callers never check.
    def signal(self, outcome: str) -> None:
        if self.enabled:
            self.signals.labels(outcome).inc()

    def seed(self, outcome: str) -> None:
        if self.enabled:
            self.seeds.labels(outcome).inc()

    def rejected(self, stage: str, rules: Sequence[str] = ()) -> None:
        if self.enabled:
            self.rejections.labels(stage).inc()
            for rule in rules:
                self.rejection_rules.labels(stage, rule).inc()

    def signal_rejected(self, rules: Sequence[str]) -> None:
        if self.enabled:
            for rule in rules:
                self.signal_rejections.labels(rule).inc()

    def held(self, rules: Sequence[str]) -> None:
        if self.enabled:
            for rule in rules:
                self.seed_holds.labels(rule).inc()

    def dropped(self, rule: str) -> None:
        if self.enabled:
            self.seeds_dropped.labels(rule).inc()

    def floor_seed(self, source: str) -> None:
        if self.enabled:
            self.floor_seeds.labels(source).inc()

    def built(self, narrative: str, fallback_reason: str | None) -> None:
        if not self.enabled:
            return
        self.quests_built.labels(narrative).inc()
        if narrative == "template":
            self.template_fallbacks.labels(fallback_reason or "unknown").inc()

    def offered(self, method: str) -> None:
        if self.enabled:
            self.offers.labels(method).inc()

    def latency(self, seconds: float) -> None:
        if self.enabled:
            self.llm_latency.observe(seconds)

    def gauges(self, **values: float) -> None:
        if not self.enabled:
            return
        for name, value in values.items():
            getattr(self, name).set(value)

    def state(self, state: ThrottleState) -> None:
        if not self.enabled:
            return
        for action in ACTIONS:
            self.throttle_active.labels(action).set(1.0 if action in state.actions else 0.0)
        for alert in ALERTS:
            self.alert_active.labels(alert).set(1.0 if alert in state.alerts else 0.0)


@dataclass(frozen=True)
class ThrottleLimits:
    """The thresholds (the system's config passes its values)."""

    max_concurrent_builds: int = 3
    max_quests_per_cycle: int = 2
    reduced_quests_per_cycle: int = 1
    token_budget_limit: int = 15_000
    token_budget_window: float = 3600.0
    queue_spike_threshold: int = 20
    queue_spike_recover: int = 10
    latency_p99_threshold: float = 20.0
    latency_samples: int = 100
    alert_window: float = 3600.0
    fallback_alert_ratio: float = 0.5
    rejection_alert_ratio: float = 0.8
    alert_min_samples: int = 4


@dataclass
class ThrottleState:
    """What the throttle decided for one generation cycle."""

    template_only: bool = False
    #: "queue_spike", "token_budget" or "llm_budget" when template_only.
    reason: str | None = None
    max_quests_per_cycle: int = 2
    launches_blocked: bool = False
    actions: set[str] = field(default_factory=set)
    alerts: set[str] = field(default_factory=set)


class AutoThrottle:
    def __init__(self, limits: ThrottleLimits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self.clock = clock
        self.tokens = TokenBudget(limits.token_budget_limit, limits.token_budget_window, clock)
        self.queue_spike = False
        self._latencies: deque[tuple[float, float]] = deque(maxlen=limits.latency_samples)
        self._built: deque[tuple[float, bool]] = deque()
        self._finished: deque[tuple[float, bool]] = deque()
        self._alerts: set[str] = set()

    # -- recording ------------------------------------------------------------------
    def record_tokens(self, tokens: int) -> None:
        """Real usage reported by the provider for one build (0 for templates)."""
        self.tokens.record(tokens)

    def record_latency(self, seconds: float) -> None:
        self._latencies.append((self.clock(), seconds))

    def record_built(self, template: bool) -> None:
        now = self.clock()
        self._built.append((now, template))
        self._finished.append((now, False))

    def record_rejection(self) -> None:
        self._finished.append((self.clock(), True))

    # -- the windows ----------------------------------------------------------------
    def _prune(self) -> None:
        cutoff = self.clock() - self.limits.alert_window
        for window in (self._built, self._finished):
            while window and window[0][0] <= cutoff:
                window.popleft()

    def p99(self) -> float | None:
        """Nearest-rank 99th percentile of the latencies in the alert window."""
        cutoff = self.clock() - self.limits.alert_window
        values = sorted(s for t, s in self._latencies if t > cutoff)
        if not values:
            return None
        return values[max(0, math.ceil(0.99 * len(values)) - 1)]

    def fallback_ratio(self) -> float | None:
        self._prune()
        if not self._built:
            return None
        return sum(1 for _, template in self._built if template) / len(self._built)

    def rejection_ratio(self) -> float | None:
        self._prune()
        if not self._finished:
            return None
        return sum(1 for _, rejected in self._finished if rejected) / len(self._finished)

    # -- deciding -------------------------------------------------------------------
    def evaluate(
        self,
        queue_depth: int,
        in_flight: int,
        llm_budget_exhausted: bool = False,
    ) -> ThrottleState:
        limits = self.limits
        # Hysteresis: enter above the threshold, leave only once the backlog has
        # drained to the recovery level, so one seed more or less does not flap.
        if queue_depth > limits.queue_spike_threshold:
            self.queue_spike = True
        elif queue_depth <= limits.queue_spike_recover:
            self.queue_spike = False
        state = ThrottleState(max_quests_per_cycle=limits.max_quests_per_cycle)
        if self.queue_spike:
            state.template_only, state.reason = True, "queue_spike"
            state.actions.add("template_only_queue_spike")
        if self.tokens.exhausted:
            state.actions.add("template_only_token_budget")
            if not state.template_only:
                state.template_only, state.reason = True, "token_budget"
        if llm_budget_exhausted:
            state.actions.add("template_only_llm_budget")
            if not state.template_only:
                state.template_only, state.reason = True, "llm_budget"
        p99 = self.p99()
        if p99 is not None and p99 > limits.latency_p99_threshold:
            state.max_quests_per_cycle = min(
                limits.max_quests_per_cycle, limits.reduced_quests_per_cycle
            )
            state.actions.add("reduced_cycle")
        if in_flight >= limits.max_concurrent_builds:
            state.launches_blocked = True
            state.actions.add("launches_blocked")
        state.alerts = self._check_alerts()
        return state

    def _check_alerts(self) -> set[str]:
        limits = self.limits
        alerts: set[str] = set()
        fallback = self.fallback_ratio()
        if (
            fallback is not None
            and len(self._built) >= limits.alert_min_samples
            and fallback > limits.fallback_alert_ratio
        ):
            alerts.add("template_fallback_rate")
        rejection = self.rejection_ratio()
        if (
            rejection is not None
            and len(self._finished) >= limits.alert_min_samples
            and rejection > limits.rejection_alert_ratio
        ):
            alerts.add("rejection_rate")
        for alert in alerts - self._alerts:
            log.warning(
                "quest generation alert: %s (template fallback ratio %s, rejection "
                "ratio %s over the last %g s)",
                alert,
                _fmt(fallback),
                _fmt(rejection),
                limits.alert_window,
            )
        for alert in self._alerts - alerts:
            log.info("quest generation alert cleared: %s", alert)
        self._alerts = alerts
        return set(alerts)

    def snapshot(self) -> dict[str, Any]:
        """For ``@quest backpressure``."""
        return {
            "token_budget_limit": self.tokens.limit,
            "token_budget_used": self.tokens.used(),
            "token_budget_remaining": self.tokens.remaining(),
            "token_budget_recovers_in": self.tokens.seconds_until_recovery(),
            "queue_spike": self.queue_spike,
            "llm_latency_p99": self.p99(),
            "template_fallback_ratio": self.fallback_ratio(),
            "rejection_ratio": self.rejection_ratio(),
            "alerts": sorted(self._alerts),
        }


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
