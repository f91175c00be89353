"""Ironvale with the living world, story signals, quest generation, consequences and
the grounding monitor (all wired by the default packs), and helpers to build,
deliver and play quests.
"""

from __future__ import annotations

import uuid
from typing import Any
from uuid import UUID

from kits.engines import iv, plain, qg_of, qm
from kits.heroes import fight, make_strong, walk
from kits.narrators import EchoNarrator

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.consequences import ConsequenceSystem, GeneratedQuestIndex
from maid_stdlib.grounding import QuestGroundingMonitor
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
from maid_stdlib.world import WorldCharacterFactory


def system_of(engine: GameEngine) -> ConsequenceSystem:
    return engine.services.get(ConsequenceSystem)


def monitor_of(engine: GameEngine) -> QuestGroundingMonitor:
    return engine.services.get(QuestGroundingMonitor)


#: What Ironvale says once the Iron Crisis quest is done (its gossip consequence).
CLEARED_NEWS = "An adventurer cleared the bandits from Old Trade Road"


#: A hero strong enough for the village's quests, and still offered them.
VETERAN_LEVEL = 6
VETERAN_HP = 400


def new_hero(engine: GameEngine, name: str = "Aria", strong: bool = True) -> UUID:
    """A player character online; ``strong``: a veteran's health, so the dice cannot
    end a test early. The level stays in the range of the village's quests (moderate
    4 to hard 7): quests are matched to characters near their level, and an
    over-levelled hero is not offered them."""
    uid = engine.services.get(WorldCharacterFactory).create_character(name, f"acct-{name}")
    session_for(engine, uid)
    if strong:
        make_strong(engine, uid, level=VETERAN_LEVEL, hp=VETERAN_HP)
    return uid


class SignalLog:
    """Story signals emitted during a test, in order."""

    def __init__(self, engine: GameEngine) -> None:
        self.signals: list[StorySignal] = []
        engine.events.subscribe(StorySignalEvent, lambda e: self.signals.append(e.signal))

    def of(self, signal_type: str) -> list[StorySignal]:
        return [s for s in self.signals if s.signal_type == signal_type]


async def the_iron_crisis(engine: GameEngine, signals: SignalLog, hours: float = 48) -> None:
    """Let the world run until the bandits have choked Ironvale (the Iron Crisis begins)."""
    clock = engine.clock
    assert isinstance(clock, ManualClock)
    ticks = int(hours * 3600 / clock.tick_game_seconds)
    await engine.run_ticks(ticks)
    assert signals.of("GOAL_BLOCKED")
    assert signals.of("THREAT_DETECTED")


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


async def iron_crisis_quest(engine: GameEngine, signals: SignalLog) -> GeneratedQuest:
    """Gundrik's threat_elimination quest (scouts, Kral, report back), delivered."""
    await the_iron_crisis(engine, signals)
    gundrik = iv("gundrik")
    blocked = [s for s in signals.of("GOAL_BLOCKED") if s.involved_npcs == [gundrik]]
    quest = await build(engine, [blocked[0], signals.of("THREAT_DETECTED")[0]])
    assert quest.quest_giver_id == gundrik
    assert quest.archetype_id == "threat_elimination"
    await deliver(engine, quest)
    return quest


async def play_iron_crisis(
    engine: GameEngine, hero: UUID, quest: GeneratedQuest, turn_in: bool = True
) -> str:
    """Take Gundrik's quest and do it with real commands; returns the turn-in output."""
    await walk(engine, hero, "ironvale:smithy")
    out = await cmd(engine, hero, "talk gundrik")
    assert "Quest offered" in plain(out), out
    out = await cmd(engine, hero, f"accept {quest.id}")
    assert "You accept" in plain(out), out
    await walk(engine, hero, "ironvale:guard_post")
    await cmd(engine, hero, "talk voss")
    await walk(engine, hero, "ironvale:road_wagon")
    for _ in range(3):
        await fight(engine, hero, "scout")
    await walk(engine, hero, "ironvale:bandit_camp")
    await fight(engine, hero, "kral")
    await walk(engine, hero, "ironvale:smithy")
    if not turn_in:
        return ""
    return await cmd(engine, hero, "talk gundrik")


