"""The consequence tests' own quest: a small errand in Hamlet, made by hand (the
quest helpers themselves are in kits.quests)."""

from __future__ import annotations

import uuid
from typing import Any

from kits.engines import hv

from maid_engine.engine import GameEngine
from maid_stdlib.questgen import (
    ConsequenceType,
    DifficultyTier,
    GeneratedQuest,
    ObjectiveType,
    QuestConsequence,
    QuestDialogue,
    QuestObjective,
    QuestRewards,
)


def simple_quest(engine: GameEngine, quest_id: str = "millers-errand", **kw: Any) -> GeneratedQuest:
    """A small generated quest from Hollin the miller, made by hand: hear Warden
    Tamsin out, report back. Success: Hollin's economic need +0.3, his trust +0.3,
    Tamsin's +0.15, standing with the hamlet +0.1, gossip, a memory, a world flag.
    Failure: Hollin's trust -0.1, gossip, a memory."""
    hollin, tamsin = hv("hollin"), hv("tamsin")
    C = ConsequenceType
    fields: dict[str, Any] = {
        "id": quest_id,
        "seed_id": uuid.uuid4(),
        "seed_type": "threat_response",
        "archetype_id": "threat_elimination",
        "importance": 0.8,
        "title": "The Miller's Errand",
        "summary": "Hollin wants to know what Warden Tamsin will do about the road.",
        "detailed_description": "Hollin looks at his empty sacks. Ask Warden Tamsin what she "
        "means to do about the wolves, and come back to tell me.",
        "objectives": [
            QuestObjective(
                id="o1-talk",
                objective_type=ObjectiveType.TALK,
                description="Ask Warden Tamsin about the road",
                target="Warden Tamsin",
                target_entity_id=tamsin,
                target_location="hamlet:warden_hut",
                order=1,
                hints=["Warden Tamsin is usually found at The Warden's Hut."],
            ),
            QuestObjective(
                id="o2-talk",
                objective_type=ObjectiveType.TALK,
                description="Report back to Hollin",
                target="Hollin",
                target_entity_id=hollin,
                target_location="hamlet:mill",
                order=2,
                hints=["Hollin is usually found at The Mill."],
            ),
        ],
        "quest_giver_id": hollin,
        "quest_giver_motivation": "The mill is idle.",
        "quest_giver_dialogue": QuestDialogue(
            offer="Ask Tamsin what the wardens will do about the road. Will you?",
            progress="Well? What did Tamsin say?",
            completion="So that is how it is. Thank you.",
        ),
        "involved_npcs": {tamsin: "informant"},
        "involved_locations": ["hamlet:mill", "hamlet:warden_hut"],
        "rewards": QuestRewards(gold=10),
        "consequences": [
            QuestConsequence(
                consequence_type=C.NPC_NEED_SATISFY,
                target_npc=hollin,
                target_key="economic",
                need_delta=0.3,
                description="Hollin's worries ease",
            ),
            QuestConsequence(
                consequence_type=C.RELATIONSHIP_CHANGE,
                target_npc=hollin,
                relationship_delta=0.3,
                description="Hollin trusts the character",
            ),
            QuestConsequence(
                consequence_type=C.RELATIONSHIP_CHANGE,
                target_npc=tamsin,
                relationship_delta=0.15,
                description="Tamsin appreciates it",
            ),
            QuestConsequence(
                consequence_type=C.FACTION_STANDING,
                target_faction="hamlet",
                faction_delta=0.1,
                description="The hamlet hears of it",
            ),
            QuestConsequence(
                consequence_type=C.GOSSIP_INJECTION,
                target_npc=hollin,
                gossip_content="An adventurer carried Hollin's words to the warden",
                description="Word spreads",
            ),
            QuestConsequence(
                consequence_type=C.MEMORY_CREATION,
                target_npc=hollin,
                memory_content="A stranger spoke to Tamsin for me.",
                description="Hollin remembers",
            ),
            QuestConsequence(
                consequence_type=C.WORLD_STATE,
                world_state_key="errand:tamsin",
                world_state_value="asked",
                description="Tamsin was asked",
            ),
        ],
        "failure_consequences": [
            QuestConsequence(
                consequence_type=C.RELATIONSHIP_CHANGE,
                target_npc=hollin,
                relationship_delta=-0.1,
                description="Hollin is let down",
            ),
            QuestConsequence(
                consequence_type=C.GOSSIP_INJECTION,
                target_npc=hollin,
                gossip_content="Nobody asked Tamsin for Hollin",
                description="Word spreads that nobody came",
            ),
            QuestConsequence(
                consequence_type=C.MEMORY_CREATION,
                target_npc=hollin,
                memory_content="Nobody came when I asked for help.",
                description="Hollin remembers being let down",
            ),
        ],
        "difficulty": DifficultyTier.EASY,
        "expiry": engine.clock.game_time + 86400.0,
        "chain_potential": 0.0,
        "created_at": engine.clock.game_time,
        "location": "hamlet:mill",
        "area": "hamlet:hamlet",
        "region": "ashford",
        "estimated_duration_minutes": 30,
    }
    fields.update(kw)
    return GeneratedQuest(**fields)
