"""The steps of a quest as its prose reads them: joined in one sentence, goods just
obtained are "it" in the step that delivers them; a step said alone keeps its words."""

from __future__ import annotations

from questgen.qgkit import Town, goal_signal, threat_signal

from maid_stdlib.questgen.narrative.story import story_facts
from maid_stdlib.questgen.quest import QuestObjective
from maid_stdlib.questgen.vocabulary import ObjectiveType


async def test_a_delivery_after_the_obtaining_reads_it_only_in_the_joined_steps(
    town: Town,
) -> None:
    [seed, *_] = await town.qg.composer().compose(
        [goal_signal(town), threat_signal(town, threat_location="Darkwood")]
    )
    ore, template = "a lump of iron ore", "vale:ore"
    steps = [
        QuestObjective(
            objective_type=ObjectiveType.COLLECT,
            description="Obtain a lump of iron ore",
            target=ore,
            item_template=template,
        ),
        QuestObjective(
            objective_type=ObjectiveType.DELIVER,
            description="Bring the lump of iron ore to Hilda",
            order=1,
            target=ore,
            item_template=template,
        ),
    ]
    values = story_facts(town.qg.facts, seed, steps, {}, []).values
    assert values["objectives"].forms[""] == "obtain a lump of iron ore and bring it to Hilda"
    # Alone ("... and finally bring ..."), the last step names what it brings.
    assert values["final_objective"].forms[""] == "bring the lump of iron ore to Hilda"
    assert values["objective"].forms[""] == "obtain a lump of iron ore"
