"""Holds: a seed that would be built only to be thrown away waits instead, without
spending an attempt -- one open quest per threat (builds in flight count), a
giver's share of the day, an area's day."""

from __future__ import annotations

import pytest
from kits.engines import metric, questgen_of
from questgen_system.qskit import pipeline_of, seed_for, ticks

from maid_engine.clock import GAME_HOUR, ManualClock
from maid_engine.engine import GameEngine
from maid_stdlib.questgen.quality import QuestQualityFilter


async def test_one_open_quest_per_threat_even_when_both_are_planned_at_once(
    quiet: GameEngine,
) -> None:
    system = questgen_of(quiet)
    first = seed_for(quiet, "pell")
    second = seed_for(quiet, "tamsin")  # the same wolves, another giver
    system.enqueue(first)
    system.enqueue(second)
    await ticks(quiet, 3)
    # Both waited in the same cycle: the second was held while the first was
    # being written, not built to stack its own wolves on the road.
    [record] = system.build_records()
    assert record.outcome == "registered"
    waiting = second if record.seed_id == first.id else first
    assert waiting in system.pending_seeds()
    assert waiting.attempt_count == 0
    assert system.rejections() == []
    assert metric(quiet, "maid_questgen_seed_holds_total", rule="threat_claimed") >= 1


def _after_an_hour(engine: GameEngine) -> None:
    assert isinstance(engine.clock, ManualClock)
    engine.clock.skip(GAME_HOUR + 60)  # past the giver's cooldown


async def test_a_giver_at_its_share_waits_while_another_giver_has_work(
    quiet: GameEngine,
) -> None:
    system = questgen_of(quiet)
    system.enqueue(seed_for(quiet, "pell"))
    await ticks(quiet, 3)
    assert len(system.build_records()) == 1
    _after_an_hour(quiet)
    again = seed_for(quiet, "pell", seed_type="goal_assistance")
    holds = pipeline_of(quiet).stages.holds
    now = quiet.clock.game_time
    # One quest of one today is all his share while someone else has work to give...
    assert holds.before_plan(again, now, others_waiting=True) == "giver_daily_cap"
    # ...and with nobody else, a second is allowed (the quality filter allows two).
    assert holds.before_plan(again, now, others_waiting=False) is None


async def test_an_area_with_its_day_of_quests_holds_the_next(
    quiet: GameEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = questgen_of(quiet)
    system.enqueue(seed_for(quiet, "pell"))
    await ticks(quiet, 3)
    monkeypatch.setattr(QuestQualityFilter, "MAX_SAME_AREA", 1)
    _after_an_hour(quiet)
    seed = seed_for(quiet, "marta", seed_type="goal_assistance")
    holds = pipeline_of(quiet).stages.holds
    assert holds.before_plan(seed, quiet.clock.game_time, others_waiting=False) == (
        "area_daily_cap"
    )


async def test_a_giver_keeps_to_its_share_while_another_giver_has_a_seed_in_any_state(
    quiet: GameEngine,
) -> None:
    system = questgen_of(quiet)
    pipeline = pipeline_of(quiet)
    queue = pipeline.stages.queue
    system.enqueue(seed_for(quiet, "pell"))
    await ticks(quiet, 3)
    _after_an_hour(quiet)
    again = seed_for(quiet, "pell", seed_type="goal_assistance")
    queue.enqueue(again)
    queue.drain_incoming(())
    now = quiet.clock.game_time
    assert not pipeline.others_have_work(again, now)
    # Nobody else has a seed: a short day lets Pell past his share, but only once
    # he has been alone for as long as the world may go without a quest (at dawn
    # the others' troubles come in hours later); a day that is not short never does.
    assert pipeline.keeps_to_share(again, now, short=True)
    assert pipeline.keeps_to_share(again, now, short=False)
    assert isinstance(quiet.clock, ManualClock)
    spell = pipeline.stages.quotas.quiet_spell()
    assert spell == 8 * GAME_HOUR  # a floor of two
    quiet.clock.skip(spell - 60)
    assert pipeline.keeps_to_share(again, quiet.clock.game_time, short=True)
    quiet.clock.skip(60)
    now = quiet.clock.game_time
    assert not pipeline.keeps_to_share(again, now, short=True)
    assert pipeline.keeps_to_share(again, now, short=False)
    other = seed_for(quiet, "marta", seed_type="goal_assistance")
    queue.enqueue(other)
    queue.drain_incoming(())
    assert pipeline.others_have_work(again, now)
    assert pipeline.keeps_to_share(again, now, short=True)
    # Marta's seed waiting out a retry is still her trouble: Pell keeps to his share
    # (a short day let the first giver with a seed at dawn give two of five).
    queue.schedule_retry(other, now)
    assert queue.backing_off(other, now)
    assert pipeline.others_have_work(again, now)
    # Pell, at his share already, is no one with work for Marta to wait for.
    assert not pipeline.others_have_work(other, now)


def test_items_open_quests_and_builds_in_flight_collect_are_claimed() -> None:
    """What a fetch may ask for leaves the items open quests (and builds being
    written) already send someone to collect: the claims hook counts them."""
    from types import SimpleNamespace
    from typing import Any, cast

    from maid_stdlib.questgen.pipeline.holds import SeedHolds
    from maid_stdlib.questgen.quest import QuestObjective
    from maid_stdlib.questgen.vocabulary import ObjectiveType

    def objective(kind: ObjectiveType, template: str, quantity: int) -> QuestObjective:
        return QuestObjective(
            objective_type=kind,
            description="x",
            target="x",
            item_template=template,
            quantity=quantity,
        )

    ore, timber = "pack:ore", "pack:timber"
    open_quest = SimpleNamespace(
        quest=SimpleNamespace(
            objectives=[
                objective(ObjectiveType.COLLECT, ore, 2),
                objective(ObjectiveType.DELIVER, ore, 2),  # the same lumps, not more
            ]
        )
    )
    plan = SimpleNamespace(objectives=[objective(ObjectiveType.COLLECT, ore, 1)])
    holds = SeedHolds(
        cast(Any, None),
        cast(Any, None),
        cast(Any, None),
        cast(Any, {"q1": open_quest}),
        lambda: cast(Any, [plan]),
    )
    assert holds.items_claimed(ore) == 3
    assert holds.items_claimed(timber) == 0
