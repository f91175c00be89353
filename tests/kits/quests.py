"""Generated quests end to end without an LLM: build one with the real pipeline,
deliver it as the generation system does, accept it, and read what its
consequences did (trust, applied deltas); story signals recorded in order; and a
small quest in Hamlet made by hand (:func:`simple_quest`)."""

from __future__ import annotations

import uuid
from typing import Any
from uuid import UUID

from kits.engines import hv, qg_of, qm
from kits.narrators import EchoNarrator
from maid_engine.engine import GameEngine
from maid_stdlib.consequences import ConsequenceSystem, GeneratedQuestIndex
from maid_stdlib.grounding import QuestGroundingMonitor
from maid_stdlib.living.api import get_relationship
from maid_stdlib.questgen import (
    ConsequenceType,
    DifficultyTier,
    GeneratedQuest,
    ObjectiveType,
    QuestConsequence,
    QuestDialogue,
    QuestObjective,
    QuestRewards,
    QuestSeed,
    quest_to_document,
)
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.story import StorySignal, StorySignalEvent


def consequences_of(engine: GameEngine) -> ConsequenceSystem:
    return engine.services.get(ConsequenceSystem)


def monitor_of(engine: GameEngine) -> QuestGroundingMonitor:
    return engine.services.get(QuestGroundingMonitor)


class SignalLog:
    """Story signals emitted during a test, in order."""

    def __init__(self, engine: GameEngine) -> None:
        self.signals: list[StorySignal] = []
        engine.events.subscribe(StorySignalEvent, lambda e: self.signals.append(e.signal))

    def of(self, signal_type: str) -> list[StorySignal]:
        return [s for s in self.signals if s.signal_type == signal_type]


async def build(
    engine: GameEngine, signals: list[Any], narrator: EchoNarrator | None = None
) -> GeneratedQuest:
    """The quest the real pipeline builds from ``signals`` (composed into one seed)."""
    qg = qg_of(engine)
    if len(signals) == 1:
        evaluator = qg.evaluator()
        seed = await evaluator.evaluate(signals[0])
        assert not isinstance(seed, Rejection), seed
    else:
        seeds: list[QuestSeed] = await qg.composer().compose(signals)
        assert seeds, "no seed"
        seed = seeds[0]
    quest = await qg.build_best(seed, qg.builder(narrator or EchoNarrator()))
    assert quest is not None, "no quest"
    return quest


async def deliver(engine: GameEngine, quest: GeneratedQuest) -> str:
    """What the generation system does with a finished quest: register it with the
    QuestManager, write the side-table, record it in the history."""
    qg = qg_of(engine)
    assert qg.sink is not None
    quest_id = qg.sink.register(quest)
    engine.services.get(GeneratedQuestIndex).remember(quest)
    if engine.has_store:
        await engine.store.documents.put("generated_quests", quest.id, quest_to_document(quest))
    qg.record(quest)
    await engine.dispatch_events()
    return quest_id


async def accept(engine: GameEngine, hero: UUID, quest_id: str) -> None:
    manager = qm(engine)
    manager.offer_quest(hero, quest_id)
    await manager.accept_quest(hero, quest_id)
    await engine.dispatch_events()


def trust(engine: GameEngine, npc: UUID, who: UUID) -> float:
    rel = get_relationship(engine.world, npc, who)
    return rel.trust if rel is not None else 0.0


#: ``talk`` warms an NPC to the speaker a little (the living world's
#: note_conversation), at most this much per conversation.
WARMTH = 0.01


def applied_delta(
    engine: GameEngine, mutation_type: str, target: UUID, key: str | None = None
) -> float:
    """The delta the latest propagation applied to ``target`` (merged mutations)."""
    result = consequences_of(engine).recent[-1]
    assert result.status == "applied", result
    found = [
        m.delta or 0.0
        for m in result.applied
        if m.mutation_type == mutation_type
        and m.target_entity == target
        and (key is None or m.target_key == key)
    ]
    assert found, f"no {mutation_type} of {target} in {result.applied}"
    return sum(found)


def assert_trust(
    engine: GameEngine, npc: UUID, hero: UUID, expected: float, talks: int = 0
) -> None:
    """``npc``'s trust in ``hero`` is ``expected`` (from consequences) plus what up to
    ``talks`` conversations added."""
    value = trust(engine, npc, hero)
    assert expected - 1e-9 <= value <= expected + talks * WARMTH + 1e-9, (value, expected)


def simple_quest(engine: GameEngine, quest_id: str = "millers-errand", **kw: Any) -> GeneratedQuest:
    """A small generated quest in Hamlet (the miller's errand), made by hand: hear Warden
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
                unattended_only=True,
            ),
            QuestConsequence(
                consequence_type=C.MEMORY_CREATION,
                target_npc=hollin,
                memory_content="Nobody came when I asked for help.",
                description="Hollin remembers being let down",
                unattended_only=True,
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
