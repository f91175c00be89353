"""Helpers of the living-world and story tests: Hamlet with a test's own living
data, and wiring.

``hamlet_pack(root, living)`` returns a pack class that loads Hamlet's world
(tests/kits/hamlet) with ``living`` (by default the quiet :data:`LIVING`: nothing
changes unless a test says so) instead of Hamlet's own living.yaml; the ``stdlib``
group it requires registers the living and story layers.
"""

from __future__ import annotations

import copy
import inspect
from pathlib import Path
from typing import Any
from uuid import UUID

import yaml
from kits.engines import make_engine as kits_engine
from kits.hamlet.pack import HamletPack

from maid_engine.content import ContentPack, PackContext
from maid_engine.engine import GameEngine
from maid_stdlib.living import load_living_data
from maid_stdlib.story.system import StorySignalSystem
from maid_stdlib.world import WorldDataPack, data_uuid

#: Quiet living data: nothing changes unless a test says so.
LIVING: dict[str, Any] = {
    "factions": {
        "village": {"name": "the village"},
        "bandits": {"name": "bandits", "hostile": True},
    },
    "npcs": {
        "hollin": {
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
            "supply": [
                {"resource": "iron", "route": ["road_bridge", "road_copse"], "need": "economic"}
            ],
            "factions": {"village": "member"},
        },
        "pell": {"factions": {"village": "member"}},
        "tamsin": {"factions": {"village": "member"}},
        "marta": {"factions": {"village": "member"}},
        "wolf": {"factions": {"bandits": "member"}},
        "old_grey": {"factions": {"bandits": "leader"}},
    },
}


#: Hamlet's own folder (its areas and pack.yaml).
HAMLET_DATA = Path(inspect.getfile(HamletPack)).resolve().parent


def hamlet_pack(root: Path, living: dict[str, Any] | None = None) -> type[ContentPack]:
    """Hamlet (tests/kits/hamlet) with ``living`` as its living data (by default the
    quiet :data:`LIVING`), written under ``root``; returns the pack class."""
    root.mkdir(parents=True, exist_ok=True)
    data = copy.deepcopy(LIVING) if living is None else living
    (root / "living.yaml").write_text(yaml.safe_dump(data, sort_keys=False))

    class Hamlet(HamletPack):
        @property
        def path(self) -> Path:
            return HAMLET_DATA

        def register(self, ctx: PackContext) -> None:
            WorldDataPack.register(self, ctx)
            load_living_data(ctx, root / "living.yaml")

    return Hamlet


def make_engine(
    tmp_path: Path, packs: list[Any], *, db_url: str | None = None, seed: int = 1
) -> GameEngine:
    """An engine on ``packs``, 60 s ticks, seed 1; a store only with ``db_url``."""
    return kits_engine(tmp_path, packs, tick=60.0, seed=seed, db_url=db_url)


def npc(engine: GameEngine, key: str, pack: str = "hamlet") -> UUID:
    return data_uuid(pack, "npc", key)


def story_of(engine: GameEngine) -> StorySignalSystem:
    system: StorySignalSystem = engine.get_system(StorySignalSystem)
    return system


async def run_hours(engine: GameEngine, hours: float) -> None:
    """Advance game time by running ticks (a ManualClock of 60 s per tick)."""
    await engine.run_ticks(round(hours * 60))
