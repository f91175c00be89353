"""Ironvale, the shipped game, for the tests that are about it: an engine on its
packs, its placed NPCs by key, the Iron Crisis (the worked example) arising,
built, delivered and played with real commands.
"""

from __future__ import annotations

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
    GeneratedQuest,
)
from maid_stdlib.world import WorldService, data_uuid

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
CLEARED_NEWS = "An adventurer cleared the bandits from the Old Trade Road"


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
    engine: GameEngine,
    hero: UUID,
    quest: GeneratedQuest,
    turn_in: bool = True,
    giver: UUID | None = None,
) -> str:
    """Take Gundrik's quest (or ``giver``'s, found where it stands) and do it with
    real commands; returns the turn-in output."""
    ws = engine.services.get(WorldService)

    def giver_room() -> str:
        room = ws.room_key_of(giver) if giver is not None else "ironvale:smithy"
        assert room is not None
        return room

    talk = f"talk {ws.keywords_of(giver)[0]}" if giver is not None else "talk gundrik"
    await walk(engine, hero, giver_room())
    out = await cmd(engine, hero, talk)
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
    await walk(engine, hero, giver_room())
    if not turn_in:
        return ""
    return await cmd(engine, hero, talk)
