"""A small constructed world for the quest-generation unit tests: Brookhaven.

Town (region "vale"): square, forge (Hilda the smith), barracks (Captain Brann),
market (Orla the merchant, a sealed letter), mill (Tam the miller); an island no
exit leads to (a hermit). Woods (region "wilds"): trail, clearing (two grey
wolves, two lumps of iron ore), den (the alpha wolf).

Living state is added in code by :func:`populate`, so every test sees exactly
the needs, goals, memories and threats it relies on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from kits.engines import make_engine as kits_engine
from kits.narrators import EchoNarrator
from world.worldkit import tmp_pack, write_yaml

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_stdlib.living.components import (
    FactionMembership,
    Goal,
    GoalsComponent,
    NeedRule,
    NeedsComponent,
    NeedState,
    Wealth,
)
from maid_stdlib.living.facts import Hostile, WatchedRooms
from maid_stdlib.living.memory import EpisodicMemory, MemoryVisibility
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.questgen import (
    BasicSignal,
    BranchingPattern,
    NarrativeArcs,
    ObjectivePatterns,
    QuestArchetype,
    QuestGen,
    QuestSeedTypes,
)
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.world import NPC

T = QuestSeedTypes

TOWN = {
    "area": {"key": "town", "name": "Brookhaven", "region": "vale"},
    "rooms": [
        {
            "key": "square",
            "name": "Brookhaven Square",
            "description": "A square.",
            "exits": {
                "west": "forge",
                "north": "barracks",
                "east": "market",
                "south": "mill",
                "down": "trail",
            },
        },
        {
            "key": "forge",
            "name": "Hilda's Forge",
            "description": "A forge.",
            "exits": {"east": "square"},
        },
        {
            "key": "barracks",
            "name": "The Barracks",
            "description": "Barracks.",
            "exits": {"south": "square"},
        },
        {
            "key": "market",
            "name": "The Market",
            "description": "A market.",
            "exits": {"west": "square"},
        },
        {"key": "mill", "name": "The Mill", "description": "A mill.", "exits": {"north": "square"}},
        {"key": "island", "name": "The Island", "description": "Nobody gets here."},
    ],
    "npcs": [
        {"key": "hilda", "name": "Hilda", "keywords": ["hilda", "smith"], "room": "forge"},
        {
            "key": "brann",
            "name": "Captain Brann",
            "pronouns": "she",
            "keywords": ["brann", "captain"],
            "room": "barracks",
        },
        {"key": "orla", "name": "Orla", "keywords": ["orla", "merchant"], "room": "market"},
        {"key": "tam", "name": "Tam", "keywords": ["tam", "miller"], "room": "mill"},
        {"key": "hermit", "name": "the hermit", "keywords": ["hermit"], "room": "island"},
    ],
    "items": [
        {"key": "letter", "name": "a sealed letter", "keywords": ["letter"], "room": "market"},
    ],
}
WOODS = {
    "area": {"key": "woods", "name": "Darkwood", "region": "wilds"},
    "rooms": [
        {
            "key": "trail",
            "name": "Darkwood Trail",
            "description": "A trail.",
            "exits": {"up": "square", "east": "clearing"},
        },
        {
            "key": "clearing",
            "name": "A Clearing",
            "description": "A clearing.",
            "exits": {"west": "trail", "east": "den"},
        },
        {
            "key": "den",
            "name": "The Wolf Den",
            "description": "A den.",
            "exits": {"west": "clearing"},
        },
    ],
    "npcs": [
        {
            "key": "wolf",
            "name": "a grey wolf",
            "keywords": ["wolf", "grey"],
            "room": "clearing",
            "count": 2,
        },
        {"key": "alpha", "name": "the alpha wolf", "keywords": ["wolf", "alpha"], "room": "den"},
    ],
    "items": [
        {
            "key": "iron_ore",
            "name": "a lump of iron ore",
            "keywords": ["ore", "iron"],
            "room": "clearing",
            "count": 2,
        },
    ],
}


def make_engine(tmp_path: Path, **kw: Any) -> GameEngine:
    root = tmp_path / "brookhaven"
    write_yaml(root / "areas" / "town.yaml", TOWN)
    write_yaml(root / "areas" / "woods.yaml", WOODS)
    write_yaml(root / "pack.yaml", {"start_room": "square"})
    pack = tmp_pack(root, "brookhaven")
    return kits_engine(
        tmp_path,
        ["stdlib", pack],
        tick=60.0,
        seed=kw.pop("random_seed", 11),
        use_store=kw.pop("use_store", False),
        **kw,
    )


@dataclass
class Town:
    engine: GameEngine
    qg: QuestGen
    hilda: UUID
    brann: UUID
    orla: UUID
    tam: UUID
    hermit: UUID
    wolves: list[UUID]
    alpha: UUID

    @property
    def now(self) -> float:
        return self.engine.clock.game_time

    def skip(self, seconds: float) -> None:
        clock = self.engine.clock
        assert isinstance(clock, ManualClock)
        clock.skip(seconds)


def npc_ids(engine: GameEngine, template: str) -> list[UUID]:
    return sorted(u for u, n in engine.world.each(NPC) if n.template == template)


def populate(engine: GameEngine) -> Town:
    """Hilda's iron is cut off by wolves; Brann watches the woods."""
    world = engine.world
    one = {
        k: npc_ids(engine, f"brookhaven:{k}")[0]
        for k in ("hilda", "brann", "orla", "tam", "hermit", "alpha")
    }
    wolves = npc_ids(engine, "brookhaven:wolf")
    hilda = one["hilda"]
    world.add_component(
        hilda,
        NeedsComponent(
            {
                "economic": NeedState(value=0.2, rule=NeedRule(threshold=0.35)),
                "safety": NeedState(value=0.8),
            }
        ),
    )
    world.add_component(
        hilda,
        GoalsComponent(
            [
                Goal(
                    id="get_iron",
                    description="Get iron for the forge",
                    priority=0.8,
                    status="blocked",
                    blocker="wolves in Darkwood",
                    blocker_source="wolves",
                    blocker_rooms=["brookhaven:clearing"],
                    need="economic",
                    target="iron",
                    completion_need_delta=0.3,
                )
            ]
        ),
    )
    world.add_component(hilda, Wealth(500))
    world.add_component(hilda, FactionMembership({"smiths": "member"}))
    world.add_component(one["orla"], Wealth(1000))
    world.add_component(
        one["brann"], WatchedRooms(["brookhaven:trail", "brookhaven:clearing", "brookhaven:den"])
    )
    for uid in [*wolves, one["alpha"]]:
        world.add_component(uid, Hostile("wolves"))
    living = engine.services.get(LivingWorld)
    living.memory.add(
        EpisodicMemory(
            npc_id=hilda,
            content="The ore carts stopped coming when the wolves moved into Darkwood",
            visibility=MemoryVisibility.PUBLIC,
            importance=0.6,
        )
    )
    living.memory.add(
        EpisodicMemory(
            npc_id=hilda,
            content="I owe the moneylender more than I can pay",
            visibility=MemoryVisibility.PRIVATE,
            importance=0.9,
        )
    )
    living.invalidate_threats()
    qg = engine.services.get(QuestGen)
    return Town(
        engine,
        qg,
        hilda,
        one["brann"],
        one["orla"],
        one["tam"],
        one["hermit"],
        wolves,
        one["alpha"],
    )


