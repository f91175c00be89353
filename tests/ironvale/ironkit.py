"""Ironvale, the shipped game, for the tests that are about it: an engine on its
packs, its placed NPCs by key, the Iron Crisis (the worked
example) arising, built, delivered and played with real commands, and a small
hand-made errand from Gundrik.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any
from uuid import UUID

from kits.engines import make_engine, plain
from kits.heroes import fight, walk
from kits.quests import SignalLog, build, deliver

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
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
from maid_stdlib.world import data_uuid

#: The shipped game's packs (what ``maid run`` loads, without the admin pack).
IRONVALE: tuple[str, ...] = ("ironvale",)


def ironvale_engine(tmp_path: Path, **kw: Any) -> GameEngine:
    """Ironvale with everything its packs wire (living world, story, quest generation,
    consequences); as :func:`kits.engines.make_engine` (no store unless asked)."""
    return make_engine(tmp_path, IRONVALE, **kw)


def iv(key: str) -> UUID:
    """A placed Ironvale NPC, by its key in the pack's data."""
    return data_uuid("ironvale", "npc", key)


#: What Ironvale says once the Iron Crisis quest is done (its gossip consequence).
CLEARED_NEWS = "An adventurer cleared the bandits from Old Trade Road"


async def the_iron_crisis(engine: GameEngine, signals: SignalLog, hours: float = 48) -> None:
    """Let the world run until the bandits have choked Ironvale (the Iron Crisis begins)."""
    clock = engine.clock
    assert isinstance(clock, ManualClock)
    ticks = int(hours * 3600 / clock.tick_game_seconds)
    await engine.run_ticks(ticks)
    assert signals.of("GOAL_BLOCKED")
    assert signals.of("THREAT_DETECTED")


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
