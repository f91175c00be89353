"""What consequences write into the world reads as English: the topic of a plea
nobody answered is a noun phrase, and the situation a choice leaves behind is
never a pair of names pasted as a topic."""

from __future__ import annotations

import uuid
from typing import Any

from maid_stdlib.consequences.chains import situation_of
from maid_stdlib.living.components import Goal
from maid_stdlib.questgen import DifficultyTier, QuestSeedTypes
from maid_stdlib.questgen.consequences import help_topic
from maid_stdlib.questgen.quest import QuestObjective
from maid_stdlib.questgen.seed import QuestSeed, seed_expiry
from maid_stdlib.questgen.vocabulary import ObjectiveType


def _seed(**fields: Any) -> QuestSeed:
    base: dict[str, Any] = {
        "seed_type": QuestSeedTypes.GOAL_ASSISTANCE,
        "importance": 0.5,
        "primary_npc": uuid.uuid4(),
        "primary_npc_motivation": "m",
        "location": "hamlet:mill",
        "backstory": "b",
        "tension": "t",
        "stakes": "s",
        "estimated_difficulty": DifficultyTier.EASY,
        "estimated_duration_minutes": 30,
        "created_at": 0.0,
        "expires_at": seed_expiry(0.0, 0.0),
    }
    base.update(fields)
    return QuestSeed(**base)


def test_a_plea_nobody_answered_names_its_topic_as_a_noun_phrase() -> None:
    assert help_topic(_seed(threat_source="bandits"), None) == " with the bandits"
    assert help_topic(_seed(subject="the mill dispute"), None) == " with the mill dispute"
    clause = "Mara Reed blames the guard for leaving the road to the bandits"
    assert help_topic(_seed(subject=clause), None) == ""
    goal = Goal(id="get_iron", description="Source quality iron", need="economic")
    assert help_topic(_seed(subject=clause), goal) == " to source quality iron"
    assert help_topic(_seed(subject="follow_up"), None) == ""


class _NoFacts:
    def goal(self, npc: object, key: object) -> None:
        return None


def test_a_choice_leaves_the_choice_behind_not_two_names() -> None:
    choice = QuestObjective(
        objective_type=ObjectiveType.CUSTOM,
        description="Choose whether to back Mara Reed or Warden Tamsin",
        target="Mara Reed or Warden Tamsin",
        order=2,
        choice=True,
    )

    class _Quest:
        consequences: list[object] = []
        objectives = [choice]

    found = situation_of(_Quest(), _NoFacts())  # type: ignore[arg-type]
    assert found == "the choice between Mara Reed and Warden Tamsin"