def kit_archetypes() -> list[QuestArchetype]:
    """Archetypes of these tests (the stdlib registers none itself)."""
    return [
        QuestArchetype(
            archetype_id="clear_out",
            name="Clear Out",
            objective_pattern=ObjectivePatterns.CLEAR,
            compatible_seed_types=[T.THREAT_RESPONSE, T.RESOURCE_CRISIS],
            requires_combat=True,
            tone=["urgent"],
            chain_potential=0.4,
        ),
        QuestArchetype(
            archetype_id="mediate",
            name="Mediate",
            objective_pattern=ObjectivePatterns.NEGOTIATE,
            branching=BranchingPattern.BRANCHING,
            estimated_steps=4,
            compatible_seed_types=[T.RIVALRY_INTERVENTION, T.FACTION_CONFLICT],
            requires_social=True,
            narrative_arc=NarrativeArcs.DILEMMA,
        ),
        QuestArchetype(
            archetype_id="errand",
            name="Errand",
            objective_pattern=ObjectivePatterns.FETCH,
            estimated_steps=3,
            compatible_seed_types=[T.RESOURCE_CRISIS, T.GOAL_ASSISTANCE],
        ),
        QuestArchetype(
            archetype_id="inquiry",
            name="Inquiry",
            objective_pattern=ObjectivePatterns.INVESTIGATE,
            branching=BranchingPattern.OPEN,
            estimated_steps=5,
            compatible_seed_types=[T.MYSTERY, T.DISCOVERY_EXPEDITION],
            narrative_arc=NarrativeArcs.MYSTERY,
        ),
    ]


def register_test_archetypes(qg: QuestGen) -> None:
    for archetype in kit_archetypes():
        if archetype.archetype_id not in qg.archetypes:
            qg.register_archetype(archetype)


def threat_signal(town: Town, importance: float = 0.7, **extra: Any) -> BasicSignal:
    return BasicSignal(
        "THREAT_DETECTED",
        importance,
        [town.brann, town.orla],
        {"threat_source": "wolves", "threat_location": "brookhaven:clearing", **extra},
    )


def rivalry_signal(town: Town) -> BasicSignal:
    """Orla and Tam quarrel over flour prices (Tam reports it)."""
    return BasicSignal(
        "RIVALRY_ESCALATION",
        0.7,
        [town.tam],
        {
            "npc_a": str(town.orla),
            "npc_b": str(town.tam),
            "cause": "flour prices",
            "trust_level": -0.5,
        },
    )


def goal_signal(town: Town, importance: float = 0.8, **extra: Any) -> BasicSignal:
    return BasicSignal(
        "GOAL_BLOCKED",
        importance,
        [town.hilda],
        {
            "blocked_goal": "get_iron",
            "blocker": "wolves in Darkwood",
            "npc_id": str(town.hilda),
            **extra,
        },
    )


async def iron_quest(town: Town, archetype: str = "clear_out") -> Any:
    """Hilda's wolf quest, built from the goal + threat compound seed."""
    seeds = await town.qg.composer().compose(
        [goal_signal(town), threat_signal(town, threat_location="Darkwood")]
    )
    assert seeds, "no compound seed"
    arch = town.qg.archetypes.get(archetype)
    assert arch is not None
    builder = town.qg.builder(EchoNarrator())
    quest = await builder.build(seeds[0], arch)
    assert not isinstance(quest, Rejection), quest
    return quest
