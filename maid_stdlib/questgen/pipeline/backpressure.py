"""Backpressure: the AutoThrottle's inputs and decisions, and the system's gauges.

Each tick the throttle decides from the queue depth, the builds in flight and the
LLM budget whether this cycle runs template-only and how many quests it may
launch (:class:`~maid_stdlib.questgen.metrics.ThrottleState`). Every finished
build feeds it: latency and tokens when narrated, then built or rejected.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence

from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.metrics import AutoThrottle, QuestGenMetrics, ThrottleState
from maid_stdlib.questgen.narrative_context import QuestNarrative
from maid_stdlib.questgen.pipeline.results import Narrated

__all__ = ["NO_CALL", "Backpressure"]

#: Fallback reasons for which no LLM call was even attempted (no latency to count).
NO_CALL = frozenset({"template_only", "no_model", "budget_exhausted"})


class Backpressure:
    def __init__(
        self,
        settings: QuestGenerationConfig,
        metrics: QuestGenMetrics,
        monotonic: Callable[[], float],
    ) -> None:
        self._metrics = metrics
        self.throttle = AutoThrottle(settings.throttle_limits(), monotonic)
        self.state = ThrottleState(max_quests_per_cycle=settings.max_quests_per_cycle)
        self._grounding: deque[float] = deque(maxlen=50)

    def evaluate(self, depth: int, in_flight: int, llm_budget_exhausted: bool) -> ThrottleState:
        self.state = self.throttle.evaluate(depth, in_flight, llm_budget_exhausted)
        return self.state

    def narrated(self, narrated: Narrated) -> None:
        narrative = narrated.narrative
        if narrative.fallback_reason not in NO_CALL:
            self.throttle.record_latency(narrated.latency)
            self._metrics.latency(narrated.latency)
        self.throttle.record_tokens(narrative.tokens_used)

    def rejected(self, stage: str, rules: Sequence[str] = ()) -> None:
        self.throttle.record_rejection()
        self._metrics.rejected(stage, rules)

    def built(self, narrative: QuestNarrative, grounding_score: float) -> None:
        self.throttle.record_built(narrative.source == "template")
        self._metrics.built(narrative.source, narrative.fallback_reason)
        self._metrics.seed("built")
        self._grounding.append(grounding_score)

    def publish_gauges(
        self, depth: int, in_flight: int, chain_depths: Iterable[int], signals_in_window: int
    ) -> None:
        grounding = self._grounding
        avg = sum(grounding) / len(grounding) if grounding else 0.0
        throttle = self.throttle
        self._metrics.gauges(
            seed_queue_depth=depth,
            in_flight_builds=in_flight,
            token_budget_remaining=throttle.tokens.remaining(),
            llm_latency_p99=throttle.p99() or 0.0,
            template_fallback_ratio=throttle.fallback_ratio() or 0.0,
            rejection_ratio=throttle.rejection_ratio() or 0.0,
            signals_in_window=signals_in_window,
            grounding_score_avg=avg,
            chain_depth_max=max(chain_depths, default=0),
        )
        self._metrics.state(self.state)