def simple_quest(engine: GameEngine, quest_id: str = "smiths-errand", **kw: Any) -> GeneratedQuest:
    """A small generated quest from Gundrik, made by hand: hear Voss out, report
    back. Success: Gundrik's economic need +0.3, his trust +0.3, Voss's +0.15,
    standing with the village +0.1, gossip, a memory, a world flag. Failure:
    Gundrik's trust -0.1, gossip, a memory."""
    gundrik, voss = iv("gundrik"), iv("voss")
    C = ConsequenceType
    fields: dict[str, Any] = {
        "id": quest_id,
        "seed_id": uuid.uuid4(),
        "seed_type": "threat_response",
        "archetype_id": "threat_elimination",
        "importance": 0.8,
        "title": "The Smith's Errand",
        "summary": "Gundrik wants to know what Captain Voss will do about the road.",
        "detailed_description": "Gundrik scowls at his cold forge. Ask Captain Voss what the "
        "guard means to do about the bandits, and come back to tell me.",
        "objectives": [
            QuestObjective(
                id="o1-talk",
                objective_type=ObjectiveType.TALK,
                description="Ask Captain Voss about the road",
                target="Captain Voss",
                target_entity_id=voss,
                target_location="ironvale:guard_post",
                order=1,
                hints=["Captain Voss is usually found at The Guard Post."],
            ),
            QuestObjective(
                id="o2-talk",
                objective_type=ObjectiveType.TALK,
                description="Report back to Gundrik",
                target="Gundrik",
                target_entity_id=gundrik,
                target_location="ironvale:smithy",
                order=2,
                hints=["Gundrik is usually found at Gundrik's Smithy."],
            ),
        ],
        "quest_giver_id": gundrik,
        "quest_giver_motivation": "The forge is cold.",
        "quest_giver_dialogue": QuestDialogue(
            offer="Ask Voss what the guard will do about the road. Will you?",
            progress="Well? What did Voss say?",
            completion="So that is how it is. Thank you.",
        ),
        "involved_npcs": {voss: "informant"},
        "involved_locations": ["ironvale:smithy", "ironvale:guard_post"],
        "rewards": QuestRewards(gold=10),
        "consequences": [
            QuestConsequence(
                consequence_type=C.NPC_NEED_SATISFY,
                target_npc=gundrik,
                target_key="economic",
                need_delta=0.3,
                description="Gundrik's worries ease",
            ),
            QuestConsequence(
                consequence_type=C.RELATIONSHIP_CHANGE,
                target_npc=gundrik,
                relationship_delta=0.3,
                description="Gundrik trusts the character",
            ),
            QuestConsequence(
                consequence_type=C.RELATIONSHIP_CHANGE,
                target_npc=voss,
                relationship_delta=0.15,
                description="Voss appreciates it",
            ),
            QuestConsequence(
                consequence_type=C.FACTION_STANDING,
                target_faction="village",
                faction_delta=0.1,
                description="The village hears of it",
            ),
            QuestConsequence(
                consequence_type=C.GOSSIP_INJECTION,
                target_npc=gundrik,
                gossip_content="An adventurer carried Gundrik's words to the guard",
                description="Word spreads",
            ),
            QuestConsequence(
                consequence_type=C.MEMORY_CREATION,
                target_npc=gundrik,
                memory_content="A stranger spoke to Voss for me.",
                description="Gundrik remembers",
            ),
            QuestConsequence(
                consequence_type=C.WORLD_STATE,
                world_state_key="errand:voss",
                world_state_value="asked",
                description="Voss was asked",
            ),
        ],
        "failure_consequences": [
            QuestConsequence(
                consequence_type=C.RELATIONSHIP_CHANGE,
                target_npc=gundrik,
                relationship_delta=-0.1,
                description="Gundrik is let down",
            ),
            QuestConsequence(
                consequence_type=C.GOSSIP_INJECTION,
                target_npc=gundrik,
                gossip_content="Nobody asked Voss for Gundrik",
                description="Word spreads that nobody came",
            ),
            QuestConsequence(
                consequence_type=C.MEMORY_CREATION,
                target_npc=gundrik,
                memory_content="Nobody came when I asked for help.",
                description="Gundrik remembers being let down",
            ),
        ],
        "difficulty": DifficultyTier.EASY,
        "expiry": engine.clock.game_time + 86400.0,
        "chain_potential": 0.0,
        "created_at": engine.clock.game_time,
        "location": "ironvale:smithy",
        "area": "ironvale:village",
        "region": "ironvale",
        "estimated_duration_minutes": 30,
    }
    fields.update(kw)
    return GeneratedQuest(**fields)


async def accept(engine: GameEngine, hero: UUID, quest_id: str) -> None:
    manager = qm(engine)
    manager.offer_quest(hero, quest_id)
    await manager.accept_quest(hero, quest_id)
    await engine.dispatch_events()


def trust(engine: GameEngine, npc: UUID, who: UUID) -> float:
    from maid_stdlib.living.api import get_relationship

    rel = get_relationship(engine.world, npc, who)
    return rel.trust if rel is not None else 0.0


#: ``talk`` warms an NPC to the speaker a little (the living world's
#: note_conversation), at most this much per conversation.
WARMTH = 0.01


def applied_delta(
    engine: GameEngine, mutation_type: str, target: UUID, key: str | None = None
) -> float:
    """The delta the latest propagation applied to ``target`` (merged mutations)."""
    result = system_of(engine).recent[-1]
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
