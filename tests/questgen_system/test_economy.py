"""The quest economy fixes: failed seeds retry with backoff instead of being
evicted within minutes, a daily cap, planning skips the archetypes the quality
filter's history rules would reject, and a third quest of one archetype in a row
is rejected."""

from __future__ import annotations

from pathlib import Path
from uuid import uuid4

import pytest
from kits.engines import metric, qg_of, questgen_of
from questgen_system.qskit import no_holds, pipeline_of, seed_for, started, ticks

from maid_engine.clock import GAME_DAY, GAME_HOUR, ManualClock
from maid_engine.engine import GameEngine
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.history import QuestHistory, QuestHistoryEntry
from maid_stdlib.questgen.quality import QuestQualityFilter
from maid_stdlib.questgen.rejection import Rejection


def clock(engine: GameEngine) -> ManualClock:
    assert isinstance(engine.clock, ManualClock)
    return engine.clock


def record(history: QuestHistory, archetype: str, now: float) -> str:
    """A past generated quest in the history (only what the rules read)."""
    quest_id = f"q-{uuid4().hex[:8]}"
    history._sequence += 1
    history._put(
        QuestHistoryEntry(
            quest_id=quest_id,
            seed_type="threat_response",
            archetype_id=archetype,
            quest_giver_id=uuid4(),
            created_at=now,
            sequence=history._sequence,
        )
    )
    return quest_id


async def test_a_failed_seed_retries_with_backoff_then_is_evicted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(
        tmp_path,
        QuestGenerationConfig(
            max_seed_attempts=3, seed_retry_backoff=1800.0, generation_interval=60.0
        ),
    ) as quiet:
        system = questgen_of(quiet)
        no_holds(quiet, monkeypatch)  # the missing threat is a build failure here
        # Nothing called "dragons" threatens the road: every build finds no targets.
        seed = seed_for(quiet, "pell", threat_source="dragons", importance=0.5)
        seed.expires_at = quiet.clock.game_time + 2 * GAME_DAY
        system.enqueue(seed)
        await ticks(quiet, 3)
        assert seed.attempt_count == 1  # no second try within minutes
        assert pipeline_of(quiet).stages.queue.backing_off(seed, quiet.clock.game_time)
        clock(quiet).skip(1800.0)
        await ticks(quiet, 2)
        assert seed.attempt_count == 2
        clock(quiet).skip(1800.0)  # the second wait is twice as long
        await ticks(quiet, 2)
        assert seed.attempt_count == 2
        clock(quiet).skip(1800.0)
        await ticks(quiet, 1)
        assert seed.attempt_count == 3  # three attempts spread over 1.5 game hours
        await ticks(quiet, 2)
        assert seed not in system.pending_seeds()
        assert metric(quiet, "maid_questgen_seeds_total", outcome="evicted_attempts") == 1


async def test_the_daily_cap_holds_seeds_back(tmp_path: Path) -> None:
    async with started(tmp_path, QuestGenerationConfig(max_quests_per_day=2)) as quiet:
        system = questgen_of(quiet)
        now = quiet.clock.game_time
        for _ in range(2):
            record(qg_of(quiet).history, "investigation", now - GAME_HOUR)
        quotas = pipeline_of(quiet).stages.quotas
        assert quotas.day_room(now, in_flight=0) == 0
        assert system.day_full()
        seed = seed_for(quiet, "pell", importance=0.5)
        system.enqueue(seed)
        await ticks(quiet, 3)
        assert seed.attempt_count == 0
        assert seed in system.pending_seeds()
        clock(quiet).skip(GAME_DAY)
        assert quotas.day_room(quiet.clock.game_time, in_flight=0) == 2


def test_the_daily_cap_is_five_by_default() -> None:
    assert QuestGenerationConfig().max_quests_per_day == 5


async def test_planning_skips_an_archetype_the_filter_would_reject(quiet: GameEngine) -> None:
    qg = qg_of(quiet)
    now = quiet.clock.game_time
    seed = seed_for(quiet, "pell", importance=0.5)
    ranked = [a.archetype_id for a in qg.ranked_archetypes(seed)]
    assert "threat_elimination" in ranked
    # Two combat quests in a row: a third would be combat fatigue.
    record(qg.history, "threat_elimination", now - 2 * GAME_HOUR)
    record(qg.history, "rescue_mission", now - GAME_HOUR)
    assert qg.quality_filter.archetype_blocked("threat_elimination") == ["combat_fatigue"]
    plan = await pipeline_of(quiet).stages.plan.plan(seed)
    assert isinstance(plan, Rejection) or plan.archetype.archetype_id != "threat_elimination"
    assert isinstance(plan, Rejection) or not qg.quality_filter.archetype_blocked(
        plan.archetype.archetype_id
    )


async def test_third_of_one_archetype_in_a_row_is_rejected(quiet: GameEngine) -> None:
    qg = qg_of(quiet)
    quality: QuestQualityFilter = qg.quality_filter
    now = quiet.clock.game_time
    record(qg.history, "investigation", now - 2 * GAME_HOUR)
    assert quality.archetype_blocked("investigation") == []
    record(qg.history, "investigation", now - GAME_HOUR)
    assert quality.archetype_blocked("investigation") == ["archetype_repetition"]
    assert quality.archetype_blocked("supply_chain") == []
    record(qg.history, "supply_chain", now)
    assert quality.archetype_blocked("investigation") == []
