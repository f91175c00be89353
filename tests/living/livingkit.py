"""Helpers of the living-world and story tests: a small data world, and wiring.

``hamlet_pack(root)`` writes a two-area world (a hamlet and a road with bandits)
plus a living.yaml into ``root`` and returns a pack class that loads both (the
``stdlib`` group it requires registers the living and story layers).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, ClassVar
from uuid import UUID

import yaml

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.content import ContentPack, PackContext
from maid_engine.engine import GameEngine
from maid_stdlib.living import load_living_data
from maid_stdlib.story import StorySignal, StorySignalEvent
from maid_stdlib.story.system import StorySignalSystem
from maid_stdlib.world import WorldDataPack, data_uuid

HAMLET: dict[str, Any] = {
    "area": {"key": "hamlet", "name": "Hamlet", "region": "testland"},
    "rooms": [
        {
            "key": "square",
            "name": "Square",
            "description": "A square.",
            "exits": {"w": "smithy", "e": "tavern", "s": "gate"},
        },
        {"key": "smithy", "name": "Smithy", "description": "A smithy.", "exits": {"e": "square"}},
        {"key": "tavern", "name": "Tavern", "description": "A tavern.", "exits": {"w": "square"}},
        {
            "key": "gate",
            "name": "Gate",
            "description": "A gate.",
            "exits": {"n": "square", "s": "road1"},
        },
    ],
    "npcs": [
        {"key": "smith", "name": "Smith", "keywords": ["smith"], "room": "smithy"},
        {"key": "trader", "name": "Trader", "keywords": ["trader"], "room": "square"},
        {"key": "captain", "name": "Captain", "keywords": ["captain"], "room": "gate"},
        {"key": "keeper", "name": "Keeper", "keywords": ["keeper"], "room": "tavern"},
    ],
}

ROAD: dict[str, Any] = {
    "area": {"key": "road", "name": "The Road", "region": "testland"},
    "rooms": [
        {
            "key": "road1",
            "name": "Road North",
            "description": "A road.",
            "exits": {"n": "gate", "s": "road2"},
        },
        {
            "key": "road2",
            "name": "Road South",
            "description": "A road.",
            "exits": {"n": "road1", "e": "camp"},
        },
        {"key": "camp", "name": "Camp", "description": "A camp.", "exits": {"w": "road2"}},
    ],
    "npcs": [
        {"key": "bandit", "name": "a bandit", "keywords": ["bandit"], "room": "road2", "count": 2},
        {"key": "boss", "name": "the Boss", "keywords": ["boss"], "room": "camp"},
        {"key": "wolf", "name": "a wolf", "keywords": ["wolf"]},
    ],
}

#: Quiet living data: nothing changes unless a test says so.
LIVING: dict[str, Any] = {
    "factions": {
        "village": {"name": "the village"},
        "bandits": {"name": "bandits", "hostile": True},
    },
    "npcs": {
        "smith": {
            "needs": {
                "economic": {
                    "value": 0.9,
                    "decay": 0.0,
                    "threshold": 0.4,
                    "modifiers": [{"when": "supply_blocked", "decay_x": 1.0, "add": 0.1}],
                    "satisfied_by": [{"when": "supply_clear", "rate": 0.05}],
                    "goal": {
                        "id": "get_iron",
                        "type": "ACQUIRE",
                        "target": "iron",
                        "description": "Get iron",
                        "priority": 0.8,
                        "blocked_when": ["supply_blocked"],
                        "progress_when": "supply_clear",
                        "progress_rate": 0.5,
                        "completion_need_delta": 0.3,
                    },
                },
            },
            "supply": [{"resource": "iron", "route": ["road1", "road2"], "need": "economic"}],
            "factions": {"village": "member"},
        },
        "trader": {"factions": {"village": "member"}},
        "captain": {"factions": {"village": "member"}},
        "keeper": {"factions": {"village": "member"}},
        "bandit": {"factions": {"bandits": "member"}},
        "boss": {"factions": {"bandits": "leader"}},
    },
}


def hamlet_pack(
    root: Path, living: dict[str, Any] | None = None, name: str = "hamlet"
) -> type[ContentPack]:
    """Write the hamlet world + living data under ``root``; return its pack class."""
    (root / "areas").mkdir(parents=True, exist_ok=True)
    (root / "areas" / "hamlet.yaml").write_text(yaml.safe_dump(HAMLET, sort_keys=False))
    (root / "areas" / "road.yaml").write_text(yaml.safe_dump(ROAD, sort_keys=False))
    data = copy.deepcopy(LIVING) if living is None else living
    (root / "living.yaml").write_text(yaml.safe_dump(data, sort_keys=False))

    class HamletPack(WorldDataPack):
        requires: ClassVar[tuple[str, ...]] = ("stdlib",)

        @property
        def path(self) -> Path:
            return root

        def register(self, ctx: PackContext) -> None:
            super().register(ctx)
            load_living_data(ctx, root / "living.yaml")

    HamletPack.name = name
    return HamletPack


def make_engine(
    tmp_path: Path, packs: list[Any], *, db_url: str | None = None, seed: int = 1
) -> GameEngine:
    settings = Settings(data_dir=tmp_path, random_seed=seed)
    if db_url is not None:
        settings = Settings(data_dir=tmp_path, random_seed=seed, database_url=db_url)
    return GameEngine(
        settings,
        clock=ManualClock(tick_game_seconds=60),
        packs=packs,
        use_store=db_url is not None,
    )


def npc(engine: GameEngine, key: str, pack: str = "hamlet") -> UUID:
    return data_uuid(pack, "npc", key)


def story_of(engine: GameEngine) -> StorySignalSystem:
    system: StorySignalSystem = engine.get_system(StorySignalSystem)
    return system


def collect_signals(engine: GameEngine) -> list[StorySignal]:
    """A list that fills with every StorySignal the engine emits from now on."""
    out: list[StorySignal] = []
    engine.events.subscribe(StorySignalEvent, lambda e: out.append(e.signal))
    return out


async def run_hours(engine: GameEngine, hours: float) -> None:
    """Advance game time by running ticks (a ManualClock of 60 s per tick)."""
    await engine.run_ticks(round(hours * 60))
