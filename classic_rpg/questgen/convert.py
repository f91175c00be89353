"""GeneratedQuest -> the QuestManager's Quest model (``to_quest_model``).

Only what the QuestManager tracks crosses over, with the RPG's own terms
(experience, level requirement) read from the quest's RPG extension
(:mod:`classic_rpg.questgen.terms`), and the progression mode (who a kill counts
for). Branches, consequences and scores stay in the ``generated_quests`` side-table
(:func:`side_table_document`). Branch options' follow-up objectives are not
objectives of the Quest model: the choice point is a required CUSTOM objective
completed by the branch-choice command (``QuestManager.complete_custom``).
"""

from __future__ import annotations

from typing import Any

from classic_rpg.questgen.terms import rpg_terms
from classic_rpg.systems.quests.models import Quest, QuestRewards
from classic_rpg.systems.quests.models import QuestObjective as QuestObjectiveModel
from maid_stdlib.questgen import GeneratedQuest, ObjectiveType, QuestObjective, quest_to_document

__all__ = ["registration_meta", "side_table_document", "to_quest_model"]

TITLE_MAX = 80
#: Objective types whose room the QuestManager tracks (arrival completes them).
_ROOM_TYPES = (ObjectiveType.VISIT, ObjectiveType.ESCORT)


def _objective(o: QuestObjective) -> QuestObjectiveModel:
    single = o.target_entity_id
    if o.objective_type is ObjectiveType.KILL and o.target_template:
        # Kills match by kind: a respawning NPC killed by someone else comes back
        # as a new entity, and the stdlib's grounding accepts the objective while
        # one of the kind is alive or due to respawn (WorldFacts.kind_available).
        single = None
    return QuestObjectiveModel(
        objective_id=o.id,
        objective_type=o.objective_type,
        description=o.description,
        target_name=o.target,
        target_id=single,
        target_template=o.target_template if single is None else None,
        target_keyword=o.target_keyword if single is None and not o.target_template else None,
        item_template=o.item_template,
        target_count=o.quantity,
        destination_room_id=o.target_location if o.objective_type in _ROOM_TYPES else None,
        required=not o.optional,
        order=o.order,
        hint=o.hints[0] if o.hints else "",
        time_limit_seconds=o.time_limit_seconds,
        stage=o.stage or "",
        reply=o.reply,
    )


def to_quest_model(quest: GeneratedQuest) -> Quest:
    """The Quest the QuestManager registers (``register_generated_quest``)."""
    dialogue = quest.quest_giver_dialogue
    terms = rpg_terms(quest)
    title = quest.title if len(quest.title) <= TITLE_MAX else quest.title[: TITLE_MAX - 1] + "…"
    return Quest(
        quest_id=quest.id,
        title=title,
        summary=quest.summary,
        description=quest.detailed_description,
        level_requirement=terms.level_requirement,
        giver_npc_id=quest.quest_giver_id,
        turn_in_npc_id=quest.quest_giver_id,
        accept_dialogue=dialogue.offer,
        progress_dialogue=dialogue.progress,
        complete_dialogue=dialogue.completion,
        objectives=[_objective(o) for o in quest.objectives],
        rewards=QuestRewards(
            experience=terms.experience,
            gold=quest.rewards.gold,
            item_template_ids=list(quest.rewards.item_template_ids),
        ),
        time_limit_seconds=quest.time_limit * 3600.0 if quest.time_limit else None,
        estimated_duration_seconds=float(max(1, quest.estimated_duration_minutes) * 60),
        repeatable=False,
        # Half the work or more may be turned in early (``turnin``) for partial
        # success: half the rewards, the success consequences at half strength.
        partial_turn_in=True,
        progression_mode=quest.progression_mode,
        tags=["generated", quest.archetype_id, quest.seed_type],
        source="generated",
    )


def registration_meta(quest: GeneratedQuest) -> dict[str, Any]:
    """Keyword arguments for ``QuestManager.register_generated_quest(model, **meta)``,
    so its history entry carries the generation metadata."""
    return {
        "seed_type": quest.seed_type,
        "archetype_id": quest.archetype_id,
        "importance": quest.importance,
        "grounding_score": quest.grounding_score,
        "coherence_score": quest.coherence_score,
        "novelty_score": quest.novelty_score,
        "region": quest.region,
        "chain_depth": quest.chain_depth,
        "chain_parent_id": quest.chain_parent_id,
    }


def side_table_document(quest: GeneratedQuest) -> dict[str, Any]:
    """The ``generated_quests`` document: the whole GeneratedQuest as JSON."""
    return quest_to_document(quest)
