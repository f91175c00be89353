"""Generated quests end to end without an LLM: build one with the real pipeline,
deliver it as the generation system does, accept it, and read what its
consequences did (trust, applied deltas); story signals recorded in order."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from kits.engines import qg_of, qm
from kits.narrators import EchoNarrator
from maid_engine.engine import GameEngine
from maid_stdlib.consequences import ConsequenceSystem, GeneratedQuestIndex
from maid_stdlib.grounding import QuestGroundingMonitor
from maid_stdlib.living.api import get_relationship
from maid_stdlib.questgen import GeneratedQuest, QuestSeed, quest_to_document
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
