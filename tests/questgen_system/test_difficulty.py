"""Per-character difficulty end to end: one generated quest, accepted by a
novice and by a veteran, fitted to each, recorded, paid in proportion."""

from __future__ import annotations

import math
from uuid import UUID

import pytest
from kits.engines import qg_of, qm, questgen_of
from questgen_system.qskit import online, seed_for, until

from admin.quest_state import QuestOps
from admin.quest_views import inspect_lines
from classic_rpg.questgen.challenge import EFFORT_PER_LEVEL, min_level, recommended_level
from classic_rpg.questgen.terms import rpg_terms
from maid_engine.engine import GameEngine
from maid_stdlib.questgen import GeneratedQuest, ObjectiveType


async def _built(engine: GameEngine) -> GeneratedQuest:
    system = questgen_of(engine)
    seed = seed_for(engine, "tamsin")
    seed.urgency = 1.0  # an urgent seed: its quest has a deadline
    system.enqueue(seed)
    await until(engine, lambda: bool(system.open_quests()))
    [oq] = system.open_quests().values()
    return oq.quest


async def _accept(engine: GameEngine, name: str, level: int, quest_id: str) -> UUID:
    hero, _ = await online(engine, name, level=level)
    manager = qm(engine)
    manager.offer_quest(hero, quest_id)
    await manager.accept_quest(hero, quest_id)
    return hero


async def test_a_novice_and_a_veteran_get_the_same_quest_fitted_to_them(
    quiet: GameEngine,
) -> None:
    quest = await _built(quiet)
    counted = [o for o in quest.objectives if o.quantity > 1]
    assert counted
    assert counted[0].objective_type is ObjectiveType.KILL
    kill = counted[0]
    assert quest.time_limit, "the wolf quest has a deadline"
    rec = recommended_level(quest.difficulty)
    lowest = min_level(quest.difficulty)
    novice = await _accept(quiet, "Novice", lowest, quest.id)
    veteran = await _accept(quiet, "Veteran", rec + 5, quest.id)
    manager, history = qm(quiet), qg_of(quiet).history

    low = history.adjustment_of(quest.id, novice)
    high = history.adjustment_of(quest.id, veteran)
    assert low is not None
    assert high is not None
    # The lowest level allowed: a quarter less work per level under, more time.
    effort = 1.0 + EFFORT_PER_LEVEL * (lowest - rec)
    assert effort < 1.0
    assert (low.wanted, low.factor, low.time_factor) == (effort, effort, effort)
    assert low.reason == (
        f"level {lowest} against a {quest.difficulty.value} quest for level {rec}"
    )
    assert low.counts[kill.id] == max(1, math.ceil(kill.quantity * effort - 0.5))
    assert low.counts[kill.id] < kill.quantity
    assert low.time_limit == pytest.approx(quest.time_limit / effort)
    # Five levels over: the real foes cap the count, the deadline tightens.
    assert high.factor == 1.5
    assert kill.id not in high.counts
    assert high.wanted > 1.5
    assert high.time_limit == pytest.approx(quest.time_limit / 1.5)
    assert {(t.what, t.note) for t in high.terms} >= {
        (f"count of {kill.id}", f"capped: only {kill.quantity} exist")
    }

    # What the QuestManager asks of each, and pays them.
    base = manager.get_quest(quest.id)
    assert base is not None
    low_q = manager.quest_for(manager.entry(novice, quest.id))  # type: ignore[arg-type]
    high_q = manager.quest_for(manager.entry(veteran, quest.id))  # type: ignore[arg-type]
    assert low_q is not None
    assert high_q is not None
    assert low_q.objective(kill.id).target_count == low.counts[kill.id]  # type: ignore[union-attr]
    assert high_q.objective(kill.id).target_count == kill.quantity  # type: ignore[union-attr]
    assert base.objective(kill.id).target_count == kill.quantity  # type: ignore[union-attr]
    assert low_q.time_limit_seconds == pytest.approx(quest.time_limit * 3600 / effort)
    assert high_q.time_limit_seconds == pytest.approx(quest.time_limit * 3600 / 1.5)
    experience = rpg_terms(quest).experience
    assert low_q.rewards.experience == math.floor(experience * low.reward_factor + 0.5)
    assert low_q.rewards.gold == math.floor(quest.rewards.gold * low.reward_factor + 0.5)
    assert low.reward_factor < 1.0
    assert high.reward_factor == 1.0
    assert high_q.rewards == base.rewards
    # The history's work factor (success consequences scale by it) follows.
    assert history.work_factor(quest.id, [novice]) == low.reward_factor
    assert history.work_factor(quest.id, [veteran]) == 1.0

    # @quest inspect shows both fittings, what changed and why.
    lines = await inspect_lines(QuestOps(quiet), quest)
    tier = quest.difficulty.value
    assert "Fitted to characters: 2" in lines
    assert (
        f"  - Novice: work x{effort:.2f}, time /{effort:.2f}, rewards "
        f"x{low.reward_factor:.2f}; level {lowest} against a {tier} quest for level {rec}"
    ) in lines
    assert f"      count of {kill.id}: {kill.quantity} -> {low.counts[kill.id]}" in lines
    assert (
        f"  - Veteran: work x1.50, wanted x{high.wanted:.2f}, time /1.50, rewards x1.00; "
        f"level {rec + 5} against a {tier} quest for level {rec}"
    ) in lines
    assert (
        f"      count of {kill.id}: {kill.quantity} -> {kill.quantity} "
        f"(capped: only {kill.quantity} exist)"
    ) in lines
    assert any(line.startswith("      time limit (hours): ") for line in lines)
