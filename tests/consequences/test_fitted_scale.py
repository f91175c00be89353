"""Success consequences scale with the work a quest was fitted to ask of its doer
(per-character difficulty); failure consequences do not."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest
from kits.engines import hamlet_engine, hv, qg_of
from kits.heroes import new_hero
from kits.quests import accept, applied_delta, deliver, simple_quest

from maid_stdlib.questgen.events import QuestFailedEvent, QuestTurnedInEvent
from maid_stdlib.questgen.scaling import DifficultyAdjustment
from maid_stdlib.questgen.vocabulary import FailReason, QuestOutcome, QuestState


def _fitted(hero: UUID, reward_factor: float) -> DifficultyAdjustment:
    return DifficultyAdjustment(
        characters=[hero],
        wanted=0.5,
        factor=0.5,
        time_factor=0.5,
        reward_factor=reward_factor,
        reason="level 1 against a moderate quest for level 4",
    )


async def test_half_the_work_moves_the_world_half_as_much(tmp_path: Path) -> None:
    async with hamlet_engine(tmp_path, rpg=True).lifespan() as engine:
        hollin = hv("hollin")
        hero, other = new_hero(engine), new_hero(engine, "Brin")
        quest_id = await deliver(engine, simple_quest(engine))
        await accept(engine, hero, quest_id)
        qg_of(engine).history.record_adjustment(quest_id, _fitted(hero, 0.5))
        engine.events.emit(QuestTurnedInEvent(quest_id, hero, QuestOutcome.COMPLETED))
        await engine.dispatch_events()
        # Hollin's trust +0.3 and the hamlet's standing +0.1, halved.
        assert applied_delta(engine, "relationship_change", hollin) == pytest.approx(0.15)
        assert applied_delta(engine, "faction_standing", hero, "hamlet") == pytest.approx(0.05)

        # Failing is not softened by the fitting: -0.1 trust as for anyone.
        quest_id = await deliver(engine, simple_quest(engine, "millers-second-errand"))
        await accept(engine, other, quest_id)
        qg_of(engine).history.record_adjustment(quest_id, _fitted(other, 0.5))
        engine.events.emit(
            QuestFailedEvent(
                quest_id,
                other,
                FailReason.FAILED,
                QuestOutcome.FAILED,
                "",
                QuestState.IN_PROGRESS,
            )
        )
        await engine.dispatch_events()
        assert applied_delta(engine, "relationship_change", hollin) == pytest.approx(-0.1)
