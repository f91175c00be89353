"""How many seeds wait: ``max_pending_seeds`` is 50, not the design's 10.

Seeds are no longer built or thrown away within a cycle: a failed seed waits out a
backoff of hours between its attempts, and a quiet day's search for work reaches
for the lower-importance seeds still waiting. A world with a dozen NPCs and a few
independent troubles has more than ten live situations at once; a pool of ten
evicts the least important of them while they still hold (the story layer does
not signal an ongoing situation again), so a quiet day has nothing left to build.
Stockpiling is bounded by seed expiry and the daily quest cap instead."""

from __future__ import annotations

import uuid

from maid_stdlib.questgen import BasicSignal, DifficultyTier, QuestSeedTypes
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.metrics import QuestGenMetrics
from maid_stdlib.questgen.pipeline.queue import SeedQueue
from maid_stdlib.questgen.seed import QuestSeed, seed_expiry


def seed(importance: float) -> QuestSeed:
    giver = uuid.uuid4()
    return QuestSeed(
        # each from its own situation's signal (no seed supersedes another)
        source_signals=[BasicSignal("GOAL_BLOCKED", importance, [giver])],
        seed_type=QuestSeedTypes.GOAL_ASSISTANCE,
        importance=importance,
        primary_npc=giver,
        primary_npc_motivation="m",
        location="hamlet:mill",
        backstory="b",
        tension="t",
        stakes="s",
        estimated_difficulty=DifficultyTier.EASY,
        estimated_duration_minutes=30,
        created_at=0.0,
        expires_at=seed_expiry(0.0, 0.0),
    )


def waiting_after_eviction(config: QuestGenerationConfig, count: int) -> list[QuestSeed]:
    queue = SeedQueue(config, QuestGenMetrics(None))
    seeds = [seed(0.4 + 0.5 * n / count) for n in range(count)]
    for s in seeds:
        queue.enqueue(s)
    queue.drain_incoming(set())
    for s in seeds:  # every one failed once and waits out its backoff
        s.attempt_count = 1
        queue.schedule_retry(s, 0.0)
    queue.evict(60.0, set())
    return queue.pending


def test_a_dozen_live_situations_all_keep_their_seeds() -> None:
    config = QuestGenerationConfig()
    assert config.max_pending_seeds == 50
    kept = waiting_after_eviction(config, 20)
    assert len(kept) == 20
    # The design's 10 would have dropped the least important half: the quiet-day
    # work the generator reaches for last.
    design = waiting_after_eviction(QuestGenerationConfig(max_pending_seeds=10), 20)
    assert len(design) == 10
    assert min(s.importance for s in design) > min(s.importance for s in kept)


def test_the_pool_is_still_bounded() -> None:
    kept = waiting_after_eviction(QuestGenerationConfig(), 80)
    assert len(kept) == 50
    assert min(s.importance for s in kept) > 0.4
